//! Congo position strings and move notation.

use std::fmt;

use super::position::{Kind, Move, Position};
use super::tables::{last_rank, CASTLES, H, W};
use crate::error::{MoveError, PositionError};
use crate::notation::{move_text, square_name, MoveSquares};
use crate::rules::find_move;
use crate::types::Color;

pub const START: &str = "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w";

impl Position {
    /// Parses a position string; errors name the malformed field.
    pub fn from_fen(text: &str) -> Result<Position, PositionError> {
        Position::parse(text, |pos| {
            for sq in pos.occupied() {
                let Some(piece) = pos.piece_at(sq) else { continue };
                let (color, name) = (piece.color, || square_name(sq, W as u8)); // named only in an error
                if piece.kind == Kind::Pawn && sq.0 / W as u8 == last_rank(color) {
                    return Err(format!("pawn on its last rank at {} (it would have been promoted)", name()));
                }
                if piece.kind == Kind::Lion && !CASTLES[color.index()].contains(sq) {
                    return Err(format!("{color} lion at {} is outside its castle", name()));
                }
            }
            for color in [Color::White, Color::Black] {
                let lions = pos.pieces(color, Kind::Lion).count();
                if lions != 1 {
                    return Err(format!("{color} must have exactly one lion, found {lions}"));
                }
            }
            Ok(())
        })
    }

    /// The squares a move names in compact (`b1d3f5d7`) or Mindsports (`b1-d3-f5-d7x`) form.
    pub fn move_squares(text: &str) -> Option<MoveSquares> {
        MoveSquares::parse(text, W as u8, H as u8, b"-xX")
    }

    /// The squares of a move in the exact compact form (`b1d3f5d7`).
    pub fn compact_squares(bytes: &[u8]) -> Option<MoveSquares> {
        MoveSquares::parse_compact(bytes, W as u8, H as u8)
    }

    /// Parses a move in compact (`b1d3f5d7`) or Mindsports (`b1-d3-f5-d7x`) form and checks it is
    /// legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        find_move(self, text, Position::move_squares(text), MOVE_FORMAT)
    }
}

/// What a Congo move looks like, for error messages.
const MOVE_FORMAT: &str =
    "a start square and its landing squares, files a-g and ranks 1-7, like d2d3, b1d3f5 or b1-d3-f5x";

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&move_text(self, W as u8))
    }
}
