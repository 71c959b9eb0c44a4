"""``arbiter sprt``, ``arbiter status`` and ``arbiter resume``: SPRT tests on this machine.

``sprt`` validates every input before it touches the store (a bad weights file, book or bound
leaves the store as it was), records the full configuration with the run, and plays game pairs
on a local process pool until the SPRT decides or the game budget is used. Running the same
command again, or ``resume RUN``, continues an interrupted run with the same final counts.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

import engine
from coordinator.executors.base import Executor
from coordinator.executors.select import broker_option, make_executor
from coordinator.limits import search_limits
from coordinator.openings import default_book_path, load_book
from coordinator.scheduler import RUN_KIND, Progress, RunFailed, SprtRunner
from coordinator.sprt_plan import DEFAULT_ADJUDICATION, DEFAULT_BATCH_PAIRS, DEFAULT_NODES, SprtConfig
from coordinator.sprt_report import (
    STATUS_HEADER,
    ProgressPrinter,
    status_json,
    status_row,
    summary_of,
    summary_text,
)
from coordinator.store import Run, Store

TUNE_KIND = "tune"
#: Runs whose configuration is an SprtConfig: SPRT tests and the trials of tuning runs.
SPRT_KINDS = (RUN_KIND, "trial")

GAME = click.Choice(engine.GAMES, case_sensitive=False)
MODELS = ("normalized", "logistic", "bayeselo")
INTERRUPTED_EXIT = 130
FAILED_EXIT = 1

store_option = click.option(
    "--store",
    "store_url",
    metavar="URL",
    help="SQLAlchemy URL of the store (default: $ARBITER_STORE or sqlite:///arbiter.db).",
)
concurrency_option = click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    help="Worker processes: local ones (default: one per core), or with --broker the total across all "
    "Celery workers (default: discovered from them).",
)


def read_weights(game: str, source: str, option: str) -> dict[str, float]:
    """Full weights for ``game`` from a JSON file, or the defaults for ``default``."""
    if source == "default":
        return dict(engine.validate_weights(game, None))
    path = Path(source)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise click.BadParameter(f"cannot read {source}: {e.strerror or e}", param_hint=option) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise click.BadParameter(f"{source} is not JSON: {e}", param_hint=option) from None
    if not isinstance(data, dict):
        raise click.BadParameter(
            f'{source} must hold a JSON object like {{"name": value}}', param_hint=option
        )
    try:
        return dict(engine.validate_weights(game, data))
    except ValueError as e:
        raise click.BadParameter(f"{source}: {e}", param_hint=option) from None


def read_book(game: str, book: str | None) -> tuple[str, list[str]]:
    """The book's path and its positions (the package's book for ``game`` by default)."""
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


def warn_if_games_repeat(config: SprtConfig) -> None:
    """Say so when a depth-limited run may play more pairs than the book has openings.

    With a depth limit a game depends only on its opening and the weights, so a second pass through
    the book repeats the first one exactly and adds no information. (Node limits vary per pair with
    the batch seed, and time limits vary by themselves.)
    """
    pairs = len(config.openings)
    if "depth" not in config.limits or (config.max_games is not None and config.max_games <= 2 * pairs):
        return
    click.echo(
        f"arbiter: note: the book has {pairs} openings; games after the first {2 * pairs} "
        "repeat earlier ones exactly (use a larger book or --max-games)",
        err=True,
    )


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C while a run is playing (so ``kill`` also stops cleanly)."""

    def handler(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def open_executor(broker: str | None, concurrency: int | None) -> Executor:
    """The executor a command plays on, announced on stderr. Opened before any run is created,
    so that an unreachable broker leaves the store untouched."""
    executor = make_executor(broker, concurrency)
    describe = getattr(executor, "describe", None)
    if callable(describe):
        click.echo(f"arbiter: {describe()}", err=True)
    return executor


def open_executor_and_store(
    broker: str | None, concurrency: int | None, store_url: str | None
) -> tuple[Executor, Store]:
    """The executor, then the store (so a bad broker never touches the store); the executor is
    closed again if the store cannot be opened."""
    executor = open_executor(broker, concurrency)
    try:
        return executor, Store(store_url)
    except BaseException:
        executor.close()
        raise


def play(store: Store, run: Run, config: SprtConfig, executor: Executor) -> None:
    """Run ``run`` to its decision with live progress, then print the summary on stdout."""
    printer = ProgressPrinter()
    started = time.monotonic()
    try:
        with executor, sigterm_as_interrupt():
            runner = SprtRunner(store, run.id, config, executor, on_progress=printer)
            progress = runner.run()
    except KeyboardInterrupt:
        printer.finish()
        totals = store.totals(run.id)
        click.echo(
            f"arbiter: run {run.id} interrupted after {totals.games} counted games; "
            f"continue with: arbiter resume {run.id}",
            err=True,
        )
        sys.exit(INTERRUPTED_EXIT)
    except RunFailed as e:
        printer.finish()
        click.echo(f"arbiter: run {run.id} failed: {e}", err=True)
        sys.exit(FAILED_EXIT)
    printer.finish(progress)
    finished = store.get_run(run.id) or run
    click.echo(summary_text(finished, config, progress, time.monotonic() - started, cpu_seconds(store, run)))


def cpu_seconds(store: Store, run: Run) -> float:
    """Worker CPU time of the counted batches."""
    return store.totals(run.id).cpu_seconds


@click.command()
@click.argument("game", type=GAME, metavar="GAME")
@click.option("--candidate", required=True, metavar="FILE", help="Weights of the engine under test (JSON).")
@click.option(
    "--baseline", default="default", show_default=True, metavar="FILE|default", help="Weights to beat."
)
@click.option("--elo0", type=float, default=0.0, show_default=True, help="H0: the Elo difference is elo0.")
@click.option("--elo1", type=float, default=5.0, show_default=True, help="H1: the Elo difference is elo1.")
@click.option(
    "--model",
    type=click.Choice(MODELS, case_sensitive=False),
    default="normalized",
    show_default=True,
    help="Elo model of elo0/elo1.",
)
@click.option("--alpha", type=float, default=0.05, show_default=True, help="False-positive rate.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="False-negative rate.")
@click.option("--nodes", type=click.IntRange(min=1), help=f"Nodes per move (default {DEFAULT_NODES}).")
@click.option("--depth", type=click.IntRange(min=1, max=100), help="Depth per move.")
@click.option("--movetime", type=click.IntRange(min=1), metavar="MS", help="Milliseconds per move.")
@click.option("--book", metavar="FILE", help="Openings book (default: the one shipped for GAME).")
@click.option(
    "--batch-pairs",
    type=click.IntRange(min=1),
    default=DEFAULT_BATCH_PAIRS,
    show_default=True,
    help="Game pairs per batch (one SPRT update each).",
)
@click.option("--max-games", type=click.IntRange(min=1), help="Game budget (default: none).")
@concurrency_option
@broker_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the batch plan.")
@store_option
def sprt(
    game: str,
    candidate: str,
    baseline: str,
    elo0: float,
    elo1: float,
    model: str,
    alpha: float,
    beta: float,
    nodes: int | None,
    depth: int | None,
    movetime: int | None,
    book: str | None,
    batch_pairs: int,
    max_games: int | None,
    concurrency: int | None,
    broker: str | None,
    seed: int,
    store_url: str | None,
) -> None:
    """Play game pairs of a candidate against a baseline until the SPRT decides."""
    game = game.lower()
    limits = search_limits(nodes, depth, movetime, {"nodes": DEFAULT_NODES})
    candidate_weights = read_weights(game, candidate, "'--candidate'")
    baseline_weights = read_weights(game, baseline, "'--baseline'")
    book_path, openings = read_book(game, book)
    try:
        config = SprtConfig(
            game=game,
            candidate=candidate_weights,
            baseline=baseline_weights,
            openings=openings,
            engine_version=engine.ENGINE_VERSION,
            elo0=elo0,
            elo1=elo1,
            elo_model={"bayeselo": "BayesElo"}.get(model.lower(), model.lower()),
            alpha=alpha,
            beta=beta,
            limits=limits,
            adjudication=dict(DEFAULT_ADJUDICATION),
            batch_pairs=batch_pairs,
            max_games=max_games,
            seed=seed,
            book=book_path,
            candidate_source=candidate,
            baseline_source=baseline,
        )
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    executor, store = open_executor_and_store(broker, concurrency, store_url)
    warn_if_games_repeat(config)
    fingerprint = config.fingerprint()
    run = store.find_unfinished(RUN_KIND, fingerprint)
    if run is None:
        run_id = store.create_run(RUN_KIND, game, config.to_json(), fingerprint)
        run = store.get_run(run_id)
        assert run is not None
        click.echo(f"arbiter: run {run.id} started (store {store.url})", err=True)
    else:
        click.echo(f"arbiter: resuming run {run.id} with the same configuration", err=True)
    play(store, run, config, executor)


def load_run(store: Store, run_id: int) -> Run:
    """The run ``run_id`` of the store, or a BadParameter naming it."""
    run = store.get_run(run_id)
    if run is None:
        raise click.BadParameter(f"no run {run_id} in store {store.url}", param_hint="RUN")
    return run


@click.command()
@click.argument("run_id", type=int, metavar="RUN")
@concurrency_option
@broker_option
@store_option
def resume(run_id: int, concurrency: int | None, broker: str | None, store_url: str | None) -> None:
    """Continue an interrupted SPRT or tuning run where it stopped."""
    store = Store(store_url)
    run = load_run(store, run_id)
    if run.kind == TUNE_KIND:
        from coordinator.tune_command import resume_tune

        resume_tune(store, run, concurrency, broker)
        return
    if run.kind != RUN_KIND:
        raise click.BadParameter(f"run {run_id} is a {run.kind} run, not an SPRT", param_hint="RUN")
    config = SprtConfig.from_json(run.config)
    if config.engine_version != engine.ENGINE_VERSION:
        raise click.BadParameter(
            f"run {run_id} was played by engine {config.engine_version}, this is {engine.ENGINE_VERSION}",
            param_hint="RUN",
        )
    if run.state == "finished":
        progress = stored_progress(store, run)
        assert progress is not None
        click.echo(f"arbiter: run {run_id} is already finished", err=True)
        click.echo(summary_text(run, config, progress, 0.0, store.totals(run.id).cpu_seconds))
        return
    click.echo(f"arbiter: resuming run {run_id}", err=True)
    play(store, run, config, open_executor(broker, concurrency))


def stored_progress(store: Store, run: Run) -> Progress | None:
    """Counts and LLR of a run's counted batches as the store has them (None if not an SPRT)."""
    if run.kind not in SPRT_KINDS:
        return None
    config = SprtConfig.from_json(run.config)
    totals = store.totals(run.id)
    s = summary_of(config, totals.pentanomial, totals.wdl)
    return Progress(
        run_id=run.id,
        counted_batches=run.counted_batches,
        pentanomial=totals.pentanomial,
        wdl=totals.wdl,
        llr=s["llr"],
        lower_bound=s["lower_bound"],
        upper_bound=s["upper_bound"],
        decision=run.decision,
        stored_batches=len(store.results(run.id)),
        in_flight=0,
        elapsed=0.0,
        games_played_here=0,
        max_games=config.max_games,
    )


def games_of(store: Store, run: Run) -> int:
    """Games stored for a run that is not an SPRT (a tuning run: all its trials and SPRTs)."""
    if run.kind == TUNE_KIND:
        from coordinator.tuning.records import TuningRecords

        return TuningRecords(store).games(run.id)
    return store.totals(run.id).games


@click.command()
@click.argument("run_id", type=int, metavar="[RUN]", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (with RUN).")
@store_option
def status(run_id: int | None, as_json: bool, store_url: str | None) -> None:
    """List the runs of the store, or show one run."""
    store = Store(store_url)
    if run_id is None:
        if as_json:
            raise click.UsageError("--json needs a RUN")
        click.echo(STATUS_HEADER)
        for run in store.list_runs():
            p = stored_progress(store, run)
            if p is None:
                click.echo(status_row(run, games_of(store, run), "-", "-"))
                continue
            s = summary_of(SprtConfig.from_json(run.config), p.pentanomial, p.wdl)
            elo = f"{s['elo']:+.1f} +- {s['elo95']:.1f}" if p.games else "-"
            click.echo(status_row(run, p.games, elo, f"{p.llr:.2f}"))
        return
    run = load_run(store, run_id)
    if run.kind == TUNE_KIND:
        from coordinator.tune_command import tune_status

        tune_status(store, run, as_json)
        return
    p = stored_progress(store, run)
    data = status_json(run, p, store.refusals(run.id), store.totals(run.id))
    if as_json:
        click.echo(json.dumps(data, sort_keys=True))
        return
    for key in ("id", "kind", "game", "state", "decision", "games", "pentanomial", "wdl"):
        if key in data:
            click.echo(f"{key}: {data[key]}")
    if p is not None:
        click.echo(
            f"llr: {data['llr']:.2f} [{data['lower_bound']:.2f}, {data['upper_bound']:.2f}]\n"
            f"elo: {data['elo']:.2f} +- {data['elo95']:.2f} (95%)  los: {100 * data['los']:.1f}%\n"
            f"batches: {data['counted_batches']} counted, {data['stored_batches']} stored"
        )
    if run.error:
        click.echo(f"error: {run.error}")
    for refusal in data["refused"]:
        click.echo(
            f"refused batch {refusal['batch']} ({refusal['attempts']} attempts, {refusal['state']}): "
            f"{refusal['reason']}"
        )
