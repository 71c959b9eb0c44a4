"""``arbiter games RUN``: export a run's counted games as PGN or JSON lines, streamed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from coordinator.cli.options import UTF8_TEXT, load_run, open_existing_store, run_argument, store_option
from coordinator.files import atomic_writer
from coordinator.reports.games import FORMATS, RESULT_CHOICES, GameFilter, export
from coordinator.reports.sprt.gather import REASONS


@click.command()
@run_argument()
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="pgn", show_default=True, help="Output format."
)
@click.option("--batch", type=click.IntRange(0, 2**62), help="Only the games of this batch (0-based).")
@click.option("--worker", type=UTF8_TEXT, metavar="NAME", help="Only the games this worker played.")
@click.option(
    "--result",
    type=click.Choice(RESULT_CHOICES),
    help="Only this result (1-0, 0-1, 1/2-1/2) or candidate outcome.",
)
@click.option("--reason", type=click.Choice(REASONS), help="Only games that ended this way.")
@click.option("--limit", type=click.IntRange(0, 2**62), help="At most this many games.")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False), metavar="FILE", help="File to write (default: stdout)."
)
@store_option
def games(
    run_id: int,
    fmt: str,
    batch: int | None,
    worker: str | None,
    result: str | None,
    reason: str | None,
    limit: int | None,
    output: str | None,
    store_url: str | None,
) -> None:
    """Export the counted games of RUN (a tuning run: those of its trials and SPRTs)."""
    store = open_existing_store(store_url)
    run = load_run(store, run_id)
    wanted = GameFilter(batch=batch, worker=worker, result=result, reason=reason, limit=limit)
    if output is None:
        try:
            export(store, run, fmt, sys.stdout, wanted)
            sys.stdout.flush()
        except BrokenPipeError:  # e.g. `arbiter games 1 | head`: the reader has all it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return
    target = Path(output)
    with atomic_writer(target) as out:
        count = export(store, run, fmt, out, wanted)
    click.echo(f"arbiter: {count} games written to {target}", err=True)
