"""``arbiter sprt``: play game pairs of a candidate against a baseline until the SPRT decides.

Every input is validated before the store is touched (a bad weights file, book or bound leaves the
store as it was); the full configuration is recorded with the run. Running the same command again,
or ``arbiter resume RUN``, continues an interrupted run with the same final counts.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import click

import engine
from coordinator.cli.hints import resume_hint
from coordinator.cli.options import (
    Side,
    batch_pairs_for,
    batch_pairs_option,
    batch_seconds_option,
    book_option,
    broker_option,
    check_batch_time,
    check_hypothesis,
    check_programs_can_go,
    concurrency_option,
    create_or_resume,
    game_argument,
    hypothesis_options,
    limit_options,
    open_executor_and_store,
    priority_option,
    probed,
    read_book,
    read_ref_side,
    read_side,
    search_limits,
    seed_option,
    store_option,
    verify_option,
)
from coordinator.cli.progress import ProgressPrinter
from coordinator.cli.signals import graceful_stop
from coordinator.defaults import ADJUDICATION, SPRT_BATCH_PAIRS, SPRT_LIMITS
from coordinator.executors.options import ExecutorOptions
from coordinator.refs import DEFAULT_BASE
from coordinator.runs import RunKind
from coordinator.sprt.config import SprtConfig

if TYPE_CHECKING:  # the store and the runner (SQLAlchemy) load only once the inputs are good
    from coordinator.executors.base import Executor
    from coordinator.sprt.runner import MatchPlan, Progress
    from coordinator.store import Run, Store

INTERRUPTED_EXIT = 130
FAILED_EXIT = 1


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


def run_with_progress(
    store: Store,
    run: Run,
    config: MatchPlan,
    executor: Executor,
    line: Callable[[Progress], str],
    noun: str = "run",
) -> Progress:
    """Run ``run`` to its end with live progress lines (``line`` of each progress); its final
    progress. Ctrl-C or SIGTERM stop it between two steps (never inside a transaction) and exit
    saying how ``arbiter resume`` continues it; a failed run exits with its reason."""
    from coordinator.sprt.runner import RunFailed, SprtRunner

    printer = ProgressPrinter()
    try:
        with executor, graceful_stop() as stop:
            runner = SprtRunner(store, run.id, config, executor, on_progress=lambda p: printer.show(line(p)))
            progress = runner.run(stop_requested=stop)
    except KeyboardInterrupt:
        printer.finish()
        click.echo(
            f"arbiter: {noun} {run.id} interrupted after {store.totals(run.id).games} counted games; "
            f"continue with: {resume_hint(run.id, store.url)}",
            err=True,
        )
        sys.exit(INTERRUPTED_EXIT)
    except RunFailed as e:
        printer.finish()
        click.echo(f"arbiter: {noun} {run.id} failed: {e}", err=True)
        sys.exit(FAILED_EXIT)
    printer.finish(line(progress))
    return progress


def play(store: Store, run: Run, config: SprtConfig, executor: Executor) -> None:
    """Run ``run`` to its decision with live progress, then print the summary on stdout."""
    from coordinator.sprt.report import progress_line, stored_progress, summary_text

    started = time.monotonic()
    progress = run_with_progress(store, run, config, executor, progress_line)
    finished = store.get_run(run.id) or run
    cpu = store.totals(run.id).cpu_seconds
    stored = replace(stored_progress(store, finished), games_played_here=progress.games_played_here)
    click.echo(summary_text(finished, config, stored, time.monotonic() - started, cpu))


def match_sides(
    game: str,
    candidate: str | None,
    baseline: str,
    candidate_ref: str | None,
    baseline_ref: str | None,
    repo: str | None,
) -> tuple[Side, Side]:
    """The two sides the options name: weights, engine files or commits of ``repo``. A commit
    under test plays its base (``--baseline-ref``, default main) unless ``--baseline`` is given."""
    ctx = click.get_current_context()
    baseline_given = ctx.get_parameter_source("baseline") is not click.core.ParameterSource.DEFAULT
    if (candidate is None) == (candidate_ref is None):
        raise click.UsageError("give the engine under test with --candidate or --candidate-ref (one of them)")
    if baseline_ref is not None and baseline_given:
        raise click.UsageError("give the engine to beat with --baseline or --baseline-ref (one of them)")
    if repo is not None and candidate_ref is None and baseline_ref is None:
        raise click.UsageError("--repo names the repository of --candidate-ref or --baseline-ref")
    if candidate_ref is not None:
        first = read_ref_side(game, repo, candidate_ref, "'--candidate-ref'")
    else:
        assert candidate is not None
        first = read_side(game, candidate, "'--candidate'")
    if baseline_ref is not None or (candidate_ref is not None and not baseline_given):
        second = read_ref_side(game, repo, baseline_ref or DEFAULT_BASE, "'--baseline-ref'")
    else:
        second = read_side(game, baseline, "'--baseline'")
    return first, second


@click.command()
@game_argument()
@click.option(
    "--candidate",
    metavar="FILE",
    help="The engine under test: weights (JSON) of the built-in engine, or an engine file (.toml).",
)
@click.option(
    "--baseline",
    default="default",
    show_default=True,
    metavar="FILE|default",
    help="The engine to beat: weights (JSON), default, or an engine file (.toml).",
)
@click.option(
    "--candidate-ref", metavar="REF", help="Test a commit of --repo (a branch, tag or SHA) instead."
)
@click.option(
    "--baseline-ref",
    metavar="REF",
    help=f"The commit to beat (with --candidate-ref: default {DEFAULT_BASE}).",
)
@click.option("--repo", metavar="URL", help="The repository of the refs (default: arbiter's own checkout).")
@hypothesis_options
@limit_options(f"{SPRT_LIMITS.nodes}")
@book_option
@batch_pairs_option(SPRT_BATCH_PAIRS)
@batch_seconds_option
@click.option(
    "--max-games",
    type=click.IntRange(2, 10**9),
    help="Play at most this many games (the last batch is cut to fit; default: no cap).",
)
@concurrency_option
@broker_option
@verify_option
@priority_option
@seed_option
@store_option
def sprt(
    game: str,
    candidate: str | None,
    baseline: str,
    candidate_ref: str | None,
    baseline_ref: str | None,
    repo: str | None,
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
    batch_pairs: int,
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
    check_hypothesis(elo0, elo1, alpha, beta, model)
    limits = search_limits(nodes, depth, movetime, SPRT_LIMITS, tc, timemargin)
    batch_pairs = batch_pairs_for(click.get_current_context(), batch_pairs, batch_seconds, game, limits)
    check_batch_time(game, limits, batch_pairs, broker)
    sides = match_sides(game, candidate, baseline, candidate_ref, baseline_ref, repo)
    check_programs_can_go(sides, broker)
    sides = (probed(game, sides[0], limits), probed(game, sides[1], limits))
    book_path, openings = read_book(game, book)
    try:
        config = SprtConfig(
            game=game,
            candidate=sides[0].weights,
            baseline=sides[1].weights,
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
            candidate_source=sides[0].source,
            baseline_source=sides[1].source,
            candidate_program=sides[0].program,
            baseline_program=sides[1].program,
            scale_time=not limits.deterministic,
            candidate_commit=sides[0].commit,
            baseline_commit=sides[1].commit,
        )
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    options = ExecutorOptions(broker, concurrency, verify_fraction, priority)
    executor, store = open_executor_and_store(options, store_url)
    for side in sides:
        side.keep(store)
    warn_if_games_repeat(config)
    run = create_or_resume(
        store, RunKind.SPRT, game, config.to_json(), config.fingerprint(), finished_too=True
    )
    config = SprtConfig.from_json(run.config)  # a run found again keeps its programs' probe findings
    play(store, run, config, executor)
