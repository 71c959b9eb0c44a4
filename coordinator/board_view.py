"""Text pictures of a position: river, castles and wings marked. Pure formatting of a position string."""

from __future__ import annotations

GEOMETRY = {"congo": (7, 7), "congress": (8, 6)}


def board_cells(game: str, fen: str) -> list[list[str]]:
    """Rows of one-character cells from rank 1 upward ('.' for empty) of a canonical position string."""
    width, _ = GEOMETRY[game]
    rows = []
    for rank_text in reversed(fen.split()[0].split("/")):
        row: list[str] = []
        for c in rank_text:
            row.extend("." * int(c) if c.isdigit() else c)
        rows.append(row[:width])
    return rows


def _congo_cell(file: int, rank: int, piece: str) -> str:
    if rank == 3:
        return " ~ " if piece == "." else f" {piece} "
    if 2 <= file <= 4 and (rank <= 2 or rank >= 4):
        return f"[{piece}]"
    return f" {piece} "


def render(game: str, fen: str) -> str:
    """A board a person can read, with a legend for the game's special areas."""
    width, height = GEOMETRY[game]
    cells = board_cells(game, fen)
    files = "".join(f" {chr(ord('a') + f)} " for f in range(width))
    lines = []
    if game == "congress":
        lines.append("    left wing: horse    right wing: bishop")
        files = files[: 3 * 4] + " " + files[3 * 4 :]
    lines.append("   " + files)
    for rank in reversed(range(height)):
        row = cells[rank]
        if game == "congo":
            body = "".join(_congo_cell(f, rank, row[f]) for f in range(width))
        else:
            body = (
                "".join(f" {row[f]} " for f in range(4))
                + "|"
                + "".join(f" {row[f]} " for f in range(4, width))
            )
        label = "  river" if game == "congo" and rank == 3 else ""
        lines.append(f"{rank + 1:>2} {body} {rank + 1}{label}")
    lines.append("   " + files)
    if game == "congo":
        lines.append("   [x] castle, ~ river (rank 4); uppercase white, lowercase black")
    else:
        lines.append("   H horse, B bishop (politician), K king, P pawn; uppercase white, lowercase black")
    return "\n".join(lines)
