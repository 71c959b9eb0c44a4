"""Commands that run the search: weights, search, play, bench."""

from __future__ import annotations

import json
from collections import Counter

import click

import engine
from coordinator.board_view import render
from coordinator.cli.options import DEPTH_RANGE, game_argument, limit_options, read_weights, search_limits
from coordinator.cli.rules import fen_option, load_position
from coordinator.defaults import PLAY_LIMITS, SEARCH_LIMITS


def format_score(score: int) -> str:
    """Centipawns, or `win in N` / `loss in N` plies for forced results."""
    if score > engine.MATE_BOUND:
        return f"win in {engine.MATE_SCORE - score}"
    if score < -engine.MATE_BOUND:
        return f"loss in {engine.MATE_SCORE + score}"
    return f"{score:+d}"


weights_path = click.Path(dir_okay=False, path_type=str)


def search_with(
    pos: engine.Position, weights: dict[str, int], limits: engine.Limits, hash_mb: int = 16
) -> engine.SearchResult:
    """One search of ``pos`` under ``limits`` (no clock: a clock is for games)."""
    return engine.search(
        pos, weights, depth=limits.depth, nodes=limits.nodes, movetime_ms=limits.movetime_ms, hash_mb=hash_mb
    )


@click.command()
@game_argument()
@click.option("--json", "as_json", is_flag=True, help="Print the defaults as a weights file.")
def weights(game: str, as_json: bool) -> None:
    """Show GAME's tunable evaluation weights: name, default, range, meaning."""
    table = engine.weights(game)
    if as_json:
        click.echo(json.dumps({w.name: w.default for w in table}, indent=2))
        return
    width = max(len(w.name) for w in table)
    click.echo(f"{'name':<{width}}  {'default':>7}  {'min':>6}  {'max':>6}  meaning")
    for w in table:
        click.echo(f"{w.name:<{width}}  {w.default:>7}  {w.min:>6}  {w.max:>6}  {w.description}")


@click.command()
@game_argument()
@fen_option
@limit_options(f"none: {SEARCH_LIMITS}", clock=False)
@click.option("--weights", "weights_file", type=weights_path, metavar="FILE", help="JSON weights file.")
@click.option(
    "--hash",
    "hash_mb",
    type=click.IntRange(1, 4096),
    default=16,
    show_default=True,
    help="Table size in MiB.",
)
def search(
    game: str,
    fen: str | None,
    depth: int | None,
    nodes: int | None,
    movetime: int | None,
    weights_file: str | None,
    hash_mb: int,
) -> None:
    """Search a position; one line per completed iteration, then the best move."""
    pos = load_position(game, fen)
    w = read_weights(pos.game, weights_file or "default", "'--weights'")
    limits = search_limits(nodes, depth, movetime, SEARCH_LIMITS)
    result = search_with(pos, w, limits, hash_mb)
    for it in result["iterations"]:
        seconds = max(it["time_ms"], 1e-3) / 1000
        click.echo(
            f"depth {it['depth']:>2}  score {format_score(it['score']):>11}  nodes {it['nodes']:>10}"
            f"  nps {it['nodes'] / seconds:>10.0f}  pv {' '.join(it['pv'])}"
        )
    click.echo(f"bestmove {result['best_move'] or '(none)'}")


def ask_move(pos: engine.Position) -> str:
    """Prompt until the human enters a legal move (or 'quit')."""
    while True:
        text = click.prompt(f"{pos.turn} to move", prompt_suffix="> ").strip()
        if text in ("quit", "resign"):
            return text
        if text in ("moves", "?"):
            click.echo(" ".join(pos.legal_moves()))
            continue
        try:
            pos.play(text)
        except ValueError as e:
            click.echo(f"{e}. Type 'moves' to list the legal moves.")
            continue
        return text


@click.command()
@game_argument()
@click.option(
    "--white", "white_file", type=weights_path, metavar="FILE", help="White's weights (default: defaults)."
)
@click.option(
    "--black", "black_file", type=weights_path, metavar="FILE", help="Black's weights (default: defaults)."
)
@limit_options(f"{PLAY_LIMITS.nodes}", clock=False)
@fen_option
@click.option("--human", type=click.Choice(["white", "black"]), help="Play this side yourself.")
@click.option(
    "--max-plies",
    type=click.IntRange(1),
    default=400,
    show_default=True,
    help="Adjudicate a draw after this.",
)
def play(
    game: str,
    white_file: str | None,
    black_file: str | None,
    depth: int | None,
    nodes: int | None,
    movetime: int | None,
    fen: str | None,
    human: str | None,
    max_plies: int,
) -> None:
    """Watch the engine play itself move by move, or play against it with --human."""
    pos = load_position(game, fen)
    side_weights = {
        "white": read_weights(pos.game, white_file or "default", "'--white'"),
        "black": read_weights(pos.game, black_file or "default", "'--black'"),
    }
    limits = search_limits(nodes, depth, movetime, PLAY_LIMITS)
    seen = Counter([pos.fen()])
    click.echo(render(pos.game, pos.fen()))
    for ply in range(1, max_plies + 1):
        outcome = pos.outcome()
        if outcome is not None:
            click.echo(f"game over: {outcome.winner} wins ({outcome.reason.replace('_', ' ')})")
            return
        if pos.turn == human:
            move = ask_move(pos)
            if move in ("quit", "resign"):
                click.echo(f"{pos.turn} resigns")
                return
            note = ""
        else:
            result = search_with(pos, side_weights[pos.turn], limits)
            if result["best_move"] is None:  # only where the rules' outcome above ends the game
                click.echo(f"game over: {pos.turn} has no move")
                return
            move = result["best_move"]
            note = (
                f"  (score {format_score(result['score'])}, depth {result['depth']}, {result['nodes']} nodes)"
            )
        click.echo(f"\n{(ply + 1) // 2}{'.' if pos.turn == 'white' else '...'} {move}{note}")
        pos = pos.play(move)
        click.echo(render(pos.game, pos.fen()))
        seen[pos.fen()] += 1
        if pos.game == "congo" and seen[pos.fen()] >= 3:
            click.echo("game over: draw by threefold repetition")
            return
    click.echo(f"game over: draw after {max_plies} plies")


@click.command()
@game_argument(required=False)
@click.option("--depth", type=DEPTH_RANGE, metavar="D", help=f"Search depth (default {engine.BENCH_DEPTH}).")
def bench(game: str | None, depth: int | None) -> None:
    """Search the fixed bench positions; the node count is the engine's signature."""
    total_nodes, total_seconds = 0, 0.0
    for g in [game] if game else engine.GAMES:
        nodes, seconds = engine.bench(g, depth)
        total_nodes += nodes
        total_seconds += seconds
        click.echo(f"{g:<9} nodes {nodes:>10}  seconds {seconds:7.3f}  nodes/s {nodes / seconds:>10.0f}")
    rate = total_nodes / total_seconds
    click.echo(f"{'total':<9} nodes {total_nodes:>10}  seconds {total_seconds:7.3f}  nodes/s {rate:>10.0f}")
    click.echo(f"engine {engine.ENGINE_VERSION}")
