"""``arbiter sprt``: play game pairs of a candidate against a baseline until the SPRT decides.

Every input is validated before the store is touched (a bad weights file, book or bound leaves the
store as it was); the full configuration is recorded with the run. Running the same command again,
or ``arbiter resume RUN``, continues an interrupted run with the same final counts.
"""

from __future__ import annotations

import click

import engine
from coordinator.cli.options import (
    batch_pairs_for,
    check_batch_time,
    check_hypothesis,
    game_argument,
    hypothesis_options,
    read_book,
    search_limits,
    seed_option,
    store_option,
)
from coordinator.cli.presets import chosen_preset, hypothesis_of, preset_option
from coordinator.cli.stacks import (
    fleet_options,
    games_options,
    play_run,
    played_sides,
    side_options,
    sides_fields,
)
from coordinator.defaults import ADJUDICATION, SPRT_LIMITS
from coordinator.executors.options import ExecutorOptions
from coordinator.runs import RunKind
from coordinator.sprt.config import SprtConfig
from coordinator.stats import SprtParams
from coordinator.stats.inputs import check_model


def warn_if_games_repeat(config: SprtConfig) -> None:
    """Say so when a depth-limited run may play more pairs than the book has openings.

    With a depth limit a game depends only on its opening and the weights, so a second pass through
    the book repeats the first one exactly and adds no information. (Node limits vary per pair with
    the batch seed, and time limits vary by themselves.)
    """
    pairs = len(config.openings)
    if config.limits.depth is None or not config.limits.deterministic or config.limits.nodes is not None:
        return
    if config.max_games is not None and config.max_games <= 2 * pairs:
        return
    click.echo(
        f"arbiter: note: the book has {pairs} openings; games after the first {2 * pairs} "
        "repeat earlier ones exactly (use a larger book or --max-games)",
        err=True,
    )


@click.command()
@game_argument()
@side_options
@preset_option("bounds and limits")
@hypothesis_options
@games_options(SPRT_LIMITS, None)
@click.option(
    "--max-games",
    type=click.IntRange(2, 10**9),
    help="Play at most this many games (the last batch is cut to fit; default: no cap).",
)
@fleet_options
@seed_option
@store_option
def sprt(
    game: str,
    candidate: str | None,
    baseline: str,
    candidate_ref: str | None,
    baseline_ref: str | None,
    repo: str | None,
    preset_name: str | None,
    elo0: float,
    elo1: float,
    model: str,
    alpha: float,
    beta: float,
    nodes: int | None,
    depth: int | None,
    movetime: int | None,
    tc: engine.TimeControl | None,
    timemargin: int | None,
    book: str | None,
    batch_pairs: int | None,
    batch_seconds: float | None,
    max_games: int | None,
    concurrency: int | None,
    broker: str | None,
    verify_fraction: float,
    priority: int,
    seed: int,
    store_url: str | None,
) -> None:
    """Play game pairs of a candidate against a baseline until the SPRT decides."""
    ctx = click.get_current_context()
    preset = chosen_preset(game, preset_name)
    elo0, elo1, alpha, beta, model = hypothesis_of(ctx, preset, elo0, elo1, alpha, beta, model)
    check_hypothesis(elo0, elo1, alpha, beta, model)
    default_limits = SPRT_LIMITS if preset is None else preset.limits
    limits = search_limits(nodes, depth, movetime, default_limits, tc, timemargin)
    hypothesis = SprtParams(elo0, elo1, alpha, beta, check_model(model))
    max_pairs = None if max_games is None else max_games // 2
    batch_pairs = batch_pairs_for(ctx, batch_pairs, batch_seconds, game, limits, hypothesis, max_pairs)
    check_batch_time(game, limits, batch_pairs, broker)
    sides = played_sides(game, (candidate, baseline, candidate_ref, baseline_ref, repo), limits, broker)
    book_path, openings = read_book(game, book)
    try:
        config = SprtConfig(
            game=game,
            openings=openings,
            engine_version=engine.ENGINE_VERSION,
            elo0=elo0,
            elo1=elo1,
            elo_model=model,
            alpha=alpha,
            beta=beta,
            limits=limits,
            adjudication=ADJUDICATION,
            batch_pairs=batch_pairs,
            max_games=max_games,
            seed=seed,
            book=book_path,
            scale_time=not limits.deterministic,
            **sides_fields(sides),
        )
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    warn_if_games_repeat(config)
    options = ExecutorOptions(broker, concurrency, verify_fraction, priority)
    play_run(RunKind.SPRT, config, sides, options, store_url)
