"""``arbiter match``: a fixed number of game pairs of a candidate against a baseline, no SPRT; the
Elo with its interval and the pentanomial counts at the end (cutechess's plain mode).

Every input is checked before the store is touched; running the same command again, or ``arbiter
resume RUN``, continues an interrupted match with the same final counts.
"""

from __future__ import annotations

import click

from coordinator.cli.options import game_argument, seed_option, store_option
from coordinator.cli.presets import chosen_preset, preset_option
from coordinator.cli.stacks import (
    GamesChoice,
    SidesChoice,
    checked,
    fleet_options,
    games_options,
    pairs_option,
    play_run,
    side_options,
    sides_fields,
)
from coordinator.defaults import SPRT_BATCH_PAIRS, SPRT_LIMITS
from coordinator.executors.options import ExecutorOptions
from coordinator.match.config import MatchConfig
from coordinator.runs import RunKind


@click.command()
@game_argument()
@side_options
@pairs_option("Game pairs to play (an opening, colours reversed).")
@preset_option("limits")
@games_options(SPRT_LIMITS, SPRT_BATCH_PAIRS)
@fleet_options
@seed_option
@store_option
def match(
    game: str,
    sides: SidesChoice,
    pairs: int,
    preset_name: str | None,
    games: GamesChoice,
    options: ExecutorOptions,
    seed: int,
    store_url: str | None,
) -> None:
    """Play a fixed number of game pairs of a candidate against a baseline and rate them."""
    preset = chosen_preset(game, preset_name)
    default_limits = SPRT_LIMITS if preset is None else preset.limits
    limits, batch_pairs = games.planned(game, default_limits, options.broker, cap=pairs)
    played = sides.played(game, limits, options.broker)
    config = checked(
        MatchConfig,
        pairs=pairs,
        **games.config_fields(game, limits, batch_pairs, seed),
        **sides_fields(played),
    )
    play_run(RunKind.MATCH, config, played, options, store_url)
