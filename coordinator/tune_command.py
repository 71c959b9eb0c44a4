"""`arbiter tune`: tune evaluation weights with Optuna; new champions must pass an SPRT."""

from __future__ import annotations

import json
import re
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

import engine
from coordinator.executors.base import Executor
from coordinator.executors.select import broker_option
from coordinator.files import write_atomically
from coordinator.limits import search_limits
from coordinator.scheduler import RunFailed
from coordinator.sprt_command import (
    GAME,
    concurrency_option,
    open_executor,
    open_executor_and_store,
    read_book,
    read_weights,
    store_option,
)
from coordinator.sprt_plan import DEFAULT_ADJUDICATION
from coordinator.sprt_report import ProgressPrinter
from coordinator.store import Run, Store
from coordinator.tuning.config import RUN_KIND, TuneConfig
from coordinator.tuning.records import TuningRecords
from coordinator.tuning.report import champions_table, progress_line, status_json, trials_table
from coordinator.tuning.space import SAMPLERS, tuned_names
from coordinator.tuning.tuner import TuneProgress, Tuner, elo_vs_start

DEFAULT_TUNE_NODES = 1000


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


class TunePrinter(ProgressPrinter):
    """Live progress on stderr, like the SPRT's (a redrawn line on a terminal)."""

    def __init__(self, max_trials: int | None) -> None:
        """Progress of a run that asks at most ``max_trials`` trials."""
        super().__init__()
        self.max_trials = max_trials

    def __call__(self, progress: TuneProgress) -> None:  # type: ignore[override]
        """Show the tuning progress line."""
        self.show(progress_line(progress, self.max_trials))


@contextmanager
def graceful_stop() -> Iterator[Callable[[], bool]]:
    """While the block runs, Ctrl-C and SIGTERM only ask the tuner to stop, which it does between
    two steps, never inside a store transaction (a KeyboardInterrupt raised there could leave an
    SQLite connection holding the write lock); a second signal interrupts at once."""
    requested: list[int] = []

    def handler(signum: int, _frame: Any) -> None:
        if requested:
            raise KeyboardInterrupt
        requested.append(signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield lambda: bool(requested)
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def drive(store: Store, run: Run, config: TuneConfig, executor: Executor, out: str | None) -> None:
    """Tune ``run`` with live progress; then write the champion and print the champions table."""
    printer = TunePrinter(config.max_trials)
    started = time.monotonic()
    try:
        with executor, graceful_stop() as stop:
            tuner = Tuner(store, run.id, config, executor, on_progress=printer, stop_requested=stop)
            final = tuner.run()
    except KeyboardInterrupt:
        printer.finish()
        click.echo(
            f"arbiter: tuning run {run.id} interrupted; continue it with: arbiter resume {run.id}", err=True
        )
        sys.exit(130)
    except RunFailed as e:
        printer.finish()
        store.update_run(run.id, state="failed", error=str(e), finished=True)
        click.echo(f"arbiter: tuning run {run.id} failed: {e}", err=True)
        sys.exit(1)
    printer.finish()
    records = TuningRecords(store)
    champions = records.champions(run.id)
    trials = records.trials(run.id)
    target = Path(out or f"{run.id}-champion.json")
    write_atomically(target, json.dumps(champions[-1].weights, indent=2, sort_keys=True) + "\n")
    states = {s: sum(t.state == s for t in trials) for s in ("complete", "pruned", "failed")}
    elo, half = elo_vs_start(champions, champions[-1].number)
    click.echo(
        f"tuning run {run.id} ({config.game}): {len(trials)} trials ({states['complete']} complete, "
        f"{states['pruned']} pruned, {states['failed']} failed), {final.games} games in "
        f"{time.monotonic() - started:.0f} s"
    )
    click.echo(champions_table(records, run.id, champions))
    verdict = (
        f"champion #{champions[-1].number} is {elo:+.1f} +- {half:.1f} Elo above the start weights"
        if len(champions) > 1
        else "no candidate passed its SPRT: the start weights remain the champion"
    )
    click.echo(f"{verdict}; weights written to {target}")


@click.command()
@click.argument("game", type=GAME, metavar="GAME")
@click.option("--params", metavar="A,B,C", help="Weights to tune (default: all of them).")
@click.option(
    "--start",
    "start_file",
    default="default",
    show_default=True,
    metavar="FILE|default",
    help="First champion.",
)
@click.option("--sampler", type=click.Choice(SAMPLERS), default="tpe", show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--trial-pairs", type=click.IntRange(1), default=32, show_default=True, help="Pairs per trial at most."
)
@click.option("--batch-pairs", type=click.IntRange(1), default=4, show_default=True, help="Pairs per batch.")
@click.option("--nodes", type=click.IntRange(min=1), help=f"Nodes per move (default {DEFAULT_TUNE_NODES}).")
@click.option("--depth", type=click.IntRange(min=1, max=100), help="Depth per move.")
@click.option("--movetime", type=click.IntRange(min=1), metavar="MS", help="Milliseconds per move.")
@click.option("--book", metavar="FILE", help="Openings book (default: the one shipped for GAME).")
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
@click.option("--accept-max-games", type=click.IntRange(2), default=4000, show_default=True)
@click.option("--max-trials", type=click.IntRange(1), default=50, show_default=True)
@click.option("--max-games", type=click.IntRange(1), help="Game budget (default: none).")
@click.option("--time-limit", metavar="DURATION", help="Stop after this long: 90s, 30m, 2h.")
@click.option("--out", metavar="FILE", help="Champion weights file (default: RUN-champion.json).")
@concurrency_option
@broker_option
@store_option
def tune(
    game: str,
    params: str | None,
    start_file: str,
    sampler: str,
    seed: int,
    trial_pairs: int,
    batch_pairs: int,
    nodes: int | None,
    depth: int | None,
    movetime: int | None,
    book: str | None,
    accept_elo0: float,
    accept_elo1: float,
    accept_margin: float,
    prune_los: float,
    accept_max_games: int,
    max_trials: int,
    max_games: int | None,
    time_limit: str | None,
    out: str | None,
    concurrency: int | None,
    broker: str | None,
    store_url: str | None,
) -> None:
    """Tune GAME's evaluation weights; a better candidate must pass an SPRT to become champion."""
    game = game.lower()
    names = [p.strip() for p in params.split(",") if p.strip()] if params else None
    try:
        tuned = tuned_names(game, names)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--params'") from None
    start = {k: int(v) for k, v in read_weights(game, start_file, "'--start'").items()}
    limits = search_limits(nodes, depth, movetime, {"nodes": DEFAULT_TUNE_NODES})
    book_path, openings = read_book(game, book)
    try:
        config = TuneConfig(
            game=game,
            params=tuned,
            start=start,
            openings=openings,
            engine_version=engine.ENGINE_VERSION,
            sampler=sampler,
            seed=seed,
            trial_pairs=trial_pairs,
            batch_pairs=batch_pairs,
            limits=limits,
            adjudication=dict(DEFAULT_ADJUDICATION),
            accept_elo0=accept_elo0,
            accept_elo1=accept_elo1,
            accept_margin=accept_margin,
            prune_los=prune_los,
            accept_max_games=accept_max_games,
            max_trials=max_trials,
            max_games=max_games,
            time_limit=parse_duration(time_limit),
            book=book_path,
            start_source=start_file,
        )
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    executor, store = open_executor_and_store(broker, concurrency, store_url)
    fingerprint = config.fingerprint()
    run = same_run(store, fingerprint)
    if run is None:
        run_id = store.create_run(RUN_KIND, game, config.to_json(), fingerprint)
        run = store.get_run(run_id)
        assert run is not None
        click.echo(f"arbiter: tuning run {run.id} started (store {store.url})", err=True)
    else:
        click.echo(f"arbiter: resuming tuning run {run.id} with the same configuration", err=True)
    drive(store, run, config, executor, out)


def same_run(store: Store, fingerprint: str) -> Run | None:
    """The run the same command started before: the latest unfinished one, else the latest
    finished one (it continues, e.g. for another --time-limit, or only reports when its budget is
    used). A failed run is not continued."""
    run = store.find_unfinished(RUN_KIND, fingerprint)
    if run is not None:
        return run
    same = [r for r in store.list_runs(RUN_KIND) if r.fingerprint == fingerprint]
    finished = [r for r in same if r.state == "finished"]
    return finished[-1] if finished else None


def resume_tune(store: Store, run: Run, concurrency: int | None, broker: str | None) -> None:
    """Continue a tuning run (called by `arbiter resume`)."""
    config = TuneConfig.from_json(run.config)
    if config.engine_version != engine.ENGINE_VERSION:
        raise click.BadParameter(
            f"run {run.id} was played by engine {config.engine_version}, this is {engine.ENGINE_VERSION}",
            param_hint="RUN",
        )
    click.echo(f"arbiter: resuming tuning run {run.id}", err=True)
    drive(store, run, config, open_executor(broker, concurrency), None)


def tune_status(store: Store, run: Run, as_json: bool) -> None:
    """Show a tuning run: trials, champions, total games (called by `arbiter status RUN`)."""
    records = TuningRecords(store)
    champions = records.champions(run.id)
    trials = records.trials(run.id)
    games = records.games(run.id)
    if as_json:
        click.echo(
            json.dumps(status_json(run.id, run.state, run.game, champions, trials, games), sort_keys=True)
        )
        return
    click.echo(f"tuning run {run.id} ({run.game}): {run.state}, {len(trials)} trials, {games} games")
    click.echo(trials_table(trials))
    click.echo(champions_table(records, run.id, champions))
