//! The search's tunable numbers: one table (name, default, min, max, meaning), like the evaluation
//! weights' tables. `SearchParams::default()` is the search the bench signature pins; the pruning
//! rows added for tuning default to 0, which turns them off.

use std::fmt;

use crate::eval::WeightSpec;

/// One row of the search parameter table (the same shape as an evaluation weight's row).
pub type ParamSpec = WeightSpec;

/// Declares the parameters once: each row `field = (default, min, max, "meaning")` becomes a field
/// of `SearchParams`, a row of `PARAM_TABLE` named after the field, and a case of the by-name
/// accessors.
macro_rules! param_table {
    ($($field:ident = ($default:expr, $min:expr, $max:expr, $meaning:literal),)+) => {
        /// Values of the search parameters, one field per row of [`PARAM_TABLE`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct SearchParams {
            $(#[doc = $meaning] pub $field: i32,)+
        }

        /// The search parameters in a fixed order: name, default, min, max, meaning.
        pub static PARAM_TABLE: [ParamSpec; [$(stringify!($field)),+].len()] =
            [$(ParamSpec::new(stringify!($field), $default, $min, $max, $meaning)),+];

        impl SearchParams {
            /// Every parameter at its default: today's search.
            pub const DEFAULT: SearchParams = SearchParams { $($field: $default,)+ };

            /// The value of the parameter called `name`.
            pub fn get(&self, name: &str) -> Option<i32> {
                match name {
                    $(stringify!($field) => Some(self.$field),)+
                    _ => None,
                }
            }

            /// The values in table order.
            pub fn values(&self) -> Vec<i32> {
                vec![$(self.$field),+]
            }

            fn slot(&mut self, name: &str) -> Option<&mut i32> {
                match name {
                    $(stringify!($field) => Some(&mut self.$field),)+
                    _ => None,
                }
            }
        }
    };
}

param_table! {
    lmr_min_depth = (4, 1, 20, "late-move reductions apply at this remaining depth and deeper"),
    lmr_min_move = (3, 1, 64, "a quiet move at a non-PV node is late (reduced) from this index of the ordered list"),
    lmr_reduction = (2, 0, 8, "plies a late move is reduced by"),
    lmr_late_move = (8, 1, 128, "from this move index a late move is reduced by lmr_late_reduction more"),
    lmr_late_reduction = (0, 0, 8, "extra plies of reduction from move lmr_late_move on"),
    lmr_depth_divisor = (0, 0, 32, "when above 0, a late move is also reduced by depth / this (0: off)"),
    history_depth2 = (2, 0, 16, "history bonus of a quiet move that cuts off, per depth squared"),
    history_depth1 = (0, 0, 64, "history bonus of a quiet move that cuts off, per depth"),
    history_max = (1 << 20, 0, 1 << 26, "cap of a move's history score"),
    order_capture = (1 << 28, 0, 1 << 29, "ordering score of a capture, plus the victim's value"),
    order_killer1 = (1 << 27, 0, 1 << 29, "ordering score of the first killer move (quiet moves score their history)"),
    order_killer2 = ((1 << 27) - 1, 0, 1 << 29, "ordering score of the second killer move"),
    aspiration_window = (35, 0, 1000, "half-width of the root window around the last score, doubled on each fail (0: off)"),
    futility_margin = (74, 0, 2000, "skip quiet moves at non-PV nodes when eval + this * depth <= alpha (0: off)"),
    futility_depth = (1, 1, 8, "deepest remaining depth where futility pruning applies"),
    delta_margin = (136, 0, 2000, "quiescence skips captures when eval + victim + this <= alpha (0: off)"),
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams::DEFAULT
    }
}

/// Why named parameter values were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamError {
    Unknown { names: Vec<String> },
    OutOfRange { name: String, value: i64, min: i32, max: i32 },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::Unknown { names } => write!(f, "unknown search parameter name(s): {}", names.join(", ")),
            ParamError::OutOfRange { name, value, min, max } => {
                write!(f, "search parameter {name} = {value} is out of range, expected {min}..={max}")
            }
        }
    }
}

impl std::error::Error for ParamError {}

impl SearchParams {
    /// Sets the parameter called `name`; an unknown name or a value outside its range changes
    /// nothing.
    pub fn set(&mut self, name: &str, value: i64) -> Result<(), ParamError> {
        let spec = spec(name).ok_or_else(|| ParamError::Unknown { names: vec![name.to_string()] })?;
        if value < i64::from(spec.min) || value > i64::from(spec.max) {
            return Err(ParamError::OutOfRange { name: name.to_string(), value, min: spec.min, max: spec.max });
        }
        let slot = self.slot(name).ok_or_else(|| ParamError::Unknown { names: vec![name.to_string()] })?;
        *slot = value as i32;
        Ok(())
    }
}

/// The table row of the parameter called `name`.
pub fn spec(name: &str) -> Option<&'static ParamSpec> {
    PARAM_TABLE.iter().find(|s| s.name == name)
}

/// Parameters from named values; omitted names take their default. All unknown names are
/// reported together, before any range check.
pub fn resolve_params(named: &[(String, i64)]) -> Result<SearchParams, ParamError> {
    let unknown: Vec<String> = named.iter().filter(|(n, _)| spec(n).is_none()).map(|(n, _)| n.clone()).collect();
    if !unknown.is_empty() {
        return Err(ParamError::Unknown { names: unknown });
    }
    let mut params = SearchParams::DEFAULT;
    for (name, value) in named {
        params.set(name, *value)?;
    }
    Ok(params)
}
