"""``arbiter match``: a fixed number of game pairs of a candidate against a baseline, no SPRT; the
Elo with its interval and the pentanomial counts at the end (cutechess's plain mode).

Every input is checked before the store is touched; running the same command again, or ``arbiter
resume RUN``, continues an interrupted match with the same final counts.
"""

from __future__ import annotations

import click

import engine
from coordinator.cli.options import (
    batch_pairs_for,
    check_batch_time,
    game_argument,
    read_book,
    search_limits,
    seed_option,
    store_option,
)
from coordinator.cli.presets import chosen_preset, preset_option
from coordinator.cli.stacks import (
    fleet_options,
    games_options,
    play_run,
    played_sides,
    side_options,
    sides_fields,
)
from coordinator.defaults import ADJUDICATION, SPRT_BATCH_PAIRS, SPRT_LIMITS, TOURNAMENT_PAIRS
from coordinator.executors.options import ExecutorOptions
from coordinator.match.config import MatchConfig
from coordinator.runs import RunKind


@click.command()
@game_argument()
@side_options
@click.option(
    "--pairs",
    type=click.IntRange(1, 10**6),
    default=TOURNAMENT_PAIRS,
    show_default=True,
    help="Game pairs to play (an opening, colours reversed).",
)
@preset_option("limits")
@games_options(SPRT_LIMITS, SPRT_BATCH_PAIRS)
@fleet_options
@seed_option
@store_option
def match(
    game: str,
    candidate: str | None,
    baseline: str,
    candidate_ref: str | None,
    baseline_ref: str | None,
    repo: str | None,
    pairs: int,
    preset_name: str | None,
    nodes: int | None,
    depth: int | None,
    movetime: int | None,
    tc: engine.TimeControl | None,
    timemargin: int | None,
    book: str | None,
    batch_pairs: int,
    batch_seconds: float | None,
    concurrency: int | None,
    broker: str | None,
    verify_fraction: float,
    priority: int,
    seed: int,
    store_url: str | None,
) -> None:
    """Play a fixed number of game pairs of a candidate against a baseline and rate them."""
    preset = chosen_preset(game, preset_name)
    default_limits = SPRT_LIMITS if preset is None else preset.limits
    limits = search_limits(nodes, depth, movetime, default_limits, tc, timemargin)
    batch_pairs = batch_pairs_for(
        click.get_current_context(), min(batch_pairs, pairs), batch_seconds, game, limits
    )
    check_batch_time(game, limits, batch_pairs, broker)
    sides = played_sides(game, (candidate, baseline, candidate_ref, baseline_ref, repo), limits, broker)
    book_path, openings = read_book(game, book)
    try:
        config = MatchConfig(
            game=game,
            openings=openings,
            engine_version=engine.ENGINE_VERSION,
            pairs=pairs,
            limits=limits,
            adjudication=ADJUDICATION,
            batch_pairs=batch_pairs,
            seed=seed,
            book=book_path,
            scale_time=not limits.deterministic,
            **sides_fields(sides),
        )
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    options = ExecutorOptions(broker, concurrency, verify_fraction, priority)
    play_run(RunKind.MATCH, config, sides, options, store_url)
