//! Time management: how long one search may take, from the side to move's clock.
//!
//! Two times come out: a soft one, after which no new iteration is started, and a hard one, at
//! which the search stops wherever it is. Both leave a reserve on the clock, so that a move never
//! loses on time by the engine's own doing (the referee's margin covers the rest).

use std::time::Duration;

use crate::limits::Clock;

/// Moves assumed left in the game when the control says nothing (sudden death).
const MOVES_LEFT_GUESS: u64 = 30;
/// Kept on the clock for the answer to reach the referee (ms).
const OVERHEAD_MS: u64 = 10;

/// The time one search may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allotment {
    /// No iteration starts after this.
    pub soft: Duration,
    /// The search stops at this.
    pub hard: Duration,
}

/// The time for a move with `clock`, never beyond `movetime_ms` when that is given too.
pub fn allot(clock: Clock, movetime_ms: Option<u64>) -> Allotment {
    let available = clock.remaining_ms.saturating_sub(OVERHEAD_MS);
    let moves_left = clock.moves_to_go.map_or(MOVES_LEFT_GUESS, u64::from).max(1);
    // A fair share of what is left, plus most of the increment that comes back after the move.
    let share = available / moves_left + clock.increment_ms * 3 / 4;
    let mut soft = share.min(available / 2);
    let mut hard = (share * 3).min(available * 3 / 4).max(soft);
    if let Some(ms) = movetime_ms {
        soft = soft.min(ms);
        hard = hard.min(ms);
    }
    Allotment { soft: Duration::from_millis(soft), hard: Duration::from_millis(hard) }
}

/// The time for a move of fixed time `movetime_ms`: all of it.
pub fn fixed(movetime_ms: u64) -> Allotment {
    let d = Duration::from_millis(movetime_ms);
    Allotment { soft: d, hard: d }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(remaining_ms: u64, increment_ms: u64, moves_to_go: Option<u32>) -> Clock {
        Clock { remaining_ms, increment_ms, moves_to_go }
    }

    #[test]
    fn a_move_takes_a_share_and_never_the_whole_clock() {
        for remaining in [0, 5, 50, 1_000, 10_000, 600_000] {
            for increment in [0, 100, 1_000] {
                for moves in [None, Some(1), Some(5), Some(40)] {
                    let a = allot(clock(remaining, increment, moves), None);
                    assert!(a.soft <= a.hard, "{remaining} {increment} {moves:?}");
                    assert!(a.hard.as_millis() as u64 <= remaining.saturating_sub(OVERHEAD_MS) * 3 / 4 + 1);
                }
            }
        }
        let a = allot(clock(10_000, 100, None), None);
        assert_eq!(a.soft, Duration::from_millis(9_990 / 30 + 75));
        // The last move before a new period may use more of the clock.
        assert!(allot(clock(10_000, 0, Some(1)), None).soft > allot(clock(10_000, 0, Some(20)), None).soft);
        assert!(allot(clock(60_000, 0, None), Some(100)).hard <= Duration::from_millis(100));
    }
}
