//! Notation helpers shared by both games: squares, board fields, side to move, moves.

use crate::error::MoveError;
use crate::rules::{GameMove, Rules};
use crate::types::{Color, Square};

pub fn square_name(sq: Square, width: u8) -> String {
    let file = (b'a' + sq.0 % width) as char;
    let rank = sq.0 / width + 1;
    format!("{file}{rank}")
}

/// Parses a run of squares like `b1d3f5` (case-insensitive); `None` unless there are at least two
/// squares, all on the board.
pub fn parse_squares(text: &str, width: u8, height: u8) -> Option<Vec<Square>> {
    let bytes = text.trim().as_bytes();
    if bytes.len() < 4 || !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes
        .chunks(2)
        .map(|pair| {
            let f = pair[0].to_ascii_lowercase().checked_sub(b'a')?;
            let r = pair[1].checked_sub(b'1')?;
            // Lazily: `r * width` overflows for an off-board rank.
            (f < width && r < height).then(|| Square(r * width + f))
        })
        .collect()
}

/// The compact notation of a move: its start square, then each landing square (`d2d3`, `b1d3f5`).
pub fn move_text<M: GameMove>(m: &M, width: u8) -> String {
    let mut s = square_name(m.origin(), width);
    for sq in m.landings() {
        s.push_str(&square_name(sq, width));
    }
    s
}

/// The legal move of `pos` written as `squares` (its start square, then each landing square);
/// `None` means `text` was malformed, and the error says what was `expected`.
pub fn find_move<P: Rules>(
    pos: &P,
    text: &str,
    squares: Option<Vec<Square>>,
    expected: &str,
) -> Result<P::Move, MoveError> {
    let squares =
        squares.ok_or_else(|| MoveError::Invalid { input: text.to_string(), expected: expected.to_string() })?;
    pos.legal_moves()
        .into_iter()
        .find(|m| m.origin() == squares[0] && m.landings() == squares[1..])
        .ok_or_else(|| MoveError::Illegal { input: text.to_string(), position: pos.fen() })
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
