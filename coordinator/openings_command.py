"""`arbiter openings`: build an openings book."""

from __future__ import annotations

from pathlib import Path

import click

from coordinator.book_builder import format_book, generate_book
from coordinator.files import write_atomically
from coordinator.rules_commands import GAME


@click.command()
@click.argument("game", type=GAME, metavar="GAME")
@click.option("--count", type=click.IntRange(1, 1_000_000), default=1000, show_default=True)
@click.option("--plies", type=click.IntRange(0, 60), default=6, show_default=True, help="Random plies.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option(
    "--max-score", type=click.IntRange(0), default=80, show_default=True, help="Keep |score| <= CP."
)
@click.option(
    "--depth", type=click.IntRange(1, 12), default=4, show_default=True, help="Scoring search depth."
)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), required=True, metavar="FILE")
def openings(game: str, count: int, plies: int, seed: int, max_score: int, depth: int, output: str) -> None:
    """Write COUNT openings: PLIES random plies from the start, scored within +-MAX_SCORE."""
    game = game.lower()
    with click.progressbar(length=count, label="openings", file=click.get_text_stream("stderr")) as bar:
        book = generate_book(game, count, plies, seed, max_score, depth, lambda n, _: bar.update(1))
    header = (
        f"arbiter openings {game} --count {count} --plies {plies} --seed {seed}"
        f" --max-score {max_score} --depth {depth}"
    )
    target = Path(output)
    write_atomically(target, format_book(game, book, header))
    click.echo(f"wrote {len(book)} openings to {target}")
