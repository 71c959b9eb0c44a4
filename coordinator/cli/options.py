"""What several commands share: the GAME argument, the store, broker, concurrency, limit and
hypothesis options, reading weights and books, and opening the executor and the store.

One definition each, so that an option means the same and has the same default in every command.
Every bad value becomes a click error naming the option (exit status 2).
"""

from __future__ import annotations

import gc
import inspect
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

import engine
from coordinator.defaults import VERIFY_FRACTION
from coordinator.executors.options import ExecutorOptions
from coordinator.runs import RunKind, RunState
from coordinator.sizing import (
    DEFAULT_BATCH_SECONDS,
    MAX_BATCH_PAIRS,
    OVERSHOOT_SHARE,
    default_batch_pairs,
    game_seconds,
    pairs_for_seconds,
)
from coordinator.stats import SprtParams
from coordinator.stats.inputs import (
    ELO_MODELS,
    MAX_HYPOTHESIS_ELO,
    MIN_HYPOTHESIS_WIDTH,
    HypothesisError,
    check_hypotheses,
    check_model,
)
from wire.celeryconfig import (
    BROKER_ENV,
    DEFAULT_PRIORITY,
    PRIORITIES,
    REDIS_URL,
    RESULT_BACKEND_ENV,
    is_redis_url,
)
from wire.masking import mask_url

if TYPE_CHECKING:  # the store, executors and books load only in the commands that use them
    from coordinator.executors.base import Executor
    from coordinator.registry import RunConfig
    from coordinator.store import Run, Store
    from wire.programs import EngineProgram

F = TypeVar("F", bound=Callable[..., Any])

#: The largest run id (the store's ids are 64-bit).
MAX_RUN_ID = 2**63 - 1


def limit_range(field: str) -> click.IntRange:
    """The range a limit's option takes: the core's own bound for ``field`` (``nodes``,
    ``depth``, ``movetime_ms``, ``time_margin_ms``), so that the command line refuses exactly
    what the core would."""
    low, high = engine.LIMIT_BOUNDS[field]
    return click.IntRange(low, high)


#: The most nodes a move may be given (minutes of search on any machine).
MAX_NODES = engine.LIMIT_BOUNDS["nodes"][1]
#: --depth of every command that searches.
DEPTH_RANGE = limit_range("depth")


class TimeControlType(click.ParamType[engine.TimeControl, Any]):
    """A time control as cutechess writes it: ``10+0.1``, ``40/60+0.5``, ``60`` (seconds)."""

    name = "TC"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> engine.TimeControl:
        if isinstance(value, engine.TimeControl):
            return value
        try:
            return engine.TimeControl.parse(str(value))
        except ValueError as e:
            self.fail(str(e).removeprefix("time_control: "), param, ctx)


class Utf8TextType(click.ParamType[str, Any]):
    """Text that is UTF-8. Python keeps an argument's bytes that are not as surrogates, which
    failed later, where the text reached the core or the store, with a codec's message naming
    neither the option nor what was expected."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            self.fail(f"expected UTF-8 text, got {text!r}", param, ctx)
        return text


UTF8_TEXT = Utf8TextType()


#: Worker processes of one command or one worker machine at most.
MAX_CONCURRENCY = 4096
#: The longest work one batch may be sized for (``--batch-seconds``).
MAX_BATCH_SECONDS = 600


def _lower(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    return value.lower() if isinstance(value, str) else value


def game_argument(required: bool = True) -> Callable[[F], F]:
    """The GAME argument: one of the engine's games, any case; the command's help lists them."""
    argument = click.argument(
        "game",
        type=click.Choice(engine.GAMES, case_sensitive=False),
        metavar="GAME" if required else "[GAME]",
        required=required,
        callback=_lower,
    )

    def decorate(f: F) -> F:
        # Dedent first: the appended line has no indentation, so click could no longer remove it.
        f.__doc__ = f"{inspect.cleandoc(f.__doc__ or '')}\n\nGAME is one of: {', '.join(engine.GAMES)}."
        return argument(f)

    return decorate


def run_argument(required: bool = True) -> Callable[[F], F]:
    """The RUN argument: a run id of the store."""
    return click.argument(
        "run_id",
        type=click.IntRange(1, MAX_RUN_ID),
        metavar="RUN" if required else "[RUN]",
        required=required,
    )


store_option = click.option(
    "--store",
    "store_url",
    metavar="URL",
    help="SQLAlchemy URL of the store (default: $ARBITER_STORE or sqlite:///arbiter.db).",
)


def _redis_url(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """A --broker value that is a Redis URL (or none); anything else is the option's error, with
    its password masked."""
    if value and not is_redis_url(value):
        raise click.BadParameter(f"expected {REDIS_URL}, got {mask_url(value)}")
    return value


def broker_option_for(help_text: str) -> Callable[[F], F]:
    """The --broker option (``$ARBITER_BROKER`` when not given), with what the command does with it."""
    return click.option("--broker", metavar="URL", envvar=BROKER_ENV, help=help_text, callback=_redis_url)


broker_option = broker_option_for(
    "Play on the Celery workers behind this broker, e.g. redis://host:6379/0 "
    f"(default: ${BROKER_ENV}; unset: a local process pool)."
)
verify_option = click.option(
    "--verify-fraction",
    type=click.FloatRange(0.0, 1.0),
    default=VERIFY_FRACTION,
    show_default=True,
    help="With --broker: share of batches played again, by a worker the run has proved or by this "
    "machine, to check the one that played them (each worker's first batch of a run always is, here).",
)
priority_option = click.option(
    "--priority",
    type=click.IntRange(min(PRIORITIES), max(PRIORITIES)),
    default=DEFAULT_PRIORITY,
    show_default=True,
    help="With --broker: workers take the waiting batches of higher-priority runs first; runs of "
    "equal priority share the fleet.",
)
concurrency_option = click.option(
    "--concurrency",
    type=click.IntRange(1, MAX_CONCURRENCY),
    help="Worker processes: local ones (default: one per core), or with --broker the total across all "
    "Celery workers (default: discovered from them).",
)
seed_option = click.option("--seed", type=int, default=0, show_default=True, help="Seed of the batch plan.")
book_option = click.option(
    "--book", metavar="FILE", help="Openings book (default: the one shipped for GAME)."
)


def output_file_option(help_text: str) -> Callable[[F], F]:
    """-o/--output FILE, ``help_text`` saying which file the command writes."""
    return click.option("-o", "--output", type=click.Path(dir_okay=False), metavar="FILE", help=help_text)


output_option = output_file_option("File to write.")


def batch_pairs_option(default: int | None) -> Callable[[F], F]:
    """--batch-pairs: game pairs per batch (one SPRT update each); ``default`` None: sized from the
    limits and the SPRT (:func:`coordinator.sizing.default_batch_pairs`)."""
    sized = (
        f"default: about {DEFAULT_BATCH_SECONDS:.0f} s of work for one core, estimated from the limits, "
        f"and at most {100 * OVERSHOOT_SHARE:.0f}% of the SPRT's expected length or of --max-games"
    )
    return click.option(
        "--batch-pairs",
        type=click.IntRange(1, MAX_BATCH_PAIRS),
        default=default,
        show_default=default is not None,
        help="Game pairs per batch (one SPRT update and one task each)"
        + ("." if default is not None else f" ({sized})."),
    )


batch_seconds_option = click.option(
    "--batch-seconds",
    type=click.FloatRange(1, MAX_BATCH_SECONDS),
    metavar="S",
    help="Size batches by time instead: about S seconds of work for one worker core each, estimated "
    "from the node or time limit (so the plan is the same on any machine); for large fleets, e.g. 60.",
)


def check_batch_time(game: str, limits: engine.Limits, batch_pairs: int, broker: str | None) -> None:
    """A UsageError when, on Celery workers, one batch would take longer than a task may
    (``$ARBITER_BATCH_SECONDS``): such a run could never count a game."""
    from wire.celeryconfig import BATCH_SECONDS_ENV, batch_seconds

    if not (broker or os.environ.get(BROKER_ENV, "")).strip():
        return
    each = game_seconds(game, limits)
    limit = batch_seconds()
    if each is not None and 2 * batch_pairs * each > limit:
        raise click.UsageError(
            f"a batch of {batch_pairs} pairs would take about {2 * batch_pairs * each:,.0f} s on one core, "
            f"more than a task may take ({BATCH_SECONDS_ENV}={limit}): use fewer --batch-pairs or a "
            "smaller --nodes/--movetime/--tc"
        )


def batch_pairs_for(
    ctx: click.Context,
    batch_pairs: int | None,
    batch_seconds: float | None,
    game: str,
    limits: engine.Limits,
    sprt: SprtParams | None = None,
    max_pairs: int | None = None,
) -> int:
    """The pairs per batch: ``--batch-pairs``, or the size ``--batch-seconds`` gives (not both), or
    without either (``batch_pairs`` None) the default sized from the limits, ``sprt`` and the
    budget of ``max_pairs``."""
    if batch_seconds is None:
        return default_batch_pairs(game, limits, sprt, max_pairs) if batch_pairs is None else batch_pairs
    if ctx.get_parameter_source("batch_pairs") is click.core.ParameterSource.COMMANDLINE:
        raise click.UsageError("give --batch-pairs or --batch-seconds, not both")
    try:
        return pairs_for_seconds(game, limits, batch_seconds)
    except ValueError as e:
        raise click.UsageError(str(e)) from None


def limit_options(default: str, clock: bool = True) -> Callable[[F], F]:
    """--nodes / --depth / --movetime, and (``clock``, for games) --tc / --timemargin; ``default``
    says what applies when none is given. Several may be given: a move stops at the first reached."""

    def decorate(f: F) -> F:
        if clock:
            f = click.option(
                "--timemargin",
                type=limit_range("time_margin_ms"),
                metavar="MS",
                help="With --tc: how far past zero a clock may go before its side loses on time "
                f"(default: {engine.Limits(nodes=1).time_margin_ms} ms).",
            )(f)
            f = click.option(
                "--tc",
                type=TimeControlType(),
                help="Time control, kept by the referee as fastchess keeps it: 10+0.1 (10 s, 0.1 s a "
                "move), 40/60+0.5 (60 s for every 40 moves), 60 (not deterministic).",
            )(f)
        f = click.option(
            "--movetime",
            type=limit_range("movetime_ms"),
            metavar="MS",
            help="Milliseconds per move (not deterministic).",
        )(f)
        f = click.option("--depth", type=DEPTH_RANGE, metavar="D", help="Depth per move.")(f)
        return click.option(
            "--nodes",
            type=limit_range("nodes"),
            metavar="N",
            help=f"Nodes per move (default: {default}).",
        )(f)

    return decorate


def search_limits(
    nodes: int | None,
    depth: int | None,
    movetime: int | None,
    default: engine.Limits,
    tc: engine.TimeControl | None = None,
    timemargin: int | None = None,
) -> engine.Limits:
    """The limits given, or ``default`` when none is; --timemargin goes with --tc only (or with a
    ``default`` that has a clock, such as a preset's)."""
    if nodes is None and depth is None and movetime is None and tc is None:
        if timemargin is None:
            return default
        if default.time_control is not None:
            return default.replace(time_margin_ms=timemargin)
    if timemargin is not None and tc is None:
        raise click.UsageError("--timemargin is the grace of a clock: it needs --tc")
    margin = {} if timemargin is None else {"time_margin_ms": timemargin}
    return engine.Limits(nodes=nodes, depth=depth, movetime_ms=movetime, time_control=tc, **margin)


def hypothesis_options(f: F) -> F:
    """--elo0 / --elo1 / --model / --alpha / --beta of an SPRT (checked by :func:`check_hypothesis`)."""
    for decorator in reversed(
        [
            click.option("--elo0", type=float, default=0.0, show_default=True, help="H0: Elo difference."),
            click.option(
                "--elo1",
                type=float,
                default=5.0,
                show_default=True,
                help=f"H1: Elo difference, at least elo0 + {MIN_HYPOTHESIS_WIDTH:g}; |elo0| and |elo1| at "
                f"most {MAX_HYPOTHESIS_ELO['normalized']:g} (normalized) or "
                f"{MAX_HYPOTHESIS_ELO['logistic']:g} (logistic, BayesElo).",
            ),
            click.option(
                "--model",
                type=click.Choice([m.lower() for m in ELO_MODELS], case_sensitive=False),
                default="normalized",
                show_default=True,
                callback=lambda _c, _p, v: check_model(v),
                help="Elo model of elo0 and elo1.",
            ),
            click.option("--alpha", type=float, default=0.05, show_default=True, help="False-positive rate."),
            click.option("--beta", type=float, default=0.05, show_default=True, help="False-negative rate."),
        ]
    ):
        f = decorator(f)
    return f


def check_hypothesis(
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    model: str,
    options: tuple[str, str] = ("--elo0", "--elo1"),
) -> None:
    """A BadParameter naming the option unless the statistics can compute the SPRT's hypothesis in
    ``model`` (see ``coordinator.stats.inputs.check_hypotheses``) and its error rates make sense;
    ``options`` name elo0 and elo1 (``--accept-elo0``, ...)."""
    try:
        check_hypotheses(elo0, elo1, model, options)
    except HypothesisError as e:
        raise click.BadParameter(e.expected, param_hint=e.name) from None
    for option, value in (("--alpha", alpha), ("--beta", beta)):
        if not 0 < value < 1:
            raise click.BadParameter(
                f"expected a number strictly between 0 and 1, got {value:g}", param_hint=option
            )
    if alpha + beta >= 1:
        raise click.UsageError(f"--alpha/--beta: expected alpha + beta < 1, got {alpha:g} + {beta:g}")


@dataclass(frozen=True)
class Side:
    """One side of a match as the command line names it: the built-in engine with weights, or
    an engine program (its weights then unused) with the archive of its files."""

    source: str
    weights: dict[str, int]
    program: EngineProgram | None = None
    archive: bytes | None = None
    #: A commit's place in its history, as the run records it (``refs.Commit.record``).
    commit: dict[str, Any] | None = None

    def keep(self, store: Store) -> None:
        """Keep the program's archive in the store (its runs ship it from there)."""
        if self.program is not None and self.archive is not None:
            store.keep_program(self.program.digest, self.program.name, self.archive)


def read_side(game: str, source: str, option: str) -> Side:
    """A side from ``default``, a weights JSON file, or an engine file (``.toml``); a
    BadParameter naming ``option`` and what is wrong."""
    from coordinator.sides.files import is_engine_file, read_program

    if not is_engine_file(source):
        return Side(source, read_weights(game, source, option))
    try:
        program, archive = read_program(source)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint=option) from None
    return Side(source, read_weights(game, "default", option), program, archive)


def read_ref_side(game: str, repo: str | None, ref: str, option: str) -> Side:
    """A side from a ref of a repository (default: arbiter's own): the commit it names, built
    by every worker; a BadParameter naming ``option`` when it cannot be resolved or built."""
    from coordinator.sides.refs import program_of, resolve, this_repository
    from worker.builds import BuildError

    try:
        commit = resolve(repo or this_repository(), ref)
        program = program_of(commit, game)
    except (ValueError, BuildError) as e:
        raise click.BadParameter(str(e), param_hint=option) from None
    return Side(
        f"{commit.short} ({ref})", read_weights(game, "default", option), program, commit=commit.record(ref)
    )


def probed(game: str, side: Side, limits: engine.Limits) -> Side:
    """``side`` with its program's determinism probed once (coordinator.sides.probe): a program
    that does not play alike again is shipped marked so, and its runs are unverifiable (said on
    stderr); spot checks then skip its batches. A program that fails its handshake stops the
    command before the store is touched (a UsageError: the engine file names a program that cannot
    play)."""
    if side.program is None:
        return side
    from coordinator.sides.probe import StartFailed, probe_program
    from wire.secrecy import without_keys

    timed = not limits.deterministic
    try:  # this process holds the fleet's secret: the program starts from one that never did
        program, note = without_keys(probe_program, side.program, side.archive, game, timed)
    except StartFailed as e:
        raise click.UsageError(f"{side.source}: {e}") from None
    if note is not None:
        click.echo(f"arbiter: note: {note}", err=True)
    return replace(side, program=program)


def check_programs_can_go(sides: tuple[Side, ...], broker: str | None) -> None:
    """A UsageError when a side is an engine program and batches would go to a fleet without
    keys: only a payload the coordinator signed may make a worker start a program."""
    from wire.sealing import SECRET_ENV, fleet_keys

    named = [s.source for s in sides if s.program is not None]
    if named and (broker or os.environ.get(BROKER_ENV)) and fleet_keys() is None:
        raise click.UsageError(
            f"{named[0]}: engine programs are sent only to a fleet with keys; set {SECRET_ENV} "
            "(docs/deploy.md, Security)"
        )


def read_weights(game: str, source: str, option: str) -> dict[str, int]:
    """Full weights for ``game`` from a JSON file, or the defaults for ``default``."""
    try:
        return engine.validate_weights(game, None if source == "default" else source)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint=option) from None


def read_book(game: str, book: str | None) -> tuple[str, list[str]]:
    """The book's path and its positions (the package's book for ``game`` by default)."""
    from coordinator.openings.book import default_book_path, load_book

    path = Path(book) if book is not None else default_book_path(game)
    if book is None and not path.is_file():
        raise click.BadParameter(
            f"no openings book ships for {game} yet ({path}); pass one with --book FILE",
            param_hint="'--book'",
        )
    try:
        return str(path), load_book(path, game)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--book'") from None


@contextmanager
def settled_heap() -> Iterator[None]:
    """While a run process plays its run: what exists before (modules, the store's tables, the
    configuration, the executor's connections) lives as long as the run, so it is kept out of
    the garbage collector's reach (``gc.freeze``), and given back after. Otherwise the
    collector's full passes walk it all again while the run makes and drops its records, which
    cost up to 4 µs of the coordinator's CPU per game in a short run (docs/performance.md,
    "Coordinator capacity")."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def open_executor(options: ExecutorOptions) -> Executor:
    """The executor a command plays on, announced on stderr. Opened before any run is created,
    so that an unreachable broker leaves the store untouched."""
    from coordinator.executors.select import make_executor

    ctx = click.get_current_context(silent=True)
    if ctx is not None and not options.broker_url:
        for name in ("verify_fraction", "priority"):
            if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE:
                option = "--" + name.replace("_", "-")
                raise click.UsageError(
                    f"{option} is about Celery workers: it needs --broker (or ${BROKER_ENV})"
                )
    executor = make_executor(options)
    where = executor.describe()
    if where:
        click.echo(f"arbiter: {where}", err=True)
        from wire.connectivity import exposure_warning
        from wire.sealing import fleet_keys

        urls = {options.broker_url, os.environ.get(RESULT_BACKEND_ENV, "").strip()}
        for url in sorted(urls - {""}):
            warning = exposure_warning(url, sealed=fleet_keys() is not None)
            if warning:
                click.echo(f"arbiter: warning: {warning}", err=True)
    return executor


def open_executor_and_store(options: ExecutorOptions, store_url: str | None) -> tuple[Executor, Store]:
    """The executor, then the store (so a bad broker never touches the store); the executor is
    closed again if the store cannot be opened."""
    from coordinator.store import Store

    executor = open_executor(options)
    try:
        return executor, Store(store_url)
    except BaseException:
        executor.close()
        raise


def open_existing_store(store_url: str | None) -> Store:
    """The store of a command that only reads or continues runs: it must exist already."""
    from coordinator.store import Store

    try:
        return Store(store_url, create=False)
    except FileNotFoundError as e:
        raise click.UsageError(str(e)) from None


def load_run(store: Store, run_id: int) -> Run:
    """The run ``run_id`` of the store, or a BadParameter naming it."""
    from coordinator.store import mask_url

    run = store.get_run(run_id)
    if run is None:
        raise click.BadParameter(f"no run {run_id} in store {mask_url(store.url)}", param_hint="RUN")
    return run


def create_or_resume(store: Store, kind: RunKind, config: RunConfig, finished_too: bool = False) -> Run:
    """The unfinished run of ``kind`` with this configuration (or, ``finished_too``, the latest
    finished one), else a new one (its configuration stored in its kind's form); says which on
    stderr. A failed run is never taken up again."""
    from coordinator.registry import kind_of
    from coordinator.store import mask_url

    fingerprint = config.fingerprint()
    run = store.find_same(kind, fingerprint, finished_too)
    what = kind_of(kind).noun
    if run is not None and run.state is RunState.FINISHED:
        click.echo(
            f"arbiter: {what} {run.id} already finished with the same configuration; showing it "
            "(another --seed or --store starts a new one)",
            err=True,
        )
        return run
    if run is not None:
        click.echo(f"arbiter: resuming {what} {run.id} with the same configuration", err=True)
        return run
    run = store.get_run(store.create_run(kind, config.game, kind_of(kind).encode(config), fingerprint))
    assert run is not None
    click.echo(f"arbiter: {what} {run.id} started (store {mask_url(store.url)})", err=True)
    return run


def check_engine_version(run: Run, played_by: str) -> None:
    """A BadParameter unless ``run`` was played by this engine (its games would differ)."""
    if played_by != engine.ENGINE_VERSION:
        raise click.BadParameter(
            f"run {run.id} was played by engine {played_by}, this is {engine.ENGINE_VERSION}",
            param_hint="RUN",
        )
