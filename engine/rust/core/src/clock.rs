//! The referee's clock of a timed game, kept as fastchess keeps it: each side's remaining time,
//! charged with what each of its moves took, with the increment and the periods of a repeating
//! control added back, and a margin past zero before a side loses on time.

use crate::limits::{Clock, TimeControl};
use crate::types::Color;

/// Both sides' clocks of one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    control: TimeControl,
    margin_ms: u64,
    /// Milliseconds left per side (index by colour).
    remaining_ms: [u64; 2],
    /// Moves played per side.
    moves: [u32; 2],
}

/// A side used more than its time and the margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flagged {
    pub side: Color,
    /// By how much the move overstepped the remaining time (ms).
    pub over_ms: u64,
}

impl GameClock {
    /// Clocks at the start of a game under `control`, with `margin_ms` of grace past zero.
    pub fn new(control: TimeControl, margin_ms: u64) -> GameClock {
        GameClock { control, margin_ms, remaining_ms: [control.base_ms(); 2], moves: [0; 2] }
    }

    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// Milliseconds `side` has left.
    pub fn remaining_ms(&self, side: Color) -> u64 {
        self.remaining_ms[side.index()]
    }

    /// What a search of `side` is told (UCI's `wtime`/`winc`/`movestogo` of that side).
    pub fn for_move(&self, side: Color) -> Clock {
        let played = self.moves[side.index()];
        Clock {
            remaining_ms: self.remaining_ms(side),
            increment_ms: self.control.increment_ms(),
            moves_to_go: self.control.moves().map(|period| period - played % period),
        }
    }

    /// Charges `side` with a move that took `elapsed_ms`: the time comes off its clock, then the
    /// increment (and, at the end of a period, the base time) is added. `Err` when the move took
    /// more than the time left plus the margin: the side lost on time.
    pub fn charge(&mut self, side: Color, elapsed_ms: u64) -> Result<(), Flagged> {
        let i = side.index();
        let left = self.remaining_ms[i];
        if elapsed_ms > left.saturating_add(self.margin_ms) {
            return Err(Flagged { side, over_ms: elapsed_ms - left });
        }
        self.remaining_ms[i] = left.saturating_sub(elapsed_ms) + self.control.increment_ms();
        self.moves[i] += 1;
        if self.control.moves().is_some_and(|period| self.moves[i].is_multiple_of(period)) {
            self.remaining_ms[i] += self.control.base_ms();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(text: &str) -> TimeControl {
        TimeControl::parse(text).expect(text)
    }

    #[test]
    fn increments_and_periods_come_back() {
        let mut clock = GameClock::new(tc("10+0.1"), 0);
        assert_eq!(clock.for_move(Color::White), Clock { remaining_ms: 10_000, increment_ms: 100, moves_to_go: None });
        clock.charge(Color::White, 1_500).expect("in time");
        assert_eq!(clock.remaining_ms(Color::White), 8_600);
        assert_eq!(clock.remaining_ms(Color::Black), 10_000);

        let mut periods = GameClock::new(tc("2/1+0"), 0);
        assert_eq!(periods.for_move(Color::Black).moves_to_go, Some(2));
        periods.charge(Color::Black, 400).expect("in time");
        assert_eq!(periods.for_move(Color::Black).moves_to_go, Some(1));
        periods.charge(Color::Black, 400).expect("in time");
        assert_eq!(periods.remaining_ms(Color::Black), 1_200, "a new period adds the base time");
        assert_eq!(periods.for_move(Color::Black).moves_to_go, Some(2));
    }

    #[test]
    fn the_margin_is_the_only_grace() {
        let mut clock = GameClock::new(tc("1+0"), 50);
        clock.charge(Color::White, 1_040).expect("within the margin");
        assert_eq!(clock.remaining_ms(Color::White), 0);
        let mut late = GameClock::new(tc("1+0"), 50);
        assert_eq!(late.charge(Color::White, 1_051), Err(Flagged { side: Color::White, over_ms: 51 }));
    }
}
