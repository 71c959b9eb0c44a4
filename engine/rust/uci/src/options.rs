//! The engine's options: declared once at `uci`, set by `setoption`, read into `Settings` when a
//! searcher is made.
//!
//! Both games' weight tables share names with different defaults and ranges (`pawn`,
//! `pawn_advance`, `mobility`), so an engine playing both declares each weight with its game's
//! prefix (`congo_pawn`, `congress_pawn`); a one-game engine (`--variant`) uses the plain names.
//! Search parameters are the same for both games and always use their plain names.

use std::fmt;

use arbiter_core::eval::{default_weights, weight_table, WeightSpec};
use arbiter_core::params::{SearchParams, PARAM_TABLE};
use arbiter_core::GameKind;

use crate::command::clip;

pub const HASH_DEFAULT: i64 = 16;
pub const HASH_MIN: i64 = 1;
pub const HASH_MAX: i64 = 4096;

/// Everything a game's searcher is made from, as the options set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub variant: GameKind,
    pub hash_mb: usize,
    /// Full weight vectors, Congo's then Congress's.
    pub weights: [Vec<i32>; 2],
    pub params: SearchParams,
}

impl Settings {
    pub fn weights(&self, game: GameKind) -> &[i32] {
        &self.weights[game_index(game)]
    }
}

fn game_index(game: GameKind) -> usize {
    match game {
        GameKind::Congo => 0,
        GameKind::Congress => 1,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Variant,
    Hash,
    Weight { game: GameKind, index: usize },
    Param { spec: &'static WeightSpec },
}

/// One declared option; all but `UCI_Variant` are spins.
#[derive(Clone, Debug)]
struct EngineOption {
    name: String,
    target: Target,
    default: i64,
    min: i64,
    max: i64,
}

/// Why a `setoption` was ignored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    Unknown { name: String },
    MissingValue { name: String },
    NotANumber { name: String, value: String },
    OutOfRange { name: String, value: i64, min: i64, max: i64 },
    UnknownVariant { value: String, variants: Vec<GameKind> },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::Unknown { name } => write!(f, "unknown option {name:?}, ignored"),
            OptionError::MissingValue { name } => write!(f, "option {name} needs a value, ignored"),
            OptionError::NotANumber { name, value } => {
                write!(f, "option {name} = {value:?} is not an integer, ignored")
            }
            OptionError::OutOfRange { name, value, min, max } => {
                write!(f, "option {name} = {value} is out of range {min}..={max}, ignored")
            }
            OptionError::UnknownVariant { value, variants } => {
                let names: Vec<&str> = variants.iter().map(|g| g.name()).collect();
                write!(f, "UCI_Variant {value:?} is not one of {}, ignored", names.join(", "))
            }
        }
    }
}

impl std::error::Error for OptionError {}

/// The options of an engine that plays `games` (one game: plain weight names).
#[derive(Clone, Debug)]
pub struct Options {
    games: Vec<GameKind>,
    list: Vec<EngineOption>,
}

impl Options {
    /// The options of an engine that plays `only` that game, or both.
    pub fn new(only: Option<GameKind>) -> Options {
        let games: Vec<GameKind> = only.map_or(GameKind::ALL.to_vec(), |g| vec![g]);
        let spin = |name: String, target, default: i32, min: i32, max: i32| EngineOption {
            name,
            target,
            default: default.into(),
            min: min.into(),
            max: max.into(),
        };
        let mut list = vec![
            EngineOption { name: "UCI_Variant".into(), target: Target::Variant, default: 0, min: 0, max: 0 },
            EngineOption {
                name: "Hash".into(),
                target: Target::Hash,
                default: HASH_DEFAULT,
                min: HASH_MIN,
                max: HASH_MAX,
            },
        ];
        for &game in &games {
            for (index, w) in weight_table(game).iter().enumerate() {
                let name = if only.is_some() { w.name.to_string() } else { format!("{game}_{}", w.name) };
                list.push(spin(name, Target::Weight { game, index }, w.default, w.min, w.max));
            }
        }
        for spec in &PARAM_TABLE {
            list.push(spin(spec.name.to_string(), Target::Param { spec }, spec.default, spec.min, spec.max));
        }
        Options { games, list }
    }

    /// The games this engine plays.
    pub fn games(&self) -> &[GameKind] {
        &self.games
    }

    /// The `option name ...` lines of the handshake.
    pub fn declarations(&self) -> Vec<String> {
        self.list
            .iter()
            .map(|o| match o.target {
                Target::Variant => {
                    let vars: Vec<String> = self.games.iter().map(|g| format!(" var {g}")).collect();
                    format!("option name {} type combo default {}{}", o.name, self.games[0], vars.concat())
                }
                _ => format!("option name {} type spin default {} min {} max {}", o.name, o.default, o.min, o.max),
            })
            .collect()
    }

    /// Every option at its default.
    pub fn defaults(&self) -> Settings {
        Settings {
            variant: self.games[0],
            hash_mb: HASH_DEFAULT as usize,
            weights: [default_weights(GameKind::Congo), default_weights(GameKind::Congress)],
            params: SearchParams::default(),
        }
    }

    /// Applies `setoption name <name> value <value>` to `settings` (names match in any case, as
    /// UCI says); on an error `settings` is unchanged.
    pub fn set(&self, settings: &mut Settings, name: &str, value: Option<&str>) -> Result<(), OptionError> {
        let option = self
            .list
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| OptionError::Unknown { name: clip(name) })?;
        let name = option.name.clone();
        let value = value.map(str::trim).ok_or_else(|| OptionError::MissingValue { name: name.clone() })?;
        if option.target == Target::Variant {
            let game = GameKind::from_name(value).filter(|g| self.games.contains(g));
            settings.variant =
                game.ok_or_else(|| OptionError::UnknownVariant { value: clip(value), variants: self.games.clone() })?;
            return Ok(());
        }
        let number: i64 =
            value.parse().map_err(|_| OptionError::NotANumber { name: name.clone(), value: clip(value) })?;
        if number < option.min || number > option.max {
            return Err(OptionError::OutOfRange { name, value: number, min: option.min, max: option.max });
        }
        // In range of an i32 spin (or of Hash), so the conversions below are exact.
        match option.target {
            Target::Variant => {}
            Target::Hash => settings.hash_mb = number as usize,
            Target::Weight { game, index } => settings.weights[game_index(game)][index] = number as i32,
            Target::Param { spec } => {
                settings.params.set(spec.name, number).map_err(|_| OptionError::Unknown { name: name.clone() })?
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_of_a_two_game_engine() {
        let options = Options::new(None);
        let lines = options.declarations();
        assert_eq!(lines[0], "option name UCI_Variant type combo default congo var congo var congress");
        assert_eq!(lines[1], "option name Hash type spin default 16 min 1 max 4096");
        for (game, prefix, name) in [(GameKind::Congo, "congo", "pawn"), (GameKind::Congress, "congress", "king")] {
            let spec = weight_table(game).iter().find(|w| w.name == name).expect("a weight of the table");
            let line = format!(
                "option name {prefix}_{name} type spin default {} min {} max {}",
                spec.default, spec.min, spec.max
            );
            assert!(lines.contains(&line), "{line}");
        }
        assert!(lines.contains(&"option name lmr_min_depth type spin default 4 min 1 max 20".to_string()));
        let weights = weight_table(GameKind::Congo).len() + weight_table(GameKind::Congress).len();
        assert_eq!(lines.len(), 2 + weights + PARAM_TABLE.len());
        // Every name is declared once, in any case.
        let mut names: Vec<String> = options.list.iter().map(|o| o.name.to_ascii_lowercase()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), lines.len());
    }

    #[test]
    fn declarations_of_a_one_game_engine() {
        for game in GameKind::ALL {
            let options = Options::new(Some(game));
            let lines = options.declarations();
            assert_eq!(lines[0], format!("option name UCI_Variant type combo default {game} var {game}"));
            assert_eq!(lines.len(), 2 + weight_table(game).len() + PARAM_TABLE.len());
            let pawn = weight_table(game).iter().find(|w| w.name == "pawn").unwrap();
            let want = format!("option name pawn type spin default {} min {} max {}", pawn.default, pawn.min, pawn.max);
            assert!(lines.contains(&want), "{game}");
            assert_eq!(options.defaults().variant, game);
        }
    }

    #[test]
    fn set_values() {
        let options = Options::new(None);
        let mut s = options.defaults();
        options.set(&mut s, "Hash", Some("64")).unwrap();
        options.set(&mut s, "uci_variant", Some("congress")).unwrap();
        options.set(&mut s, "CONGO_PAWN", Some(" 120 ")).unwrap();
        options.set(&mut s, "congress_pawn", Some("90")).unwrap();
        options.set(&mut s, "lmr_min_depth", Some("4")).unwrap();
        assert_eq!(s.hash_mb, 64);
        assert_eq!(s.variant, GameKind::Congress);
        assert_eq!(s.weights(GameKind::Congo)[0], 120);
        assert_eq!(s.weights(GameKind::Congress)[0], 90);
        assert_eq!(s.params.lmr_min_depth, 4);
    }

    #[test]
    fn bad_values_change_nothing() {
        let options = Options::new(Some(GameKind::Congo));
        let mut s = options.defaults();
        let before = s.clone();
        let cases: &[(&str, Option<&str>)] = &[
            ("Hash", Some("0")),
            ("Hash", Some("4097")),
            ("Hash", Some("lots")),
            ("Hash", None),
            ("pawn", Some("1e3")),
            ("pawn", Some("99999999999999999999999")),
            ("congo_pawn", Some("100")),
            ("UCI_Variant", Some("congress")),
            ("UCI_Variant", Some("chess")),
            ("Skill Level", Some("3")),
            ("lmr_min_depth", Some("0")),
        ];
        for (name, value) in cases {
            let err = options.set(&mut s, name, *value).unwrap_err();
            assert!(err.to_string().contains("ignored"), "{err}");
            assert_eq!(s, before, "{name} {value:?}");
        }
    }
}
