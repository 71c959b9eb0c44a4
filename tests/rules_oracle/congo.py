"""Pure-Python rules oracle for Congo, written from shared/rules/congo.md alone.

Plain and slow on purpose: a flat list board, one function per piece, no tricks.
It exists to cross-check the Rust engine, so readability beats speed everywhere.

Board: a tuple of 49 one-character strings, index ``rank * 7 + file`` with rank 0 =
rank "1" (White's home) and file 0 = file "a"; ``"."`` is an empty square.

Readings of places where the rules page is silent (see also the module tests):
- The position string must have exactly one run digit per run of empty squares
  (``"34"`` and ``"0"`` are rejected), exactly 7 ranks of exactly 7 squares, and
  exactly one space before ``w``/``b``; surrounding whitespace is ignored.
- Because a side without exactly one lion is an invalid position string, a
  position after a lion capture can be printed by ``fen`` but not parsed back.
- A superpawn's two-square diagonal retreat goes to (file +-2, rank -2) and needs
  the diagonal square in between empty, like the straight one.
- Move strings: lower or upper case, with or without ``-`` and ``x``; the move
  is then matched against the generated moves' compact form.
"""

from __future__ import annotations

from dataclasses import dataclass

SIZE = 7
FILES = "abcdefg"
RIVER = 3  # rank index of rank 4
EMPTY = "."
START = "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w"
PIECE_LETTERS = "LZGECMPS"

STEPS8 = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
ORTHO = [(1, 0), (-1, 0), (0, 1), (0, -1)]


@dataclass(frozen=True)
class State:
    """A Congo position: board squares and the side to move ("w" or "b")."""

    board: tuple[str, ...]
    turn: str


@dataclass(frozen=True)
class Move:
    """A generated move: start, landing squares, captured squares, labels."""

    origin: int
    landings: tuple[int, ...]
    captured: tuple[int, ...]
    tags: frozenset[str]

    @property
    def text(self) -> str:
        """Compact notation: start square followed by every landing square."""
        return square_name(self.origin) + "".join(square_name(s) for s in self.landings)


# ---------------------------------------------------------------- helpers


def sq(file: int, rank: int) -> int:
    """Index of (file, rank), both 0-based."""
    return rank * SIZE + file


def file_of(index: int) -> int:
    """File (0-based) of a square index."""
    return index % SIZE


def rank_of(index: int) -> int:
    """Rank (0-based) of a square index."""
    return index // SIZE


def on_board(file: int, rank: int) -> bool:
    """True when (file, rank) is on the 7x7 board."""
    return 0 <= file < SIZE and 0 <= rank < SIZE


def square_name(index: int) -> str:
    """Algebraic name of a square index, e.g. 0 -> "a1"."""
    return FILES[file_of(index)] + str(rank_of(index) + 1)


def parse_square(text: str) -> int:
    """Square index of an algebraic name; ValueError if malformed."""
    if len(text) != 2 or text[0] not in FILES or text[1] not in "1234567":
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


def in_castle(file: int, rank: int, colour: str) -> bool:
    """True when (file, rank) is inside the castle of `colour`."""
    if not 2 <= file <= 4:
        return False
    return 0 <= rank <= 2 if colour == "w" else 4 <= rank <= 6


def is_enemy(piece: str, colour: str) -> bool:
    """True when `piece` is a piece of the side opposing `colour`."""
    return piece != EMPTY and colour_of(piece) != colour


def find_lion(board: tuple[str, ...] | list[str], colour: str) -> int | None:
    """Square of the lion of `colour`, or None if it has been captured."""
    lion = "L" if colour == "w" else "l"
    for index, piece in enumerate(board):
        if piece == lion:
            return index
    return None


# ---------------------------------------------------------------- notation


def parse(text: str) -> State:
    """Parse a position string; ValueError on anything malformed or invalid."""
    fields = text.strip().split(" ")
    if len(fields) != 2:
        raise ValueError("position needs a board and a side to move separated by one space")
    placement, side = fields
    if side not in ("w", "b"):
        raise ValueError(f"side to move must be 'w' or 'b', not {side!r}")
    rows = placement.split("/")
    if len(rows) != SIZE:
        raise ValueError(f"expected {SIZE} ranks, got {len(rows)}")
    board = [EMPTY] * (SIZE * SIZE)
    for row_number, row in enumerate(rows):
        rank = SIZE - 1 - row_number
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
            elif char.upper() in PIECE_LETTERS:
                if file >= SIZE:
                    raise ValueError(f"rank {rank + 1} is too long")
                board[sq(file, rank)] = char
                file += 1
                previous_digit = False
            else:
                raise ValueError(f"unknown character {char!r}")
            if file > SIZE:
                raise ValueError(f"rank {rank + 1} is too long")
        if file != SIZE:
            raise ValueError(f"rank {rank + 1} has {file} squares, expected {SIZE}")
    for colour in ("w", "b"):
        lion = "L" if colour == "w" else "l"
        lions = [i for i, p in enumerate(board) if p == lion]
        if len(lions) != 1:
            raise ValueError(f"{colour} must have exactly one lion, has {len(lions)}")
        if not in_castle(file_of(lions[0]), rank_of(lions[0]), colour):
            raise ValueError(f"{colour} lion outside its castle")
    for index, piece in enumerate(board):
        if piece == "P" and rank_of(index) == SIZE - 1:
            raise ValueError("white pawn on its last rank")
        if piece == "p" and rank_of(index) == 0:
            raise ValueError("black pawn on its last rank")
    return State(tuple(board), side)


def fen(state: State) -> str:
    """Canonical position string of a state."""
    rows = []
    for rank in range(SIZE - 1, -1, -1):
        row = ""
        run = 0
        for file in range(SIZE):
            piece = state.board[sq(file, rank)]
            if piece == EMPTY:
                run += 1
                continue
            if run:
                row += str(run)
                run = 0
            row += piece
        if run:
            row += str(run)
        rows.append(row)
    return "/".join(rows) + " " + state.turn


def mirror(text: str) -> str:
    """Mirror a position: reverse rank order, swap case, swap side to move."""
    state = parse(text)
    board = [EMPTY] * (SIZE * SIZE)
    for index, piece in enumerate(state.board):
        if piece != EMPTY:
            board[sq(file_of(index), SIZE - 1 - rank_of(index))] = piece.swapcase()
    return fen(State(tuple(board), other(state.turn)))


def normalize_move(move: str) -> str:
    """Lower-case a move and drop the Mindsports '-' and 'x' decorations."""
    return move.strip().lower().replace("-", "").replace("x", "")


# ---------------------------------------------------------------- move generation


def _simple(board: tuple[str, ...], origin: int, target: int, colour: str, tags: set[str]) -> Move:
    """A single-landing move; marks a capture when the target holds an enemy."""
    tags = set(tags)
    captured: tuple[int, ...] = ()
    if is_enemy(board[target], colour):
        captured = (target,)
        tags.add("capture")
    return Move(origin, (target,), captured, frozenset(tags))


def _lion_moves(state: State, origin: int, colour: str) -> list[Move]:
    board = state.board
    f, r = file_of(origin), rank_of(origin)
    moves = []
    for df, dr in STEPS8:
        nf, nr = f + df, r + dr
        if not in_castle(nf, nr, colour):
            continue
        target = sq(nf, nr)
        if board[target] == EMPTY or is_enemy(board[target], colour):
            moves.append(_simple(board, origin, target, colour, set()))
    # Facing lions: same file or same diagonal, every square in between empty.
    enemy = find_lion(board, other(colour))
    if enemy is not None:
        ef, er = file_of(enemy), rank_of(enemy)
        df, dr = ef - f, er - r
        if df == 0 or abs(df) == abs(dr):
            distance = max(abs(df), abs(dr))
            step_f = (df > 0) - (df < 0)
            step_r = (dr > 0) - (dr < 0)
            clear = all(board[sq(f + step_f * k, r + step_r * k)] == EMPTY for k in range(1, distance))
            if clear and distance > 1:
                moves.append(_simple(board, origin, enemy, colour, {"facing_lions"}))
    return moves


def _leaper_moves(state: State, origin: int, colour: str, offsets: list[tuple[int, int]]) -> list[Move]:
    board = state.board
    f, r = file_of(origin), rank_of(origin)
    moves = []
    for df, dr in offsets:
        nf, nr = f + df, r + dr
        if not on_board(nf, nr):
            continue
        target = sq(nf, nr)
        if board[target] == EMPTY or is_enemy(board[target], colour):
            moves.append(_simple(board, origin, target, colour, set()))
    return moves


def _giraffe_moves(state: State, origin: int, colour: str) -> list[Move]:
    board = state.board
    f, r = file_of(origin), rank_of(origin)
    moves = _leaper_moves(state, origin, colour, [(2 * df, 2 * dr) for df, dr in STEPS8])
    for df, dr in STEPS8:  # non-capturing step
        nf, nr = f + df, r + dr
        if on_board(nf, nr) and board[sq(nf, nr)] == EMPTY:
            moves.append(Move(origin, (sq(nf, nr),), (), frozenset()))
    return moves


def _crocodile_moves(state: State, origin: int, colour: str) -> list[Move]:
    board = state.board
    f, r = file_of(origin), rank_of(origin)
    by_target: dict[int, Move] = {}
    for move in _leaper_moves(state, origin, colour, STEPS8):
        by_target[move.landings[0]] = move
    # On land: along its file, toward the river only. In the river: along the river.
    rays = [(0, 1 if r < RIVER else -1)] if r != RIVER else [(1, 0), (-1, 0)]
    for df, dr in rays:
        nf, nr = f + df, r + dr
        while on_board(nf, nr):
            target = sq(nf, nr)
            piece = board[target]
            if piece != EMPTY and not is_enemy(piece, colour):
                break
            if target not in by_target:  # a one-square slide is the step, listed once
                tags = {"crocodile_slide"}
                by_target[target] = _simple(board, origin, target, colour, tags)
            if piece != EMPTY:
                break
            if r != RIVER and nr == RIVER:
                break  # never past the river
            nf, nr = nf + df, nr + dr
    return list(by_target.values())


def _monkey_moves(state: State, origin: int, colour: str) -> list[Move]:
    board = list(state.board)
    board[origin] = EMPTY  # the monkey has left its start square during a chain
    f, r = file_of(origin), rank_of(origin)
    moves = []
    for df, dr in STEPS8:  # non-capturing step
        nf, nr = f + df, r + dr
        if on_board(nf, nr) and board[sq(nf, nr)] == EMPTY:
            moves.append(Move(origin, (sq(nf, nr),), (), frozenset()))
    enemy_lion = "l" if colour == "w" else "L"

    def extend(position: int, landings: list[int], jumped: list[int]) -> None:
        pf, pr = file_of(position), rank_of(position)
        for df, dr in STEPS8:
            mf, mr = pf + df, pr + dr
            lf, lr = pf + 2 * df, pr + 2 * dr
            if not on_board(lf, lr):
                continue
            middle, landing = sq(mf, mr), sq(lf, lr)
            if not is_enemy(board[middle], colour) or middle in jumped:
                continue
            if board[landing] != EMPTY:  # jumped pieces still stand until the end
                continue
            new_landings = [*landings, landing]
            new_jumped = [*jumped, middle]
            tags = {"capture", "monkey_jump"}
            if len(new_jumped) >= 2:
                tags.add("monkey_chain")
            moves.append(Move(origin, tuple(new_landings), tuple(new_jumped), frozenset(tags)))
            if board[middle] == enemy_lion:
                continue  # jumping the lion ends the chain and the game
            extend(landing, new_landings, new_jumped)

    extend(origin, [], [])
    return moves


def _pawn_moves(state: State, origin: int, colour: str) -> list[Move]:
    board = state.board
    f, r = file_of(origin), rank_of(origin)
    fwd = forward(colour)
    moves = []
    for df in (-1, 0, 1):
        nf, nr = f + df, r + fwd
        if not on_board(nf, nr):
            continue
        target = sq(nf, nr)
        if board[target] == EMPTY or is_enemy(board[target], colour):
            moves.append(_simple(board, origin, target, colour, set()))
    across = r > RIVER if colour == "w" else r < RIVER
    if across:
        for distance in (1, 2):
            nr = r - fwd * distance
            if not on_board(f, nr) or board[sq(f, nr)] != EMPTY:
                break
            moves.append(Move(origin, (sq(f, nr),), (), frozenset({"pawn_retreat"})))
    return moves


def _superpawn_moves(state: State, origin: int, colour: str) -> list[Move]:
    board = state.board
    f, r = file_of(origin), rank_of(origin)
    fwd = forward(colour)
    moves = []
    for df, dr in [(-1, fwd), (0, fwd), (1, fwd), (-1, 0), (1, 0)]:
        nf, nr = f + df, r + dr
        if not on_board(nf, nr):
            continue
        target = sq(nf, nr)
        if board[target] == EMPTY or is_enemy(board[target], colour):
            moves.append(_simple(board, origin, target, colour, set()))
    for df in (-1, 0, 1):  # retreat straight or diagonally back, one or two squares
        for distance in (1, 2):
            nf, nr = f + df * distance, r - fwd * distance
            if not on_board(nf, nr) or board[sq(nf, nr)] != EMPTY:
                break
            moves.append(Move(origin, (sq(nf, nr),), (), frozenset()))
    return [Move(m.origin, m.landings, m.captured, m.tags | {"superpawn_move"}) for m in moves]


def game_over(state: State) -> bool:
    """True when a lion has been captured."""
    return find_lion(state.board, "w") is None or find_lion(state.board, "b") is None


def generate(state: State) -> list[Move]:
    """Every legal move of the side to move (empty once a lion is captured)."""
    if game_over(state):
        return []
    colour = state.turn
    moves: list[Move] = []
    for origin, piece in enumerate(state.board):
        if piece == EMPTY or colour_of(piece) != colour:
            continue
        kind = piece.upper()
        if kind == "L":
            moves += _lion_moves(state, origin, colour)
        elif kind == "Z":
            moves += _leaper_moves(state, origin, colour, KNIGHT)
        elif kind == "E":
            moves += _leaper_moves(state, origin, colour, ORTHO + [(2 * a, 2 * b) for a, b in ORTHO])
        elif kind == "G":
            moves += _giraffe_moves(state, origin, colour)
        elif kind == "C":
            moves += _crocodile_moves(state, origin, colour)
        elif kind == "M":
            moves += _monkey_moves(state, origin, colour)
        elif kind == "P":
            moves += _pawn_moves(state, origin, colour)
        elif kind == "S":
            moves += _superpawn_moves(state, origin, colour)
    texts = [m.text for m in moves]
    if len(set(texts)) != len(texts):
        raise AssertionError(f"duplicate move in generation: {sorted(texts)}")
    return moves


def legal_moves(state: State) -> list[str]:
    """Every legal move in compact notation."""
    return [m.text for m in generate(state)]


# ---------------------------------------------------------------- making moves


def _apply(state: State, move: Move) -> tuple[State, set[str]]:
    """Play a generated move; return the new state and the move's labels."""
    colour = state.turn
    events = set(move.tags)
    board = list(state.board)
    piece = board[move.origin]
    lion_taken = any(board[c].upper() == "L" for c in move.captured)
    board[move.origin] = EMPTY
    for captured in move.captured:
        board[captured] = EMPTY
    destination = move.landings[-1]
    last_rank = SIZE - 1 if colour == "w" else 0
    if piece.upper() == "P" and rank_of(destination) == last_rank:
        piece = "S" if colour == "w" else "s"
        events.add("promotion")
    board[destination] = piece
    if lion_taken:
        events.add("lion_captured")
    else:
        started_on_land = rank_of(move.origin) != RIVER
        for file in range(SIZE):
            index = sq(file, RIVER)
            standing = board[index]
            if standing == EMPTY or colour_of(standing) != colour or standing.upper() == "C":
                continue
            if index == destination and started_on_land:
                continue  # just entered the river: may stay one turn
            board[index] = EMPTY
            events.add("drowning")
    return State(tuple(board), other(colour)), events


def _find(state: State, move: str) -> Move:
    wanted = normalize_move(move)
    for candidate in generate(state):
        if candidate.text == wanted:
            return candidate
    raise ValueError(f"illegal move {move!r} in {fen(state)}")


def play(state: State, move: str) -> State:
    """New state after `move`; ValueError if it is not legal."""
    return _apply(state, _find(state, move))[0]


def move_events(state: State, move: str) -> set[str]:
    """Labels of what `move` does (capture, monkey_chain, drowning, ...)."""
    return _apply(state, _find(state, move))[1]


def outcome(state: State) -> tuple[str, str] | None:
    """(winner, reason) once the game is over, else None."""
    white_lion = find_lion(state.board, "w")
    black_lion = find_lion(state.board, "b")
    if white_lion is None and black_lion is None:
        raise ValueError("both lions are missing")
    if white_lion is None:
        return ("black", "lion_captured")
    if black_lion is None:
        return ("white", "lion_captured")
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
