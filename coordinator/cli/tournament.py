"""``arbiter tournament``: several engines, every pairing a number of game pairs, one rating list.

Engines are named as ``--engine`` takes them: a weights file (JSON), ``default``, an engine file
(TOML) or ``ref:REF`` (a commit of ``--repo``, built by every worker), or a tuning run's champions
(``--champions RUN``). Every input is checked before the store is touched; the run is resumed by
running the same command again or by ``arbiter resume RUN``, with the same final counts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import click

import engine
from coordinator.cli.options import (
    MAX_RUN_ID,
    Side,
    check_programs_can_go,
    game_argument,
    open_existing_store,
    probed,
    read_ref_side,
    read_side,
    seed_option,
    store_option,
)
from coordinator.cli.stacks import (
    GamesChoice,
    checked,
    fleet_options,
    games_options,
    pairs_option,
    play_run,
)
from coordinator.defaults import SPRT_BATCH_PAIRS, SPRT_LIMITS
from coordinator.executors.options import ExecutorOptions
from coordinator.runs import RunKind
from coordinator.tournament.config import FORMATS, Entrant, TournamentConfig

if TYPE_CHECKING:  # the store (SQLAlchemy) loads only once the inputs are good
    from coordinator.store import Store

#: ``--engine ref:REF`` names a commit of ``--repo``.
REF_PREFIX = "ref:"


def entrant_of(game: str, spec: str, repo: str | None, option: str) -> tuple[Entrant, Side]:
    """The engine ``spec`` names and its side (for its program's archive): ``default``, a weights
    file (named by its stem), an engine file (by its ``name``), or ``ref:REF`` (named
    ``repository@sha``): as SPRTs name them (:func:`coordinator.sprt.config.side_name`)."""
    if spec.startswith(REF_PREFIX):
        ref = spec.removeprefix(REF_PREFIX)
        if not ref:
            raise click.BadParameter(
                "expected ref:REF, a branch, tag or commit after 'ref:'", param_hint=option
            )
        side = read_ref_side(game, repo, ref, option)
        assert side.program is not None
        return Entrant(side.program.name, spec, side.weights, side.program), side
    from coordinator.sprt.config import side_name

    side = read_side(game, spec, option)
    return Entrant(side_name(spec, side.program), spec, side.weights, side.program), side


def champion_entrants(store: Store, tune_run_id: int, game: str) -> list[Entrant]:
    """The champions of tuning run ``tune_run_id`` of ``game``, oldest first, named ``champion #N``."""
    from coordinator.store import mask_url
    from coordinator.tuning.config import TuneConfig
    from coordinator.tuning.records import TuningRecords

    run = store.get_run(tune_run_id)
    if run is None:
        raise click.BadParameter(
            f"no run {tune_run_id} in store {mask_url(store.url)}", param_hint="--champions"
        )
    if run.kind is not RunKind.TUNE:
        raise click.BadParameter(
            f"run {tune_run_id} is a {run.kind} run, not a tuning run", param_hint="--champions"
        )
    if run.game != game:
        raise click.BadParameter(
            f"tuning run {tune_run_id} tuned {run.game}, not {game}", param_hint="--champions"
        )
    tune = run.settings_as(TuneConfig)
    found = TuningRecords(store).champions(tune_run_id)
    if len(found) < 2:
        raise click.BadParameter(
            f"tuning run {tune_run_id} has {len(found)} champion(s): nothing to play against each other",
            param_hint="--champions",
        )
    source = f"tuning run {tune_run_id}"
    if tune.program is None:
        return [Entrant(f"champion #{c.number}", source, {**tune.start, **c.weights}) for c in found]
    base = dict(tune.program.options)
    default = engine.validate_weights(run.game, None)
    return [
        Entrant(f"champion #{c.number}", source, default, replace(tune.program, options=base | c.weights))
        for c in found
    ]


@click.command()
@game_argument()
@click.option(
    "--engine",
    "engines",
    multiple=True,
    metavar="ENGINE",
    help="An engine: weights (JSON) of the built-in engine, default, an engine file (.toml), or "
    "ref:REF (a branch, tag or commit of --repo). Repeat it for each engine.",
)
@click.option(
    "--champions",
    type=click.IntRange(1, MAX_RUN_ID),
    metavar="RUN",
    help="Add the champions of tuning run RUN (champion #0, #1, ...).",
)
@click.option(
    "--format",
    "format_",
    type=click.Choice(FORMATS),
    default="round-robin",
    show_default=True,
    help="round-robin: every engine plays every other; gauntlet: --vs plays each of the others.",
)
@click.option(
    "--vs",
    metavar="ENGINE",
    help="With --format gauntlet: the engine that plays all others, by name or as an --engine "
    "(default: the first engine).",
)
@pairs_option("Game pairs (an opening, colours reversed) each pairing plays.")
@click.option(
    "--repo", metavar="URL", help="The repository of ref:REF engines (default: arbiter's own checkout)."
)
@games_options(SPRT_LIMITS, SPRT_BATCH_PAIRS)
@fleet_options
@seed_option
@store_option
def tournament(
    game: str,
    engines: tuple[str, ...],
    champions: int | None,
    format_: str,
    vs: str | None,
    pairs: int,
    repo: str | None,
    games: GamesChoice,
    options: ExecutorOptions,
    seed: int,
    store_url: str | None,
) -> None:
    """Play a round robin or a gauntlet of several engines and rate them."""
    if vs is not None and format_ != "gauntlet":
        raise click.UsageError("--vs names the engine of a gauntlet: it needs --format gauntlet")
    if repo is not None and not any(e.startswith(REF_PREFIX) for e in (*engines, vs or "")):
        raise click.UsageError("--repo names the repository of ref:REF engines")
    limits, batch_pairs = games.planned(game, SPRT_LIMITS, options.broker, cap=pairs)
    read = [entrant_of(game, spec, repo, "--engine") for spec in engines]
    if vs is not None and all(vs not in (e.name, spec) for (e, _), spec in zip(read, engines, strict=True)):
        read.insert(0, entrant_of(game, vs, repo, "--vs"))  # a gauntlet engine not among --engine
    entrants, sides = [], []
    for entrant, side in read:  # programs probed once, as sprt does (a built commit benched twice)
        if side.program is not None and not entrant.source.startswith(REF_PREFIX):
            side = probed(game, side, limits)
            entrant = replace(entrant, program=side.program)
        entrants.append(entrant)
        sides.append(side)
    if champions is not None:
        entrants += champion_entrants(open_existing_store(store_url), champions, game)
    if len(entrants) < 2:
        raise click.UsageError(
            "a tournament needs at least two engines: give --engine twice or more, or --champions"
        )
    specs = [e.source for e in entrants]
    gauntlet = next((i for i, e in enumerate(entrants) if vs in (e.name, specs[i])), 0)
    check_programs_can_go(tuple(Side(e.source, e.weights, e.program) for e in entrants), options.broker)
    config = checked(
        TournamentConfig,
        entrants=tuple(entrants),
        format=format_,
        vs=gauntlet,
        pairs=pairs,
        champions_of=champions,
        **games.config_fields(game, limits, batch_pairs, seed),
    )
    play_run(RunKind.TOURNAMENT, config, sides, options, store_url)
