//! One interface over both games, so perft, search and game play are written once.

use crate::error::{MoveError, PositionError};
use crate::types::{Color, GameKind, Outcome};
use crate::{congo, congress};

pub trait Rules: Copy + Send + Sync + 'static {
    type Move: Copy + PartialEq + Eq + std::hash::Hash + std::fmt::Debug + std::fmt::Display + Send;

    const GAME: GameKind;

    fn start() -> Self;
    fn from_fen(text: &str) -> Result<Self, PositionError>;
    fn fen(&self) -> String;
    fn turn(&self) -> Color;
    fn hash(&self) -> u64;
    fn compute_hash(&self) -> u64;
    fn legal_moves(&self) -> Vec<Self::Move>;
    fn capture_moves(&self) -> Vec<Self::Move>;
    fn count_moves(&self) -> u64;
    fn play(&self, m: &Self::Move) -> Self;
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;
    fn outcome(&self) -> Option<Outcome>;
    /// True when a lion (Congo) or the last king of a side (Congress) has been captured.
    fn is_decided(&self) -> bool;
}

impl Rules for congo::Position {
    type Move = congo::Move;
    const GAME: GameKind = GameKind::Congo;

    fn start() -> Self {
        congo::Position::start()
    }
    fn from_fen(text: &str) -> Result<Self, PositionError> {
        congo::Position::from_fen(text)
    }
    fn fen(&self) -> String {
        congo::Position::fen(self)
    }
    fn turn(&self) -> Color {
        congo::Position::turn(self)
    }
    fn hash(&self) -> u64 {
        congo::Position::hash(self)
    }
    fn compute_hash(&self) -> u64 {
        congo::Position::compute_hash(self)
    }
    fn legal_moves(&self) -> Vec<Self::Move> {
        congo::Position::legal_moves(self)
    }
    fn capture_moves(&self) -> Vec<Self::Move> {
        congo::Position::capture_moves(self)
    }
    fn count_moves(&self) -> u64 {
        congo::Position::count_moves(self)
    }
    fn play(&self, m: &Self::Move) -> Self {
        self.play_unchecked(m)
    }
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError> {
        congo::Position::parse_move(self, text)
    }
    fn outcome(&self) -> Option<Outcome> {
        congo::Position::outcome(self)
    }
    fn is_decided(&self) -> bool {
        self.lion_captured()
    }
}

impl Rules for congress::Position {
    type Move = congress::Move;
    const GAME: GameKind = GameKind::Congress;

    fn start() -> Self {
        congress::Position::start()
    }
    fn from_fen(text: &str) -> Result<Self, PositionError> {
        congress::Position::from_fen(text)
    }
    fn fen(&self) -> String {
        congress::Position::fen(self)
    }
    fn turn(&self) -> Color {
        congress::Position::turn(self)
    }
    fn hash(&self) -> u64 {
        congress::Position::hash(self)
    }
    fn compute_hash(&self) -> u64 {
        congress::Position::compute_hash(self)
    }
    fn legal_moves(&self) -> Vec<Self::Move> {
        congress::Position::legal_moves(self)
    }
    fn capture_moves(&self) -> Vec<Self::Move> {
        congress::Position::capture_moves(self)
    }
    fn count_moves(&self) -> u64 {
        congress::Position::count_moves(self)
    }
    fn play(&self, m: &Self::Move) -> Self {
        self.play_unchecked(m)
    }
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError> {
        congress::Position::parse_move(self, text)
    }
    fn outcome(&self) -> Option<Outcome> {
        congress::Position::outcome(self)
    }
    fn is_decided(&self) -> bool {
        self.kings_gone()
    }
}
