"""`arbiter openings`: build an openings book."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from coordinator.cli.options import game_argument
from coordinator.files import write_atomically
from coordinator.openings.builder import format_book, generate_book


@click.command()
@game_argument()
@click.option(
    "--count", type=click.IntRange(1, 1_000_000), default=1000, show_default=True, help="Openings to write."
)
@click.option("--plies", type=click.IntRange(0, 60), default=6, show_default=True, help="Random plies.")
@click.option(
    "--seed", type=int, default=1, show_default=True, help="Seed of the random plies (1: the shipped books)."
)
@click.option(
    "--max-score", type=click.IntRange(0), default=80, show_default=True, help="Keep |score| <= CP."
)
@click.option(
    "--depth", type=click.IntRange(1, 12), default=4, show_default=True, help="Scoring search depth."
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    required=True,
    metavar="FILE",
    help="Book file to write.",
)
def openings(game: str, count: int, plies: int, seed: int, max_score: int, depth: int, output: str) -> None:
    """Write COUNT openings: PLIES random plies from the start, scored within +-MAX_SCORE."""
    with click.progressbar(length=count, label="openings", file=sys.stderr) as bar:

        def tick(_done: int, _total: int) -> None:
            bar.update(1)

        book = generate_book(game, count, plies, seed, max_score, depth, tick)
    header = (
        f"arbiter openings {game} --count {count} --plies {plies} --seed {seed}"
        f" --max-score {max_score} --depth {depth}"
    )
    target = Path(output)
    write_atomically(target, format_book(game, book, header))
    click.echo(f"wrote {len(book)} openings to {target}")
