"""``arbiter engine``: engine programs, checked before they are run (``arbiter engine check``)."""

from __future__ import annotations

import json
import sys

import click

import engine
from coordinator.sides.check import CHECK_NODES, check_engine_file
from wire.secrecy import forget_keys

#: The exit status of an engine that fails a check (usage errors exit with 2).
FAILED_EXIT = 1


@click.group("engine")
def engine_group() -> None:
    """Engine programs that speak the protocol (docs/protocol.md)."""


@engine_group.command()
@click.argument("file", metavar="FILE")
@click.option(
    "--game",
    type=click.Choice(engine.GAMES, case_sensitive=False),
    help="Check this game only (default: every game its UCI_Variant offers).",
)
@click.option(
    "--nodes",
    type=click.IntRange(1, 10_000_000),
    default=CHECK_NODES,
    show_default=True,
    help="Nodes per probe search.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(0.1, 600),
    default=10.0,
    show_default=True,
    help="Seconds to wait for uciok, readyok and each fixed-nodes search.",
)
@click.option("--json", "as_json", is_flag=True, help="The findings as one JSON object.")
def check(file: str, game: str | None, nodes: int, timeout: float, as_json: bool) -> None:
    """Start the program of engine file FILE as a worker would: handshake, list its options, check
    the file's option values, play two positions twice at fixed nodes (deterministic?) and under
    movetime then the reported nodes (replayable?), and run its bench. Exit status 0 when it is
    usable, 1 when it fails a check, 2 when FILE is not a usable engine file."""
    forget_keys()  # the check needs no key: the programs it runs start from a process without one
    report = check_engine_file(file, game.lower() if game else None, nodes, timeout)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        click.echo("\n".join(report.lines()))
    if not report.usable:
        sys.exit(FAILED_EXIT)
