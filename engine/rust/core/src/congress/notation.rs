//! Congress position strings and move notation.

use std::fmt;

use super::position::{Kind, Move, Position};
use super::tables::{H, W};
use crate::error::{MoveError, PositionError};
use crate::notation::{move_text, MoveSquares};
use crate::rules::find_move;
use crate::types::Color;

pub const START: &str = "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w";

impl Position {
    /// Parses a position string; errors name the malformed field.
    pub fn from_fen(text: &str) -> Result<Position, PositionError> {
        Position::parse(text, |pos| {
            for color in [Color::White, Color::Black] {
                let kings = pos.pieces(color, Kind::King).count();
                if kings > 2 {
                    return Err(format!("{color} has {kings} kings, expected at most 2"));
                }
            }
            if pos.kind_bb(Kind::King).is_empty() {
                return Err("neither side has a king (at least one side must have one)".to_string());
            }
            Ok(())
        })
    }

    /// The two squares a move names (`b2b3`).
    pub fn move_squares(text: &str) -> Option<MoveSquares> {
        MoveSquares::parse(text, W as u8, H as u8, b"").filter(|s| s.as_slice().len() == 2)
    }

    /// The two squares of a move in the exact compact form (`b2b3`).
    pub fn compact_squares(bytes: &[u8]) -> Option<MoveSquares> {
        (bytes.len() == 4).then(|| MoveSquares::parse_compact(bytes, W as u8, H as u8)).flatten()
    }

    /// Parses a move written as its two squares (`b2b3`) and checks it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        find_move(
            self,
            text,
            Position::move_squares(text),
            "from-square and to-square, files a-h and ranks 1-6, like b2b3",
        )
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&move_text(self, W as u8))
    }
}
