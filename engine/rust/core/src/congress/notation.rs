//! Congress position strings and move notation.

use std::fmt;

use super::position::{Kind, Move, Piece, Position};
use crate::error::{MoveError, PositionError, PositionField};
use crate::notation::{parse_board, parse_squares, parse_turn, square_name, write_board};
use crate::types::{Color, Square};

pub const START: &str = "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w";

impl Position {
    pub fn from_fen(text: &str) -> Result<Position, PositionError> {
        let err = |field, expected: String| PositionError { game: "congress", field, input: text.to_string(), expected };
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 2 {
            return Err(err(
                PositionField::Layout,
                format!("expected 2 space-separated fields (board, side to move), found {}", fields.len()),
            ));
        }
        let turn = parse_turn(fields[1]).map_err(|e| err(PositionField::Turn, e))?;
        let cells = parse_board(fields[0], 8, 6, |c| matches!(c.to_ascii_uppercase(), 'K' | 'P' | 'H' | 'B'))
            .map_err(|e| err(PositionField::Board, e))?;
        let mut pos = Position::empty(turn);
        for (index, cell) in cells.into_iter().enumerate() {
            let Some(c) = cell else { continue };
            let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
            let kind = match c.to_ascii_uppercase() {
                'K' => Kind::King,
                'P' => Kind::Pawn,
                _ => Kind::Politician,
            };
            pos.put(Square(index as u8), Piece { color, kind });
        }
        for color in [Color::White, Color::Black] {
            let kings = pos.pieces(color, Kind::King).count();
            if kings > 2 {
                return Err(err(PositionField::Board, format!("{color} has {kings} kings, expected at most 2")));
            }
        }
        if pos.by_kind[Kind::King.index()].is_empty() {
            return Err(err(PositionField::Board, "neither side has a king (at least one side must have one)".to_string()));
        }
        Ok(pos)
    }

    pub fn fen(&self) -> String {
        let board = write_board(8, 6, |i| self.board[i].map(|p| p.letter(Square(i as u8))));
        format!("{board} {}", self.turn.letter())
    }

    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let squares = parse_squares(text, 8, 6).filter(|s| s.len() == 2).ok_or_else(|| MoveError::Invalid {
            input: text.to_string(),
            expected: "from-square and to-square, files a-h and ranks 1-6, like b2b3".to_string(),
        })?;
        let wanted = Move { from: squares[0], to: squares[1] };
        self.legal_moves()
            .into_iter()
            .find(|m| *m == wanted)
            .ok_or_else(|| MoveError::Illegal { input: text.to_string(), position: self.fen() })
    }

    pub fn move_text(m: &Move) -> String {
        format!("{}{}", square_name(m.from, 8), square_name(m.to, 8))
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&Position::move_text(self))
    }
}
