"""`arbiter tune`: tune evaluation weights with Optuna or SPSA; new champions must pass an SPRT."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

import click

import engine
from coordinator.campaign.config import CampaignConfig, default_verify_limits
from coordinator.cli.options import (
    MAX_NODES,
    F,
    Side,
    batch_pairs_option,
    book_option,
    check_batch_time,
    check_programs_can_go,
    create_or_resume,
    game_argument,
    limit_options,
    open_executor_and_store,
    output_file_option,
    probed,
    read_book,
    read_ref_side,
    read_side,
    read_weights,
    search_limits,
    seed_option,
    store_option,
)
from coordinator.cli.remote import remote, submit
from coordinator.cli.stacks import fleet_options
from coordinator.defaults import ADJUDICATION, SPSA_GAMES, TUNE_BATCH_PAIRS, TUNE_LIMITS
from coordinator.executors.options import ExecutorOptions
from coordinator.runs import RunKind
from coordinator.tuning.config import METHODS, ROUNDINGS, SAMPLERS, TuneConfig, tuned_names
from coordinator.tuning.spsa import A_RATIO, C_END_FRACTION, R_END
from coordinator.tuning.spsa_params import SpsaParam, read_spsa_params

#: Options that only one method reads: giving one to the other method is an error.
OPTUNA_ONLY = (
    "sampler",
    "radius",
    "trial_pairs",
    "min_trial_pairs",
    "halving_factor",
    "parallel_trials",
    "prune_los",
    "accept_margin",
    "max_trials",
)
SPSA_ONLY = ("accept_every", "spsa_lag", "c_end", "r_end", "a_ratio")


def count_option(flag: str, high: int, default: int, help_text: str, low: int = 1) -> Callable[[F], F]:
    """An integer option from ``low`` to ``high``, its default shown in the help."""
    return click.option(
        flag, type=click.IntRange(low, high), default=default, show_default=True, help=help_text
    )


def parse_duration(text: str | None) -> float | None:
    """Seconds from `90`, `90s`, `30m` or `2h`; a BadParameter otherwise."""
    if text is None:
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if match is None or float(match.group(1)) <= 0:
        raise click.BadParameter(
            f"{text!r} is not a duration like 90, 90s, 30m or 2h", param_hint="'--time-limit'"
        )
    return float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]


def parse_node_list(values: tuple[str, ...], hint: str = "'--accept-nodes'") -> list[int]:
    """``--accept-nodes 1000,4000`` (or the option given twice) as node counts, in order
    (``hint``: the option named in errors)."""
    counts = []
    for part in (p.strip() for value in values for p in value.split(",")):
        if not re.fullmatch(r"-?[0-9]{1,18}", part):  # int() refuses over 4,300 digits
            raise click.BadParameter(f"{part!r} is not a node count", param_hint=hint)
        count = int(part)
        if not 1 <= count <= MAX_NODES:
            raise click.BadParameter(
                f"{count} is not a node count between 1 and {MAX_NODES}", param_hint=hint
            )
        counts.append(count)
    return counts


def check_method_options(method: str) -> None:
    """A usage error when an option of the other method was given on the command line."""
    ctx = click.get_current_context()
    foreign = SPSA_ONLY if method == "optuna" else OPTUNA_ONLY
    for name in foreign:
        if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE:
            flag = "--" + name.replace("_", "-")
            other = "spsa" if method == "optuna" else "optuna"
            implied = ctx.get_parameter_source("method") is click.core.ParameterSource.DEFAULT
            hint = f": add --method {other} (the default method is {method})" if implied else ""
            raise click.UsageError(f"{flag} is an option of --method {other}{hint}")


@click.command()
@game_argument()
@click.option(
    "--method",
    type=click.Choice(METHODS),
    default="spsa",
    show_default=True,
    help="Tuning method: spsa gained most from the engine's defaults in benchmarks/tuning.py; "
    "optuna finds large gains fast from a poor start.",
)
@click.option("--params", metavar="A,B,C", help="Weights to tune (default: all of them).")
@click.option(
    "--spsa-params",
    metavar="FILE",
    help="SPSA: the parameters to tune in OpenBench's format, one a line: name, int, start, min, max, "
    "c_end, r_end (instead of --params; their start and range come from the file).",
)
@click.option(
    "--rounding",
    type=click.Choice(ROUNDINGS),
    default="stochastic",
    show_default=True,
    help="SPSA: how theta +- c becomes whole numbers (fishtest rounds stochastically).",
)
@click.option(
    "--start",
    "start_file",
    default="default",
    show_default=True,
    metavar="FILE|default",
    help="First champion.",
)
@click.option(
    "--candidate",
    "engine_file",
    metavar="ENGINE.toml",
    help="Tune this engine program's spin options (SPSA) instead of the built-in engine's weights; "
    "it starts from the values its engine file sets, else its defaults.",
)
@click.option(
    "--candidate-ref",
    metavar="REF",
    help="Tune the spin options (weights and search parameters) of arbiter-engine built from this "
    "commit of --repo (SPSA).",
)
@click.option("--repo", metavar="URL", help="The repository of --candidate-ref (default: arbiter's own).")
@click.option(
    "--sampler", type=click.Choice(SAMPLERS), default="tpe", show_default=True, help="Optuna sampler."
)
@click.option(
    "--radius",
    type=float,
    metavar="FRACTION",
    help="Optuna: search each weight within the start +- FRACTION of its range (default: whole range).",
)
@seed_option
@count_option("--trial-pairs", 100_000, 64, "Game pairs per trial at most.")
@count_option(
    "--min-trial-pairs",
    100_000,
    8,
    "Pairs every trial plays before successive halving compares it (>= --trial-pairs: no halving).",
)
@count_option(
    "--halving-factor",
    100,
    3,
    "Successive halving: the best 1/F of a rung go on to F times the games.",
    low=2,
)
@count_option(
    "--parallel-trials",
    10_000,
    8,
    "Optuna: trials open at once (trial k waits for trial k-N: the same trials on any workers).",
)
@batch_pairs_option(TUNE_BATCH_PAIRS)
@limit_options(f"{TUNE_LIMITS.nodes}")
@book_option
@click.option(
    "--accept-elo0", type=float, default=0.0, show_default=True, help="Acceptance SPRT H0 (normalized)."
)
@click.option(
    "--accept-elo1", type=float, default=5.0, show_default=True, help="Acceptance SPRT H1 (normalized)."
)
@click.option(
    "--accept-margin", type=float, default=20.0, show_default=True, help="Trial Elo needed for an SPRT."
)
@click.option(
    "--prune-los", type=float, default=0.05, show_default=True, help="Prune a trial below this LOS."
)
@click.option(
    "--accept-nodes",
    multiple=True,
    metavar="N[,N...]",
    help="Acceptance SPRTs at each of these node counts in turn; all must accept (default: the trials').",
)
@click.option(
    "--accept-every",
    type=click.IntRange(1, 10**9),
    metavar="GAMES",
    help="SPSA: theta plays an acceptance SPRT every GAMES games (default: at the end only).",
)
@count_option(
    "--spsa-lag",
    10**6,
    8,
    "SPSA: iteration k plays theta after iterations 0..k-LAG-1 (LAG+1 iterations in flight at most).",
    low=0,
)
@click.option(
    "--c-end", type=float, default=C_END_FRACTION, show_default=True, help="SPSA: final perturbation / range."
)
@click.option("--r-end", type=float, default=R_END, show_default=True, help="SPSA: final learning rate.")
@click.option(
    "--a-ratio", type=float, default=A_RATIO, show_default=True, help="SPSA: A / planned game pairs."
)
@count_option("--accept-max-games", 10**9, 4000, "Game budget of each acceptance SPRT.", low=2)
@count_option("--max-trials", 10**6, 50, "Trials to ask at most.")
@click.option(
    "--max-games",
    type=click.IntRange(1, 10**9),
    help=f"Game budget, every game counted: SPSA plans its iterations so that they and their "
    f"acceptance SPRTs (each at its --accept-max-games) fit (default: {SPSA_GAMES}; with --rounds, "
    f"{SPSA_GAMES} plus 2 x --verify-max-games a round); Optuna asks no trial once its trials and "
    "acceptance SPRTs played it (trials open at once may finish beyond it; default: none).",
)
@click.option("--time-limit", metavar="DURATION", help="Stop after this long: 90s, 30m, 2h.")
@click.option(
    "--rounds",
    type=click.IntRange(1, 1000),
    help="Run a campaign of up to N rounds of SPSA instead: each round tunes from the best so far, "
    "and its champion must pass two verification SPRTs against the round's start to begin the next; "
    "--max-games is then the whole campaign's budget, split evenly between the rounds.",
)
@click.option(
    "--verify-nodes",
    multiple=True,
    metavar="N,N",
    help="Campaign: the node counts of the two verification SPRTs (default: the tuning nodes x4 and x40).",
)
@click.option(
    "--verify-tc",
    metavar="STC,LTC",
    help="Campaign: verify at these two time controls instead (default with --tc: it and it x6).",
)
@count_option(
    "--verify-max-games",
    10**9,
    4000,
    "Campaign: game cap of each verification SPRT (undecided: failed).",
    low=2,
)
@output_file_option("The champion's weights file to write (default: RUN-champion.json).")
@click.option(
    "--report/--no-report",
    default=True,
    show_default=True,
    help="Write the run's HTML report (RUN-report.html) at the end; `arbiter report` writes it any time.",
)
@fleet_options
@store_option
def tune(
    game: str,
    method: str,
    params: str | None,
    spsa_params: str | None,
    rounding: str,
    start_file: str,
    engine_file: str | None,
    candidate_ref: str | None,
    repo: str | None,
    sampler: str,
    radius: float | None,
    seed: int,
    trial_pairs: int,
    min_trial_pairs: int,
    halving_factor: int,
    parallel_trials: int,
    batch_pairs: int,
    nodes: int | None,
    depth: int | None,
    movetime: int | None,
    tc: engine.TimeControl | None,
    timemargin: int | None,
    book: str | None,
    accept_elo0: float,
    accept_elo1: float,
    accept_margin: float,
    prune_los: float,
    accept_nodes: tuple[str, ...],
    accept_every: int | None,
    spsa_lag: int,
    c_end: float,
    r_end: float,
    a_ratio: float,
    accept_max_games: int,
    max_trials: int,
    max_games: int | None,
    time_limit: str | None,
    rounds: int | None,
    verify_nodes: tuple[str, ...],
    verify_tc: str | None,
    verify_max_games: int,
    output: str | None,
    report: bool,
    options: ExecutorOptions,
    store_url: str | None,
) -> None:
    """Tune GAME's evaluation weights with SPSA (default) or Optuna; a better candidate must pass
    an SPRT against the champion (at each --accept-nodes) to become champion. The champion's
    weights go to -o FILE (default: RUN-champion.json). With --rounds N, a campaign: rounds of
    tuning whose champions must pass two verification SPRTs; the final values go to -o FILE
    (default: RUN-campaign.json) and, as [options] for engine files, beside it (.toml)."""
    check_method_options(method)
    check_campaign_options(rounds, method, time_limit)
    accept_node_counts = parse_node_list(accept_nodes)
    names = [p.strip() for p in params.split(",") if p.strip()] if params is not None else None
    if names == []:  # "" or ",,,": not "all of them", which is leaving --params out
        raise click.BadParameter(
            f"expected weight names like pawn,zebra, got {params!r}", param_hint="'--params'"
        )
    table = read_param_list(spsa_params, params, method)
    if table:
        names = [p.name for p in table]
    side = None
    if engine_file is not None and candidate_ref is not None:
        raise click.UsageError("give the program to tune with --candidate or --candidate-ref (one of them)")
    if repo is not None and candidate_ref is None:
        raise click.UsageError("--repo names the repository of --candidate-ref")
    if engine_file is not None or candidate_ref is not None:
        if candidate_ref is not None:
            chosen = read_ref_side(game, repo, candidate_ref, "'--candidate-ref'")
        else:
            assert engine_file is not None
            chosen = read_side(game, engine_file, "'--candidate'")
        side, tuned, start, ranges = program_tunables(game, chosen, start_file, names, method)
        check_programs_can_go((side,), options.broker)
    else:
        try:
            tuned = tuned_names(game, names)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="'--params'") from None
        start = {k: int(v) for k, v in read_weights(game, start_file, "'--start'").items()}
        ranges = {}
    limits = search_limits(nodes, depth, movetime, TUNE_LIMITS, tc, timemargin)
    if side is not None:
        side = probed(game, side, limits)
    check_batch_time(game, limits, batch_pairs, options.broker)
    book_path, openings = read_book(game, book)
    try:
        config = TuneConfig(
            game=game,
            params=tuned,
            start=start,
            openings=openings,
            engine_version=engine.ENGINE_VERSION,
            method=method,
            sampler=sampler,
            radius=radius,
            seed=seed,
            trial_pairs=trial_pairs,
            min_trial_pairs=min_trial_pairs,
            halving_factor=halving_factor,
            parallel_trials=parallel_trials,
            batch_pairs=batch_pairs,
            limits=limits,
            adjudication=ADJUDICATION,
            accept_elo0=accept_elo0,
            accept_elo1=accept_elo1,
            accept_margin=accept_margin,
            prune_los=prune_los,
            accept_max_games=accept_max_games,
            accept_nodes=accept_node_counts,
            accept_every=accept_every,
            spsa_lag=spsa_lag,
            spsa_c_end=c_end,
            spsa_r_end=r_end,
            spsa_a_ratio=a_ratio,
            max_trials=max_trials if method == "optuna" else None,
            max_games=max_games if max_games is not None or method == "optuna" else SPSA_GAMES,
            time_limit=parse_duration(time_limit),
            book=book_path,
            start_source=side.source if side is not None else start_file,
            program=None if side is None else side.program,
            ranges=ranges,
            spsa_rounding=rounding if method == "spsa" else "nearest",
            spsa_table=[p.row() for p in table],
            acceptance_in_budget=method == "spsa",
        )
        if table:  # the list's start values and ranges: within what the engine accepts
            check_param_list(config, table)
            config = replace(config, start={**config.start, **{p.name: p.start for p in table}})
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    from coordinator.console.lease import holding_lease

    campaign = None
    if rounds is not None:
        budget = max_games if max_games is not None else rounds * (SPSA_GAMES + 2 * verify_max_games)
        campaign = campaign_config(config, rounds, budget, verify_nodes, verify_tc, verify_max_games)
    where = remote()
    if where.server is not None:
        if output is not None:
            raise click.UsageError("-o: with --server, the run's page on the server has its results")
        sides = [side] if side is not None else []
        if campaign is not None:
            submit(RunKind.CAMPAIGN, campaign, sides, where)
        else:
            submit(RunKind.TUNE, config, sides, where)
        return
    executor, store = open_executor_and_store(options, store_url)
    if side is not None:
        side.keep(store)
    if campaign is not None:
        from coordinator.campaign.drive import drive as drive_campaign

        found = create_or_resume(store, RunKind.CAMPAIGN, campaign, finished_too=True)
        with holding_lease(store, found.id):
            drive_campaign(store, found, found.settings_as(CampaignConfig), executor, output, report)
        return
    # The same command again continues the run, or only reports it when its budget is used.
    run = create_or_resume(store, RunKind.TUNE, config, finished_too=True)
    from coordinator.tuning.drive import drive  # the tuners (Optuna) load only once the inputs are good

    # a run found again keeps its program's probe findings: it plays its stored configuration
    with holding_lease(store, run.id):
        drive(store, run, run.settings_as(TuneConfig), executor, output, report)


def check_campaign_options(rounds: int | None, method: str, time_limit: str | None) -> None:
    """A usage error for a campaign option without --rounds, or a campaign that cannot be."""
    ctx = click.get_current_context()
    if rounds is None:
        for name in ("verify_nodes", "verify_tc", "verify_max_games"):
            if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE:
                raise click.UsageError(
                    f"--{name.replace('_', '-')} is an option of a campaign: add --rounds N"
                )
        return
    if method != "spsa":
        raise click.UsageError("--rounds: a campaign tunes with --method spsa")
    if time_limit is not None:
        raise click.UsageError("--rounds: a campaign ends by its rounds and --max-games; drop --time-limit")


def campaign_config(
    tune: TuneConfig,
    rounds: int,
    max_games: int,
    verify_nodes: tuple[str, ...],
    verify_tc: str | None,
    verify_max_games: int,
) -> CampaignConfig:
    """The campaign of ``--rounds``: ``tune`` is every round's tuning (from the best so far)."""
    if verify_nodes and verify_tc is not None:
        raise click.UsageError(
            "give the verification settings with --verify-nodes or --verify-tc (one of them)"
        )
    if verify_nodes:
        counts = parse_node_list(verify_nodes, "'--verify-nodes'")
        if len(counts) != 2:
            raise click.BadParameter(
                f"expected two node counts, got {len(counts)}", param_hint="'--verify-nodes'"
            )
        verify = [engine.Limits(nodes=n) for n in counts]
    elif verify_tc is not None:
        parts = [p.strip() for p in verify_tc.split(",")]
        try:
            if len(parts) != 2:
                raise ValueError(f"expected two time controls like 10+0.1,60+0.6, got {verify_tc!r}")
            verify = [engine.Limits(time_control=engine.TimeControl.parse(p)) for p in parts]
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="'--verify-tc'") from None
    else:
        try:
            verify = default_verify_limits(tune.limits)
        except ValueError as e:
            raise click.UsageError(str(e)) from None
    try:
        return CampaignConfig(tune, rounds, max_games, verify, verify_max_games)
    except ValueError as e:
        raise click.UsageError(str(e)) from None


def read_param_list(path: str | None, params: str | None, method: str) -> list[SpsaParam]:
    """The parameter list of ``--spsa-params`` (none without it)."""
    if path is None:
        return []
    if params is not None:
        raise click.UsageError("--spsa-params lists the parameters to tune: drop --params")
    if method != "spsa":
        raise click.UsageError("--spsa-params is an option of --method spsa")
    try:
        return read_spsa_params(path)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--spsa-params'") from None


def check_param_list(config: TuneConfig, table: list[SpsaParam]) -> None:
    """ValueError unless every listed parameter is one the run can tune, within its range."""
    known = {t.name: t for t in config.tunables()}
    for p in table:
        tunable = known.get(p.name)
        if tunable is None:
            raise ValueError(
                f"--spsa-params: {p.name!r} is not a parameter of this engine ({', '.join(known)})"
            )
        if p.low < tunable.min or p.high > tunable.max:
            span, allowed = f"[{p.low}, {p.high}]", f"[{tunable.min}, {tunable.max}]"
            raise ValueError(f"--spsa-params: {p.name}: {span} leaves the engine's range {allowed}")


def program_tunables(
    game: str, side: Side, start_file: str, names: list[str] | None, method: str
) -> tuple[Side, list[str], dict[str, int], dict[str, list[int]]]:
    """What tuning an engine program means: the program, the spin options tuned (``names``,
    default all that set playing strength), where they start (the values its engine file sets,
    else the program's defaults) and every tunable option's range, from its handshake."""
    from coordinator.sides.options import declared, tunable_spins

    source = side.source
    if method != "spsa":
        raise click.UsageError(f"{source}: an engine program's options are tuned with --method spsa")
    if start_file != "default":
        raise click.UsageError(f"{source}: the program starts from its own options; drop --start")
    if side.program is None:
        raise click.BadParameter(f"{source}: expected an engine file (.toml)", param_hint="'--candidate'")
    try:
        spins = tunable_spins(declared(side.program, side.archive, game))
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--candidate'") from None
    if not spins:
        raise click.BadParameter(
            f"{source}: the program declares no spin option to tune", param_hint="'--candidate'"
        )
    wanted = names or list(spins)
    unknown = [n for n in wanted if n not in spins]
    if unknown:
        raise click.BadParameter(
            f"{unknown[0]!r} is not a spin option of {side.program.name} (it has {', '.join(spins)})",
            param_hint="'--params'",
        )
    set_in_file = side.program.options
    start = {}
    for name, (low, high, default) in spins.items():
        value = set_in_file.get(name, default)
        start[name] = min(max(int(value), low), high) if not isinstance(value, str) else default
    ranges = {name: [low, high] for name, (low, high, _) in spins.items()}
    return side, wanted, start, ranges
