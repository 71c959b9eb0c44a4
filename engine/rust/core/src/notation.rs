//! The text of positions and moves shared by both games: squares, the position string (board
//! field and side to move), and moves in their compact form.

use crate::board::{Board, Piece, PieceKind};
use crate::error::{PositionError, PositionField};
use crate::moves::GameMove;
use crate::types::{Color, Square};

pub fn square_name(sq: Square, width: u8) -> String {
    let file = (b'a' + sq.0 % width) as char;
    let rank = sq.0 / width + 1;
    format!("{file}{rank}")
}

/// The most squares a move's text may name: its start square and every landing square.
pub const MAX_MOVE_SQUARES: usize = 48;

/// The squares a move's text names, in order, held without allocating.
#[derive(Clone, Copy, Debug)]
pub struct MoveSquares {
    len: u8,
    squares: [Square; MAX_MOVE_SQUARES],
}

impl MoveSquares {
    /// Parses a run of squares like `b1d3f5` (case-insensitive), passing over the bytes in `skip`;
    /// `None` unless there are at least two squares, all on the board.
    pub fn parse(text: &str, width: u8, height: u8, skip: &[u8]) -> Option<MoveSquares> {
        let mut out = MoveSquares { len: 0, squares: [Square(0); MAX_MOVE_SQUARES] };
        let mut file: Option<u8> = None;
        for &byte in text.trim().as_bytes() {
            if skip.contains(&byte) {
                continue;
            }
            let Some(letter) = file.take() else {
                file = Some(byte);
                continue;
            };
            let f = letter.to_ascii_lowercase().checked_sub(b'a')?;
            let r = byte.checked_sub(b'1')?;
            // Checked first: `r * width` overflows for an off-board rank.
            if f >= width || r >= height || usize::from(out.len) == MAX_MOVE_SQUARES {
                return None;
            }
            out.squares[usize::from(out.len)] = Square(r * width + f);
            out.len += 1;
        }
        (file.is_none() && out.len >= 2).then_some(out)
    }

    /// Parses a move's compact form exactly as the engine prints it (`b1d3f5`: lower-case files,
    /// nothing else): the wire form of a game record, read without trimming or skipping anything.
    pub fn parse_compact(bytes: &[u8], width: u8, height: u8) -> Option<MoveSquares> {
        if bytes.len() < 4 || !bytes.len().is_multiple_of(2) || bytes.len() > 2 * MAX_MOVE_SQUARES {
            return None;
        }
        let mut out = MoveSquares { len: 0, squares: [Square(0); MAX_MOVE_SQUARES] };
        for pair in bytes.chunks_exact(2) {
            let (f, r) = (pair[0].wrapping_sub(b'a'), pair[1].wrapping_sub(b'1'));
            if f >= width || r >= height {
                return None;
            }
            out.squares[usize::from(out.len)] = Square(r * width + f);
            out.len += 1;
        }
        Some(out)
    }

    pub fn as_slice(&self) -> &[Square] {
        &self.squares[..usize::from(self.len)]
    }
}

/// The compact notation of a move: its start square, then each landing square (`d2d3`, `b1d3f5`).
pub fn move_text<M: GameMove>(m: &M, width: u8) -> String {
    let mut s = square_name(m.origin(), width);
    for sq in m.landings() {
        s.push_str(&square_name(sq, width));
    }
    s
}

pub fn parse_turn(text: &str) -> Result<Color, String> {
    match text {
        "w" => Ok(Color::White),
        "b" => Ok(Color::Black),
        _ => Err(format!("expected 'w' or 'b', found {text:?}")),
    }
}

/// Parses the piece placement field into cells indexed by square (rank 1 first).
/// `is_piece` accepts a piece letter in either case.
pub fn parse_board(
    text: &str,
    width: u8,
    height: u8,
    is_piece: impl Fn(char) -> bool,
) -> Result<Vec<Option<char>>, String> {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != height as usize {
        return Err(format!("expected {height} ranks separated by '/', found {}", ranks.len()));
    }
    let mut cells = vec![None; width as usize * height as usize];
    for (row, rank_text) in ranks.iter().enumerate() {
        let rank = height as usize - 1 - row;
        let mut file = 0usize;
        let mut after_digit = false;
        for c in rank_text.chars() {
            if let Some(d) = c.to_digit(10).filter(|&d| d >= 1) {
                if after_digit {
                    return Err(format!(
                        "two digits in a row in rank {}: write one digit per run of empty squares",
                        rank + 1
                    ));
                }
                after_digit = true;
                file += d as usize;
                continue;
            }
            after_digit = false;
            if is_piece(c) {
                if file < width as usize {
                    cells[rank * width as usize + file] = Some(c);
                }
                file += 1;
            } else {
                return Err(format!("unexpected character {c:?} in rank {}", rank + 1));
            }
        }
        if file != width as usize {
            return Err(format!("rank {} describes {file} squares, expected {width}", rank + 1));
        }
    }
    Ok(cells)
}

/// Prints the piece placement field; `cell(i)` gives the letter on square `i`.
pub fn write_board(width: u8, height: u8, cell: impl Fn(usize) -> Option<char>) -> String {
    let mut out = String::new();
    for rank in (0..height as usize).rev() {
        let mut run = 0;
        for file in 0..width as usize {
            match cell(rank * width as usize + file) {
                Some(c) => {
                    if run > 0 {
                        out.push_str(&run.to_string());
                        run = 0;
                    }
                    out.push(c);
                }
                None => run += 1,
            }
        }
        if run > 0 {
            out.push_str(&run.to_string());
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out
}

/// The position string of a board (the rules pages' notation): parsed and printed here, so that
/// the board itself knows nothing of text.
impl<K: PieceKind, const KINDS: usize, const SQUARES: usize> Board<K, KINDS, SQUARES> {
    /// Parses a position string (board and side to move) and places its pieces; `check` then
    /// applies the game's own constraints and returns the board field's error message.
    pub(crate) fn parse(text: &str, check: impl FnOnce(&Self) -> Result<(), String>) -> Result<Self, PositionError> {
        let err =
            |field, expected: String| PositionError { game: K::GAME.name(), field, input: text.to_string(), expected };
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 2 {
            return Err(err(
                PositionField::Layout,
                format!("expected 2 space-separated fields (board, side to move), found {}", fields.len()),
            ));
        }
        let turn = parse_turn(fields[1]).map_err(|e| err(PositionField::Turn, e))?;
        let cells = parse_board(fields[0], K::WIDTH, K::HEIGHT, |c| K::from_letter(c).is_some())
            .map_err(|e| err(PositionField::Board, e))?;
        let mut pos = Self::empty(turn);
        for (index, cell) in cells.into_iter().enumerate() {
            let Some(c) = cell else { continue };
            let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
            let kind = K::from_letter(c).expect("checked by parse_board");
            pos.put(Square(index as u8), Piece { color, kind });
        }
        check(&pos).map_err(|e| err(PositionField::Board, e))?;
        Ok(pos)
    }

    /// The canonical position string.
    pub fn fen(&self) -> String {
        let board = write_board(K::WIDTH, K::HEIGHT, |i| self.board[i].map(|p| p.letter(Square(i as u8))));
        format!("{board} {}", self.turn.letter())
    }
}
