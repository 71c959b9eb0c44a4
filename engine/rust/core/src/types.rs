//! Small value types shared by both games.

use std::fmt;

/// A square index: `rank * width + file`, rank 0 being White's home rank.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Square(pub u8);

impl Square {
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    #[inline]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The two games arbiter knows.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameKind {
    Congo,
    Congress,
}

impl GameKind {
    pub const ALL: [GameKind; 2] = [GameKind::Congo, GameKind::Congress];

    pub const fn name(self) -> &'static str {
        match self {
            GameKind::Congo => "congo",
            GameKind::Congress => "congress",
        }
    }

    pub fn from_name(name: &str) -> Option<GameKind> {
        GameKind::ALL.into_iter().find(|g| g.name() == name.to_ascii_lowercase())
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a game ended under the rules themselves (adjudication reasons live in `play`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    LionCaptured,
    KingsCaptured,
    NoLegalMove,
}

impl EndReason {
    pub const fn code(self) -> &'static str {
        match self {
            EndReason::LionCaptured => "lion_captured",
            EndReason::KingsCaptured => "kings_captured",
            EndReason::NoLegalMove => "no_legal_move",
        }
    }
}

/// A finished game: who won and why. Neither game has a draw rule.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Outcome {
    pub winner: Color,
    pub reason: EndReason,
}
