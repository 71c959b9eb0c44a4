"""Pure-Python rules oracle for Congress Chess, from shared/rules/congress.md alone.

Plain and slow on purpose: a flat list board, one function per piece, no tricks.

Board: a tuple of 48 one-character strings, index ``rank * 8 + file`` with rank 0 =
rank "1" (White's home) and file 0 = file "a"; ``"."`` is an empty square. A
politician is stored as ``"H"``/``"h"`` whatever its file; ``fen`` prints the letter
its file gives it (``H`` on a-d, ``B`` on e-h).

Readings of places where the rules page is silent:
- The position string must have exactly one run digit per run of empty squares,
  exactly 6 ranks of exactly 8 squares and one space before ``w``/``b``; surrounding
  whitespace is ignored. Piece counts are not checked (any number of kings, pawns,
  politicians is accepted, pawns may stand on any rank), except that a position in
  which *both* sides have no king is rejected: it cannot arise and has no winner.
- A king's direction depends only on the wing it stands on (left wing -> toward
  file a, right wing -> toward file h), never on where the other king is.
- Move strings: from-square + to-square, upper or lower case; no '-' or 'x' forms.
"""

from __future__ import annotations

from dataclasses import dataclass

FILES = "abcdefgh"
NFILES = 8
NRANKS = 6
EMPTY = "."
START = "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w"


@dataclass(frozen=True)
class State:
    """A Congress position: board squares and the side to move ("w" or "b")."""

    board: tuple[str, ...]
    turn: str


@dataclass(frozen=True)
class Move:
    """A generated move: start and destination squares plus labels."""

    origin: int
    target: int
    tags: frozenset[str]

    @property
    def text(self) -> str:
        """Compact notation: from-square + to-square."""
        return square_name(self.origin) + square_name(self.target)


# ---------------------------------------------------------------- helpers


def sq(file: int, rank: int) -> int:
    """Index of (file, rank), both 0-based."""
    return rank * NFILES + file


def file_of(index: int) -> int:
    """File (0-based) of a square index."""
    return index % NFILES


def rank_of(index: int) -> int:
    """Rank (0-based) of a square index."""
    return index // NFILES


def on_board(file: int, rank: int) -> bool:
    """True when (file, rank) is on the 8x6 board."""
    return 0 <= file < NFILES and 0 <= rank < NRANKS


def square_name(index: int) -> str:
    """Algebraic name of a square index, e.g. 0 -> "a1"."""
    return FILES[file_of(index)] + str(rank_of(index) + 1)


def parse_square(text: str) -> int:
    """Square index of an algebraic name; ValueError if malformed."""
    if len(text) != 2 or text[0] not in FILES or text[1] not in "123456":
        raise ValueError(f"bad square {text!r}")
    return sq(FILES.index(text[0]), int(text[1]) - 1)


def colour_of(piece: str) -> str:
    """ "w" for an uppercase piece, "b" for lowercase."""
    return "w" if piece.isupper() else "b"


def other(colour: str) -> str:
    """The opposite side."""
    return "b" if colour == "w" else "w"


def forward(colour: str) -> int:
    """Rank direction toward the opponent."""
    return 1 if colour == "w" else -1


def is_enemy(piece: str, colour: str) -> bool:
    """True when `piece` is a piece of the side opposing `colour`."""
    return piece != EMPTY and colour_of(piece) != colour


def left_wing(file: int) -> bool:
    """Files a-d are the left wing, e-h the right wing."""
    return file < 4


def is_senior(rank: int, colour: str) -> bool:
    """Senior on the three ranks away from home (White 4-6, Black 1-3)."""
    return rank >= 3 if colour == "w" else rank <= 2


def king_count(board: tuple[str, ...] | list[str], colour: str) -> int:
    """How many kings `colour` still has."""
    king = "K" if colour == "w" else "k"
    return sum(1 for piece in board if piece == king)


# ---------------------------------------------------------------- notation


def parse(text: str) -> State:
    """Parse a position string; ValueError on anything malformed."""
    fields = text.strip().split(" ")
    if len(fields) != 2:
        raise ValueError("position needs a board and a side to move separated by one space")
    placement, side = fields
    if side not in ("w", "b"):
        raise ValueError(f"side to move must be 'w' or 'b', not {side!r}")
    rows = placement.split("/")
    if len(rows) != NRANKS:
        raise ValueError(f"expected {NRANKS} ranks, got {len(rows)}")
    board = [EMPTY] * (NFILES * NRANKS)
    for row_number, row in enumerate(rows):
        rank = NRANKS - 1 - row_number
        file = 0
        previous_digit = False
        for char in row:
            if char.isdigit():
                if previous_digit:
                    raise ValueError(f"two digits in a row in rank {rank + 1}")
                run = int(char)
                if run < 1:
                    raise ValueError("a run of empty squares must be at least 1")
                file += run
                previous_digit = True
            elif char in "KPHBkphb":
                if file >= NFILES:
                    raise ValueError(f"rank {rank + 1} is too long")
                piece = {"B": "H", "b": "h"}.get(char, char)
                board[sq(file, rank)] = piece
                file += 1
                previous_digit = False
            else:
                raise ValueError(f"unknown character {char!r}")
            if file > NFILES:
                raise ValueError(f"rank {rank + 1} is too long")
        if file != NFILES:
            raise ValueError(f"rank {rank + 1} has {file} squares, expected {NFILES}")
    if king_count(board, "w") == 0 and king_count(board, "b") == 0:
        raise ValueError("neither side has a king")
    return State(tuple(board), side)


def fen(state: State) -> str:
    """Canonical position string (politicians: H on files a-d, B on e-h)."""
    rows = []
    for rank in range(NRANKS - 1, -1, -1):
        row = ""
        run = 0
        for file in range(NFILES):
            piece = state.board[sq(file, rank)]
            if piece == EMPTY:
                run += 1
                continue
            if run:
                row += str(run)
                run = 0
            if piece.upper() == "H" and not left_wing(file):
                piece = "B" if piece.isupper() else "b"
            row += piece
        if run:
            row += str(run)
        rows.append(row)
    return "/".join(rows) + " " + state.turn


def mirror(text: str) -> str:
    """Mirror a position: reverse rank order, swap case, swap side to move."""
    state = parse(text)
    board = [EMPTY] * (NFILES * NRANKS)
    for index, piece in enumerate(state.board):
        if piece != EMPTY:
            board[sq(file_of(index), NRANKS - 1 - rank_of(index))] = piece.swapcase()
    return fen(State(tuple(board), other(state.turn)))


# ---------------------------------------------------------------- move generation


def _move(board: tuple[str, ...], origin: int, target: int, colour: str, tags: set[str]) -> Move:
    tags = set(tags)
    if is_enemy(board[target], colour):
        tags.add("capture")
    return Move(origin, target, frozenset(tags))


def _pawn_moves(state: State, origin: int, colour: str) -> list[Move]:
    board = state.board
    f, r = file_of(origin), rank_of(origin)
    fwd = forward(colour)
    moves = []
    if on_board(f, r + fwd) and board[sq(f, r + fwd)] == EMPTY:
        moves.append(_move(board, origin, sq(f, r + fwd), colour, set()))
    for df in (-1, 1):
        nf, nr = f + df, r + fwd
        if on_board(nf, nr) and is_enemy(board[sq(nf, nr)], colour):
            moves.append(_move(board, origin, sq(nf, nr), colour, set()))
    return moves


def _king_moves(state: State, origin: int, colour: str) -> list[Move]:
    board = state.board
    f, r = file_of(origin), rank_of(origin)
    nf = f - 1 if left_wing(f) else f + 1
    if not on_board(nf, r):
        return []
    target = sq(nf, r)
    if board[target] != EMPTY and not is_enemy(board[target], colour):
        return []
    return [_move(board, origin, target, colour, {"king_move"})]


def _politician_tags(origin: int, target: int) -> set[str]:
    if left_wing(file_of(origin)) != left_wing(file_of(target)):
        return {"wing_change"}
    return set()


def _horse_moves(state: State, origin: int, colour: str) -> list[Move]:
    board = state.board
    f, r = file_of(origin), rank_of(origin)
    fwd = forward(colour)
    senior = is_senior(r, colour)
    moves = []
    for df, dr in [(1, 2), (-1, 2), (2, 1), (-2, 1)]:
        for backward in (False, True):
            if backward and not senior:
                continue
            nf, nr = f + df, r + (-dr if backward else dr) * fwd
            if not on_board(nf, nr):
                continue
            target = sq(nf, nr)
            piece = board[target]
            tags = _politician_tags(origin, target)
            if backward:
                if is_enemy(piece, colour):  # backward knight moves only capture
                    moves.append(_move(board, origin, target, colour, tags | {"senior_capture"}))
            elif piece == EMPTY or is_enemy(piece, colour):
                moves.append(_move(board, origin, target, colour, tags))
    return moves


def _bishop_moves(state: State, origin: int, colour: str) -> list[Move]:
    board = state.board
    f, r = file_of(origin), rank_of(origin)
    fwd = forward(colour)
    moves = []
    for df in (-1, 1):  # forward diagonals: move or capture
        nf, nr = f + df, r + fwd
        while on_board(nf, nr):
            target = sq(nf, nr)
            piece = board[target]
            if piece == EMPTY:
                moves.append(_move(board, origin, target, colour, _politician_tags(origin, target)))
            else:
                if is_enemy(piece, colour):
                    moves.append(
                        _move(
                            board,
                            origin,
                            target,
                            colour,
                            _politician_tags(origin, target),
                        )
                    )
                break
            nf, nr = nf + df, nr + fwd
    if is_senior(r, colour):
        for df in (-1, 1):  # backward diagonals: capture only, first piece on the ray
            nf, nr = f + df, r - fwd
            while on_board(nf, nr):
                target = sq(nf, nr)
                piece = board[target]
                if piece != EMPTY:
                    if is_enemy(piece, colour):
                        tags = _politician_tags(origin, target) | {"senior_capture"}
                        moves.append(_move(board, origin, target, colour, tags))
                    break
                nf, nr = nf + df, nr - fwd
    return moves


def game_over(state: State) -> bool:
    """True when a side has lost both kings."""
    return king_count(state.board, "w") == 0 or king_count(state.board, "b") == 0


def generate(state: State) -> list[Move]:
    """Every legal move of the side to move (empty once a side has no kings)."""
    if game_over(state):
        return []
    colour = state.turn
    moves: list[Move] = []
    for origin, piece in enumerate(state.board):
        if piece == EMPTY or colour_of(piece) != colour:
            continue
        kind = piece.upper()
        if kind == "P":
            moves += _pawn_moves(state, origin, colour)
        elif kind == "K":
            moves += _king_moves(state, origin, colour)
        elif left_wing(file_of(origin)):  # politician acting as a horse
            moves += _horse_moves(state, origin, colour)
        else:  # politician acting as a bishop
            moves += _bishop_moves(state, origin, colour)
    texts = [m.text for m in moves]
    if len(set(texts)) != len(texts):
        raise AssertionError(f"duplicate move in generation: {sorted(texts)}")
    return moves


def legal_moves(state: State) -> list[str]:
    """Every legal move in compact notation."""
    return [m.text for m in generate(state)]


# ---------------------------------------------------------------- making moves


def _apply(state: State, move: Move) -> tuple[State, set[str]]:
    colour = state.turn
    events = set(move.tags)
    board = list(state.board)
    captured = board[move.target]
    board[move.target] = board[move.origin]
    board[move.origin] = EMPTY
    if captured.upper() == "K":
        events.add("king_captured")
        if king_count(board, other(colour)) == 0:
            events.add("kings_captured")
    return State(tuple(board), other(colour)), events


def _find(state: State, move: str) -> Move:
    wanted = move.strip().lower()
    for candidate in generate(state):
        if candidate.text == wanted:
            return candidate
    raise ValueError(f"illegal move {move!r} in {fen(state)}")


def play(state: State, move: str) -> State:
    """New state after `move`; ValueError if it is not legal."""
    return _apply(state, _find(state, move))[0]


def move_events(state: State, move: str) -> set[str]:
    """Labels of what `move` does (capture, wing_change, senior_capture, ...)."""
    return _apply(state, _find(state, move))[1]


def outcome(state: State) -> tuple[str, str] | None:
    """(winner, reason) once the game is over, else None."""
    if king_count(state.board, "w") == 0:
        return ("black", "kings_captured")
    if king_count(state.board, "b") == 0:
        return ("white", "kings_captured")
    if not generate(state):
        return ("black" if state.turn == "w" else "white", "no_legal_move")
    return None


def children(state: State) -> list[tuple[str, State, set[str]]]:
    """(move, new state, labels) for every legal move, in generation order."""
    result = []
    for move in generate(state):
        new_state, events = _apply(state, move)
        result.append((move.text, new_state, events))
    return result


def perft(state: State, depth: int) -> int:
    """Leaf nodes of the legal move tree at `depth` (terminal nodes: no children)."""
    if depth == 0:
        return 1
    moves = generate(state)
    if depth == 1:
        return len(moves)
    return sum(perft(_apply(state, m)[0], depth - 1) for m in moves)
