"""Commands that work on positions and rules alone: perft, moves, show."""

from __future__ import annotations

import time

import click

import engine
from coordinator.board_view import render
from coordinator.cli.options import UTF8_TEXT, game_argument


def load_position(game: str, fen: str | None) -> engine.Position:
    """The start position, or the position string given with --fen (errors name the option)."""
    if fen is None:
        return engine.Position.start(game)
    try:
        return engine.Position.from_fen(game, fen)
    except engine.InvalidPositionError as e:
        raise click.BadParameter(str(e), param_hint="'--fen'") from None


fen_option = click.option(
    "--fen", type=UTF8_TEXT, metavar="TEXT", help="Position string (default: the start position)."
)


@click.command()
@game_argument()
@click.argument("depth", type=click.IntRange(0, 12), metavar="DEPTH")
@fen_option
@click.option("--divide", is_flag=True, help="Also print the node count under each first move.")
def perft(game: str, depth: int, fen: str | None, divide: bool) -> None:
    """Count the leaf nodes of the legal move tree to DEPTH."""
    pos = load_position(game, fen)
    start = time.perf_counter()
    if divide:
        split = pos.divide(depth)
        nodes = sum(n for _, n in split)
        for move, n in split:
            click.echo(f"{move} {n}")
    else:
        nodes = pos.perft(depth)
    seconds = time.perf_counter() - start
    click.echo(f"nodes {nodes}")
    click.echo(f"seconds {seconds:.3f}")
    click.echo(f"nodes/s {nodes / seconds if seconds > 0 else 0:.0f}")


@click.command()
@game_argument()
@fen_option
def moves(game: str, fen: str | None) -> None:
    """List the legal moves, one per line, in compact notation."""
    for move in load_position(game, fen).legal_moves():
        click.echo(move)


def play_moves(pos: engine.Position, moves: tuple[str, ...]) -> engine.Position:
    """Plays moves in order; a bad one is a usage error naming it and its ply."""
    for ply, move in enumerate(moves, start=1):
        try:
            pos = pos.play(move)
        except ValueError as e:
            raise click.BadParameter(f"ply {ply}: {e}", param_hint="MOVES") from None
    return pos


@click.command()
@game_argument()
@click.argument("moves", nargs=-1, type=UTF8_TEXT)
@fen_option
def show(game: str, moves: tuple[str, ...], fen: str | None) -> None:
    """Print the board after MOVES (default: none) from the start or --fen position."""
    pos = play_moves(load_position(game, fen), moves)
    click.echo(render(pos.game, pos.fen()))
    click.echo(f"position: {pos.fen()}")
    outcome = pos.outcome()
    if outcome is None:
        click.echo(f"{pos.turn} to move, {len(pos.legal_moves())} legal moves")
    else:
        click.echo(f"game over: {outcome.winner} wins ({outcome.reason.replace('_', ' ')})")
