"""``arbiter sprt``: play game pairs of a candidate against a baseline until the SPRT decides.

Every input is validated before the store is touched (a bad weights file, book or bound leaves the
store as it was); the full configuration is recorded with the run. Running the same command again,
or ``arbiter resume RUN``, continues an interrupted run with the same final counts.
"""

from __future__ import annotations

import click

from coordinator.cli.options import (
    check_hypothesis,
    game_argument,
    hypothesis_options,
    seed_option,
    store_option,
)
from coordinator.cli.presets import chosen_preset, hypothesis_of, preset_option
from coordinator.cli.stacks import (
    GamesChoice,
    SidesChoice,
    checked,
    fleet_options,
    games_options,
    play_run,
    side_options,
    sides_fields,
)
from coordinator.defaults import SPRT_LIMITS
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
    sides: SidesChoice,
    preset_name: str | None,
    elo0: float,
    elo1: float,
    model: str,
    alpha: float,
    beta: float,
    games: GamesChoice,
    max_games: int | None,
    options: ExecutorOptions,
    seed: int,
    store_url: str | None,
) -> None:
    """Play game pairs of a candidate against a baseline until the SPRT decides."""
    preset = chosen_preset(game, preset_name)
    ctx = click.get_current_context()
    elo0, elo1, alpha, beta, model = hypothesis_of(ctx, preset, elo0, elo1, alpha, beta, model)
    check_hypothesis(elo0, elo1, alpha, beta, model)
    default_limits = SPRT_LIMITS if preset is None else preset.limits
    hypothesis = SprtParams(elo0, elo1, alpha, beta, check_model(model))
    max_pairs = None if max_games is None else max_games // 2
    limits, batch_pairs = games.planned(
        game, default_limits, options.broker, sprt=hypothesis, max_pairs=max_pairs
    )
    played = sides.played(game, limits, options.broker)
    config = checked(
        SprtConfig,
        elo0=elo0,
        elo1=elo1,
        elo_model=model,
        alpha=alpha,
        beta=beta,
        max_games=max_games,
        **games.config_fields(game, limits, batch_pairs, seed),
        **sides_fields(played),
    )
    warn_if_games_repeat(config)
    play_run(RunKind.SPRT, config, played, options, store_url)
