"""Boards drawn as inline SVG, for the game pages: Congo's river and castles, Congress Chess's two
wings, the pieces as letters in discs (uppercase white, lowercase black, as in position strings).

One SVG holds a whole game: the board once, then one layer per position (its pieces and the last
move's squares marked), all hidden but one; the page's script shows another layer at each step.
Colours and fonts come from the page's style sheet (:data:`BOARD_CSS`), so each piece is two
short elements. Pure formatting of position strings.
"""

from __future__ import annotations

from html import escape

from coordinator.board_view import GEOMETRY, board_cells
from coordinator.web.replay import Replay, move_squares

SQUARE = 44
MARGIN = 20
RADIUS = 17

#: What each letter of a position string is, per game (the legend under the board).
PIECES = {
    "congo": {
        "L": "lion",
        "Z": "zebra",
        "G": "giraffe",
        "E": "elephant",
        "C": "crocodile",
        "M": "monkey",
        "P": "pawn",
        "S": "superpawn",
    },
    "congress": {"K": "king", "P": "pawn", "H": "horse (politician)", "B": "bishop (politician)"},
}

BOARD_CSS = """
svg.board{max-width:100%;height:auto;font-family:system-ui,sans-serif;user-select:none}
svg.board .sq{fill:#f3ead7}svg.board .sq.dark{fill:#e2d3b3}svg.board .river{fill:#a9d2ec}
svg.board .castle{fill:#efc98a}svg.board .castle.dark{fill:#e3b874}
svg.board .wing{stroke:#333;stroke-width:3}svg.board .edge{fill:none;stroke:#333;stroke-width:1.5}
svg.board .coord{font-size:11px;fill:#555;text-anchor:middle;dominant-baseline:central}
svg.board .mark{fill:#f7e04b;opacity:.6}
svg.board circle.w{fill:#fff;stroke:#222;stroke-width:1.5}svg.board circle.b{fill:#2b2b2b;stroke:#000}
svg.board text.w,svg.board text.b{font-size:17px;font-weight:700;text-anchor:middle;
dominant-baseline:central}svg.board text.w{fill:#111}svg.board text.b{fill:#fff}
"""


def _xy(game: str, file: int, rank: int) -> tuple[int, int]:
    """Top-left corner of a square (rank 0 at the bottom)."""
    _, height = GEOMETRY[game]
    return MARGIN + file * SQUARE, MARGIN + (height - 1 - rank) * SQUARE


def _square_class(game: str, file: int, rank: int) -> str:
    """The class of a square's background: river, castle or plain, light or dark."""
    dark = " dark" if (file + rank) % 2 == 0 else ""
    if game == "congo":
        if rank == 3:
            return "river"
        if 2 <= file <= 4:
            return f"castle{dark}"
    return f"sq{dark}"


def _background(game: str) -> str:
    """The squares, the game's areas and the coordinates."""
    width, height = GEOMETRY[game]
    parts = []
    for rank in range(height):
        for file in range(width):
            x, y = _xy(game, file, rank)
            cls = _square_class(game, file, rank)
            parts.append(f'<rect class="{cls}" x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}"/>')
    if game == "congress":  # the wings meet between files d and e
        x = MARGIN + 4 * SQUARE
        parts.append(f'<line class="wing" x1="{x}" y1="{MARGIN}" x2="{x}" y2="{MARGIN + height * SQUARE}"/>')
    parts.append(
        f'<rect class="edge" x="{MARGIN}" y="{MARGIN}" width="{width * SQUARE}" height="{height * SQUARE}"/>'
    )
    bottom = MARGIN + height * SQUARE + MARGIN // 2
    for file in range(width):
        x = MARGIN + file * SQUARE + SQUARE // 2
        parts.append(f'<text class="coord" x="{x}" y="{bottom}">{chr(97 + file)}</text>')
    for rank in range(height):
        _, y = _xy(game, 0, rank)
        parts.append(f'<text class="coord" x="{MARGIN // 2}" y="{y + SQUARE // 2}">{rank + 1}</text>')
    return "".join(parts)


def _square_index(square: str) -> tuple[int, int]:
    """(file, rank) of a square such as ``d3``."""
    return ord(square[0]) - 97, int(square[1:]) - 1


def _layer(game: str, position: str, move: str | None, ply: int, shown: bool) -> str:
    """One position: the last move's squares marked, then the pieces."""
    parts = []
    for square in move_squares(move or ""):
        file, rank = _square_index(square)
        x, y = _xy(game, file, rank)
        parts.append(f'<rect class="mark" x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}"/>')
    for rank, row in enumerate(board_cells(game, position)):
        for file, piece in enumerate(row):
            if piece == ".":
                continue
            x, y = _xy(game, file, rank)
            cx, cy = x + SQUARE // 2, y + SQUARE // 2
            side = "w" if piece.isupper() else "b"
            parts.append(
                f'<circle class="{side}" cx="{cx}" cy="{cy}" r="{RADIUS}"/>'
                f'<text class="{side}" x="{cx}" y="{cy + 1}">{escape(piece.upper())}</text>'
            )
    display = "inline" if shown else "none"
    return (
        f'<g class="ply" data-ply="{ply}" data-fen="{escape(position)}" display="{display}">'
        f"{''.join(parts)}</g>"
    )


def game_svg(replay: Replay, shown: int = 0) -> str:
    """The board of a replayed game with one layer per position; layer ``shown`` is visible."""
    width, height = GEOMETRY[replay.game]
    w, h = width * SQUARE + 2 * MARGIN, height * SQUARE + 2 * MARGIN
    layers = "".join(
        _layer(replay.game, position, replay.moves[ply - 1] if ply else None, ply, ply == shown)
        for ply, position in enumerate(replay.positions)
    )
    label = f"{replay.game} board"
    return (
        f'<svg class="board" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" '
        f'height="{h}" role="img" aria-label="{escape(label)}">{_background(replay.game)}{layers}</svg>'
    )


def legend(game: str) -> str:
    """What the letters and coloured areas of the board mean."""
    pieces = ", ".join(f"{letter} {name}" for letter, name in PIECES[game].items())
    areas = (
        "blue: the river (rank 4); orange: the castles"
        if game == "congo"
        else "the thick line parts the left wing (a-d: politicians move as horses) from the right "
        "wing (e-h: as bishops)"
    )
    return f"{pieces}; white pieces in white discs, black in black. {areas}."
