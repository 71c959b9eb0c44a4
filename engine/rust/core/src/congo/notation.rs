//! Congo position strings and move notation.

use std::fmt;

use super::position::{Kind, Move, Piece, Position};
use super::tables::CASTLES;
use crate::error::{MoveError, PositionError, PositionField};
use crate::notation::{parse_board, parse_squares, parse_turn, write_board};
use crate::types::{Color, Square};

pub const START: &str = "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w";

impl Position {
    /// Parses a position string; errors name the malformed field.
    pub fn from_fen(text: &str) -> Result<Position, PositionError> {
        let err = |field, expected: String| PositionError { game: "congo", field, input: text.to_string(), expected };
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 2 {
            return Err(err(
                PositionField::Layout,
                format!("expected 2 space-separated fields (board, side to move), found {}", fields.len()),
            ));
        }
        let turn = parse_turn(fields[1]).map_err(|e| err(PositionField::Turn, e))?;
        let cells = parse_board(fields[0], 7, 7, |c| Kind::from_letter(c).is_some())
            .map_err(|e| err(PositionField::Board, e))?;
        let mut pos = Position::empty(turn);
        for (index, cell) in cells.into_iter().enumerate() {
            let Some(c) = cell else { continue };
            let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
            let kind = Kind::from_letter(c).expect("checked by parse_board");
            let sq = Square(index as u8);
            let name = crate::notation::square_name(sq, 7);
            if kind == Kind::Pawn && sq.0 / 7 == super::tables::last_rank(color) {
                return Err(err(PositionField::Board, format!("pawn on its last rank at {name} (it would have been promoted)")));
            }
            if kind == Kind::Lion && !CASTLES[color.index()].contains(sq) {
                return Err(err(PositionField::Board, format!("{color} lion at {name} is outside its castle")));
            }
            pos.put(sq, Piece { color, kind });
        }
        for color in [Color::White, Color::Black] {
            let lions = pos.pieces(color, Kind::Lion).count();
            if lions != 1 {
                return Err(err(PositionField::Board, format!("{color} must have exactly one lion, found {lions}")));
            }
        }
        Ok(pos)
    }

    /// The canonical position string.
    pub fn fen(&self) -> String {
        let board = write_board(7, 7, |i| self.board[i].map(Piece::letter));
        format!("{board} {}", self.turn.letter())
    }

    /// Parses a move in compact (`b1d3f5d7`) or Mindsports (`b1-d3-f5-d7x`) form and checks it is
    /// legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let cleaned: String = text.chars().filter(|&c| c != '-' && c != 'x' && c != 'X').collect();
        let squares = parse_squares(&cleaned, 7, 7).ok_or_else(|| MoveError::Invalid {
            input: text.to_string(),
            expected: "a start square and its landing squares, files a-g and ranks 1-7, like d2d3, b1d3f5 or b1-d3-f5x"
                .to_string(),
        })?;
        self.legal_moves()
            .into_iter()
            .find(|m| m.from == squares[0] && m.landings() == squares[1..])
            .ok_or_else(|| MoveError::Illegal { input: text.to_string(), position: self.fen() })
    }

    /// The compact notation of a move.
    pub fn move_text(m: &Move) -> String {
        let mut s = crate::notation::square_name(m.from, 7);
        for sq in m.landings() {
            s.push_str(&crate::notation::square_name(sq, 7));
        }
        s
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Position::move_text(self))
    }
}
