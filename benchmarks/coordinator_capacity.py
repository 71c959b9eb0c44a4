"""How many games per second one coordinator core takes in, and so how many worker cores it feeds.

The coordinator's own CPU per game is measured on the real loop (``SprtRunner.run``: dispatch, poll,
check every result by replaying its games through the rules core, store it, count the SPRT) with
the workers in other processes: ``time.process_time()`` of this process around the run counts the
coordinator and its executor's threads, never the workers.

To load the coordinator as a fleet of about a thousand cores would, the workers answer from a
cache: every batch of the run is first played once for real (on this machine's cores), and then
the measured runs are served by workers that return those results at once
(``benchmarks/cached_worker.py``: the same games, so every replay check passes, as from an
honest and very fast worker). The coordinator is then the bottleneck, and its CPU per game is
what it costs at full load, not diluted by waiting. It is measured on both executors (the local
process pool and Celery workers over a real redis-server on loopback) and both stores (a SQLite
file and a PostgreSQL database on a throwaway cluster, or ``--postgres URL``). The capacity in
worker cores is ``(games/s per coordinator core) / (games/s per worker core)``, the latter from
the real playing of the first phase. Finally one Celery run is profiled with cProfile, and the
coordinator's CPU is split by phase.

    python benchmarks/coordinator_capacity.py                  # ~5 minutes on 2 cores (mostly playing)
    python benchmarks/coordinator_capacity.py --batches 48 --pairs 128 --rounds 3
    python benchmarks/coordinator_capacity.py --cache /tmp/capacity.jsonl   # keep the played games
    python benchmarks/coordinator_capacity.py --postgres postgresql://USER:PASSWORD@HOST/DB
    nice python benchmarks/coordinator_capacity.py --nodes 50 --runs 20 --stores sqlite --no-profile

By default the batches are the size ``arbiter sprt GAME --nodes N`` chooses when given neither
``--batch-pairs`` nor ``--batch-seconds`` (``--pairs 8`` was the old default). ``--runs N`` plays
N runs at once, each in a process of its own as ``arbiter server`` plays them (a run process with
its runner and its executor: its own local pool, or a client of the one Celery fleet they share);
each measures its own CPU (``resource.getrusage(RUSAGE_SELF)``: its threads, not its pool's
processes) around its run, and the figure is their sum over the games of all runs.

Figures go to docs/performance.md; the numbers of one run are only compared with each other.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import inspect
import json
import os
import pstats
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any

import engine
from coordinator.cli.options import settled_heap
from coordinator.executors.base import Executor
from coordinator.executors.celery.executor import CeleryExecutor
from coordinator.executors.local import LocalExecutor
from coordinator.openings.book import default_book_path, load_book
from coordinator.runs import RunKind
from coordinator.sizing import default_batch_pairs
from coordinator.sprt.config import BatchPlan, SprtConfig
from coordinator.sprt.runner import SprtRunner
from coordinator.stats import SprtParams
from coordinator.store import Store, mask_url
from coordinator.trust.answers import check_answer
from wire.protocol import ResultReport

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cached_worker import CACHE_ENV, answer, payload_key
from local_redis import START_TIMEOUT, redis_command, wait_for, wait_for_redis

REPO = Path(__file__).resolve().parents[1]
#: The longest the measured runs may take together (seconds).
RUN_TIMEOUT = 1800.0
#: The phases of the coordinator's loop, with the function whose cumulative time is the phase's;
#: they nest (the sub-phases are indented). "submit" and "completed" are the profiled executor's.
PHASES: tuple[tuple[str, Callable[..., Any] | str], ...] = (
    ("receive a result (SprtRunner.receive)", SprtRunner.receive),
    ("  parse the JSON result (ResultReport.from_json)", ResultReport.from_json),
    ("  check it against the payload, replay every game (check_answer)", check_answer),
    ("  store result and records (Store.record_result)", Store.record_result),
    ("  read the stored counts back (Store.result)", Store.result),
    ("  rebuild the batch's payload (SprtRunner.payload)", SprtRunner.payload),
    ("send batches (SprtRunner.fill)", SprtRunner.fill),
    ("  mark each batch sent (Store.start_batch)", Store.start_batch),
    ("  hand it to the executor (Executor.submit)", "submit"),
    ("wait for results, poll (Executor.completed)", "completed"),
    ("count the prefix, update the SPRT, save it (SprtRunner.count)", SprtRunner.count),
)


@dataclass
class Row:
    """One measured configuration."""

    executor: str
    store: str
    games: int
    wall: float
    cpu: float
    runs: int = 1
    #: CPU seconds by timed phase, summed over the runs (``--phases``).
    phases: dict[str, float] = dataclasses.field(default_factory=dict)

    @property
    def ms_per_game(self) -> float:
        """Coordinator CPU milliseconds per game."""
        return 1000 * self.cpu / self.games

    @property
    def capacity(self) -> float:
        """Games per second one coordinator core can take."""
        return self.games / self.cpu


def config_for(game: str, batches: int, pairs: int, nodes: int, seed: int) -> SprtConfig:
    """An SPRT of ``batches`` batches as ``arbiter sprt`` makes it (shipped book, default
    adjudication), of a candidate close to the defaults with SPRT bounds wide enough that it
    uses its whole budget."""
    return SprtConfig(
        game=game,
        candidate=engine.validate_weights(game, {"pawn": 110}),
        baseline=engine.validate_weights(game, None),
        openings=load_book(default_book_path(game), game),
        engine_version=engine.ENGINE_VERSION,
        elo0=-10.0,
        elo1=10.0,
        alpha=0.001,
        beta=0.001,
        limits=engine.Limits(nodes=nodes),
        batch_pairs=pairs,
        max_games=2 * pairs * batches,
        seed=seed,
    )


def default_pairs(game: str, nodes: int) -> int:
    """The pairs per batch ``arbiter sprt GAME --nodes NODES`` chooses by default (its default
    hypothesis: the measured runs' own bounds are wide only so that they use their whole budget)."""
    return default_batch_pairs(game, engine.Limits(nodes=nodes), SprtParams(0.0, 5.0))


def play_cache(config: SprtConfig, workers: int, path: Path) -> tuple[int, float]:
    """Play every batch of ``config`` once for real on ``workers`` local processes and write the
    results to the cache file ``path`` (kept from an earlier run when it has every batch); the
    games and the worker CPU seconds they took (the speed of one worker core)."""
    plan = BatchPlan(config)
    assert config.max_batches is not None
    payloads = [plan.payload(0, i) for i in range(config.max_batches)]
    wanted = {payload_key(p) for p in payloads}
    cached: dict[str, dict[str, Any]] = {}
    if path.exists():
        with path.open(encoding="utf-8") as f:
            cached = {e["key"]: e["result"] for e in map(json.loads, f) if e["key"] in wanted}
    missing = [p for p in payloads if payload_key(p) not in cached]
    if missing:
        print(f"playing {len(missing)} batches once for the cache ...", file=sys.stderr)
        with LocalExecutor(workers) as pool:
            for p in missing:
                pool.submit(p)
            while pool.in_flight():
                for outcome in pool.completed(timeout=60):
                    if outcome.error is not None:
                        raise SystemExit(
                            f"coordinator_capacity: batch {outcome.batch_index}: {outcome.error}"
                        )
                    cached[payload_key(payloads[outcome.batch_index])] = outcome.result
        with path.open("w", encoding="utf-8") as f:
            for key, result in cached.items():
                f.write(json.dumps({"key": key, "result": result}) + "\n")
    results = [cached[payload_key(p)] for p in payloads]
    return sum(len(r["games"]) for r in results), sum(float(r["cpu_seconds"]) for r in results)


def coordinate(store: Store, config: SprtConfig, executor: Executor, profile: cProfile.Profile | None) -> Row:
    """Run ``config`` to its end on ``executor`` and ``store``; the coordinator's CPU and wall time."""
    run_id = store.create_run(RunKind.SPRT, config.game, config.to_json(), config.fingerprint())
    runner = SprtRunner(store, run_id, config, executor)
    wall, cpu = time.perf_counter(), time.process_time()
    if profile is not None:
        profile.enable()
    progress = runner.run()
    if profile is not None:
        profile.disable()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return Row("", "", progress.games_played_here, wall, cpu)


def cpu_seconds() -> float:
    """CPU time of this process (all its threads, none of its children), user and system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


#: The phases ``--phases`` times in each run process (``time.process_time()`` around each call, no
#: profiler): label, the owner of the function and its name. They nest as indented; "the rest" is
#: the run's CPU outside them (polling or waiting for results, the loop, progress).
TIMED_PHASES: tuple[tuple[str, str], ...] = (
    ("receive a result", "SprtRunner.receive"),
    ("  parse, check, replay and tally it", "SprtRunner._checked"),
    ("    parse and type-check all but the records", "ResultReport.from_json"),
    ("    the records: shape, pairs, counts, replay (engine.check_records)", "check_records"),
    ("  store result and records", "Store.record_result"),
    ("send batches", "SprtRunner.fill"),
    ("  mark each batch sent", "Store.start_batch"),
    ("  hand it to the executor", "submit"),
    ("count the prefix, update the SPRT, save it", "SprtRunner.count"),
)


def time_phases(executor: Executor) -> dict[str, float]:
    """Wrap each function of :data:`TIMED_PHASES` with a CPU timer; the seconds, by phase name,
    filled in as the run goes."""
    spent = {name: 0.0 for _label, name in TIMED_PHASES}

    def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] += time.process_time() - start

        return wrapper

    for cls, name in (
        (SprtRunner, "receive"),
        (SprtRunner, "_checked"),
        (SprtRunner, "fill"),
        (SprtRunner, "count"),
    ):
        setattr(cls, name, timed(f"SprtRunner.{name}", getattr(cls, name)))
    for name in ("record_result", "start_batch"):
        setattr(Store, name, timed(f"Store.{name}", getattr(Store, name)))
    executor_class: Any = type(executor)
    executor_class.submit = timed("submit", executor_class.submit)
    parse = ResultReport.from_json.__func__  # type: ignore[attr-defined]
    ResultReport.from_json = classmethod(timed("ResultReport.from_json", parse))  # type: ignore[assignment,method-assign]
    engine.check_records = timed("check_records", engine.check_records)  # as check_answer calls it
    return spent


def child(args: argparse.Namespace) -> None:
    """One run process: open the store and the executor, warm up, say ``ready``, wait for ``go``
    on stdin, run the SPRT to its end and print its games, wall and CPU seconds as JSON."""
    config = config_for(args.game, args.batches, args.pairs, args.nodes, args.seed)
    executor: Executor
    if args.executor == "Celery":
        executor = CeleryExecutor(args.broker, lease_seconds=600)
    else:
        executor = LocalExecutor(args.workers, task=answer)
    store = Store(args.store_url)
    with executor:
        if isinstance(executor, CeleryExecutor):
            wait_for(lambda: len(executor.discover_workers()) >= args.workers, "the Celery workers")
        coordinate(store, warmup(config), executor, None)
        run_id = store.create_run(RunKind.SPRT, config.game, config.to_json(), config.fingerprint())
        runner = SprtRunner(store, run_id, config, executor)
        spent = time_phases(executor) if args.phases else {}
        with settled_heap():  # as arbiter sprt and arbiter resume play
            print("ready", flush=True)
            sys.stdin.readline()
            wall, cpu = time.perf_counter(), cpu_seconds()
            progress = runner.run()
            cpu, wall = cpu_seconds() - cpu, time.perf_counter() - wall
            report = {"games": progress.games_played_here, "wall": wall, "cpu": cpu, "phases": spent}
            print(json.dumps(report), flush=True)
    store.close()


def read_line(process: subprocess.Popen[str], deadline: float, what: str) -> str:
    """The next line ``process`` prints, waiting until ``deadline`` (``time.monotonic()``) at most."""
    assert process.stdout is not None
    remaining = deadline - time.monotonic()
    if remaining <= 0 or not select.select([process.stdout], [], [], remaining)[0]:
        raise SystemExit(f"coordinator_capacity: timed out waiting for {what}")
    line = process.stdout.readline()
    if not line:
        raise SystemExit(f"coordinator_capacity: a run process ended before {what} (see its stderr)")
    return line


def run_processes(
    args: argparse.Namespace, runs: int, executor: str, store_url: str, broker: str, cache: Path
) -> Row:
    """``runs`` run processes at once on ``executor`` and the one store ``store_url``: the
    games of all, the wall time from their start to the last end, and the sum of their CPU."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", "--executor", executor]
    argv += ["--store-url", store_url, "--broker", broker, "--workers", str(args.workers)]
    argv += ["--game", args.game, "--batches", str(args.batches), "--pairs", str(args.pairs)]
    argv += ["--nodes", str(args.nodes), "--seed", str(args.seed)] + (["--phases"] if args.phases else [])
    env = {**os.environ, CACHE_ENV: str(cache)}
    processes = [
        subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
        for _ in range(runs)
    ]
    try:
        deadline = time.monotonic() + START_TIMEOUT * max(1, runs // 2)
        for process in processes:
            read_line(process, deadline, "a run process to be ready")
        start = time.perf_counter()
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        deadline = time.monotonic() + RUN_TIMEOUT
        reports = [json.loads(read_line(p, deadline, "a run's end")) for p in processes]
        wall = time.perf_counter() - start
        for process in processes:
            try:
                process.wait(timeout=START_TIMEOUT)
            except subprocess.TimeoutExpired:
                raise SystemExit("coordinator_capacity: a run process hung closing its executor") from None
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=START_TIMEOUT)
    games = sum(int(r["games"]) for r in reports)
    row = Row(executor, "", games, wall, sum(float(r["cpu"]) for r in reports), runs)
    for report in reports:
        for name, seconds in report["phases"].items():
            row.phases[name] = row.phases.get(name, 0.0) + float(seconds)
    return row


class Fleet:
    """A redis-server on a free loopback port and cached Celery workers of one process each."""

    def __init__(self, folder: Path, workers: int, cache: Path) -> None:
        """Start redis-server and ``workers`` workers answering from ``cache``."""
        self.cache = cache
        server, self.url = redis_command(folder)
        self.folder = folder
        self.processes: list[subprocess.Popen[bytes]] = []
        self._spawn(server)
        wait_for_redis(self.url)
        for i in range(workers):
            argv = [sys.executable, "-m", "celery", "-A", "benchmarks.cached_worker", "worker"]
            argv += ["--hostname", f"w{i}@capacity", "--concurrency", "1", "--loglevel", "WARNING"]
            argv += ["--without-gossip", "--without-mingle"]
            self._spawn(argv)

    def _spawn(self, argv: list[str]) -> None:
        env = {**os.environ, "ARBITER_BROKER": self.url, CACHE_ENV: str(self.cache)}
        log = open(self.folder / f"fleet-{len(self.processes)}.log", "wb")  # noqa: SIM115 - closed by the child's exit
        self.processes.append(
            subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=REPO
            )
        )
        log.close()

    def stop(self) -> None:
        """Kill everything started here."""
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@contextmanager
def postgres(url: str | None, folder: Path) -> Iterator[Callable[[str], str] | None]:
    """A function giving a PostgreSQL store URL per label: ``url`` itself, or a fresh database on a
    throwaway cluster (tests/pg_testkit.py); None if PostgreSQL is not available here."""
    if url is not None:  # every run in the one database given (each run has its own id)
        yield lambda _label: url
        return
    sys.path.insert(0, str(REPO / "tests"))
    try:
        import pg_testkit
    except ImportError as e:
        print(f"(PostgreSQL rows skipped: {e})", file=sys.stderr)
        yield None
        return
    reason = pg_testkit.unavailable_reason()
    if reason is not None:
        print(f"(PostgreSQL rows skipped: {reason})", file=sys.stderr)
        yield None
        return
    server = pg_testkit.start_server()
    try:
        yield lambda label: server.url(server.database(label))
    finally:
        server.stop()


def phase_table(stats: pstats.Stats, executor: Executor, games: int, cpu: float) -> list[str]:
    """Markdown rows: each phase's cumulative CPU per game and share of the coordinator's CPU."""
    entries: dict[tuple[str, int, str], Any] = stats.stats  # type: ignore[attr-defined]
    total = sum(tt for (_cc, _nc, tt, _ct, _callers) in entries.values())
    scale = cpu / total if total else 1.0  # cProfile's own overhead inflates everything alike
    rows = []
    for label, phase in PHASES:
        function = getattr(type(executor), phase) if isinstance(phase, str) else phase
        code = inspect.unwrap(function).__code__
        found = entries.get((code.co_filename, code.co_firstlineno, code.co_name))
        seconds = (found[3] if found else 0.0) * scale
        rows.append(f"| {label} | {1e6 * seconds / games:.1f} | {100 * seconds / cpu:.0f}% |")
    return rows


def main() -> None:
    """Measure every configuration, print markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="congo", choices=engine.GAMES)
    parser.add_argument("--batches", type=int, default=24, help="batches per measured run")
    parser.add_argument(
        "--pairs", default="default", help="pairs per batch, or 'default': what arbiter sprt chooses"
    )
    parser.add_argument("--nodes", type=int, default=2000, help="nodes per move (arbiter sprt's default)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (each local pool, Celery)")
    parser.add_argument(
        "--runs",
        type=int,
        nargs="+",
        default=[1],
        help="runs at once, each in a process of its own (each count)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="repetitions; the lowest CPU per game counts")
    parser.add_argument(
        "--executors", nargs="+", default=["local", "celery"], choices=["local", "celery"], help="measured"
    )
    parser.add_argument(
        "--stores",
        nargs="+",
        default=["sqlite", "postgresql"],
        choices=["sqlite", "postgresql"],
        help="measured",
    )
    parser.add_argument(
        "--cache", type=Path, help="file of played batches to keep and reuse (default: temporary)"
    )
    parser.add_argument("--postgres", help="a PostgreSQL URL to use instead of a throwaway cluster")
    parser.add_argument("--no-profile", action="store_true", help="skip the profiled run")
    parser.add_argument(
        "--phases", action="store_true", help="time each phase in every run process (no profiler)"
    )
    parser.add_argument("--top", type=int, default=15, help="functions listed from the profile")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # a run process
    parser.add_argument("--executor", help=argparse.SUPPRESS)
    parser.add_argument("--store-url", help=argparse.SUPPRESS)
    parser.add_argument("--broker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.pairs = default_pairs(args.game, args.nodes) if args.pairs == "default" else int(args.pairs)
    if args.child:
        child(args)
        return

    config = config_for(args.game, args.batches, args.pairs, args.nodes, args.seed)
    folder = Path(tempfile.mkdtemp(prefix="arbiter-capacity-"))
    cache = args.cache or folder / "played.jsonl"
    speed_games, speed_cpu = play_cache(config, args.workers, cache)
    worker_rate = speed_games / speed_cpu
    os.environ[CACHE_ENV] = str(cache)  # the local pool's processes answer from it too

    rows: list[Row] = []
    profile = cProfile.Profile(time.process_time)  # CPU, not wall time: waiting costs nothing
    profiled: Row | None = None
    profiled_executor: Executor | None = None
    fleet = Fleet(folder, args.workers, cache)
    pg_note = "not measured"
    try:
        with postgres(args.postgres, folder) if "postgresql" in args.stores else nullcontext() as pg:
            stores: dict[str, Callable[[str], str]] = {}
            if "sqlite" in args.stores:
                stores["SQLite"] = lambda label: f"sqlite:///{folder / label}.db"
            if pg is not None:
                stores["PostgreSQL"] = pg
            executors = [
                name for name in ("local pool", "Celery") if name.split()[0].lower() in args.executors
            ]
            best: dict[tuple[str, str, int], Row] = {}
            for round_number in range(args.rounds):
                for runs, executor_name, (store_name, make_url) in product(
                    args.runs, executors, stores.items()
                ):
                    label = f"{executor_name}-{store_name}-{runs}-{round_number}".replace(" ", "_").lower()
                    row = run_processes(args, runs, executor_name, make_url(label), fleet.url, cache)
                    row.store = store_name
                    key = (executor_name, store_name, runs)
                    if key not in best or row.ms_per_game < best[key].ms_per_game:
                        best[key] = row
            rows = list(best.values())
            pg_note = mask_url(stores["PostgreSQL"]("shown")) if "PostgreSQL" in stores else "not measured"
            if not args.no_profile and stores:
                # One Celery run in this process, profiled: PostgreSQL if measured, else SQLite.
                profiled_store = "PostgreSQL" if "PostgreSQL" in stores else "SQLite"
                celery = CeleryExecutor(fleet.url, lease_seconds=600)  # no lease runs out: nothing is re-sent
                with celery:
                    wait_for(lambda: len(celery.discover_workers()) >= args.workers, "the Celery workers")
                    store = Store(stores[profiled_store]("profiled"))
                    try:
                        coordinate(store, warmup(config), celery, None)
                        profiled = coordinate(store, config, celery, profile)
                        profiled.executor, profiled.store = "Celery", profiled_store
                        profiled_executor = celery
                    finally:
                        store.close()
    finally:
        fleet.stop()
        shutil.rmtree(folder, ignore_errors=True)

    print(
        f"Work: {' or '.join(map(str, args.runs))} run(s) at once, each of {args.batches} batches of "
        f"{args.pairs} pairs "
        f"({2 * args.pairs * args.batches} games) of {args.game} at {args.nodes} nodes per move, answered "
        f"by {args.workers} cached worker processes (per run for the local pool; shared on Celery); engine "
        f"{engine.ENGINE_VERSION}; {os.cpu_count()} cores; PostgreSQL: {pg_note}; "
        f"best of {args.rounds} round(s).\n"
    )
    print(
        f"One worker core (the real playing): {speed_games} games in {speed_cpu:.1f} s CPU = "
        f"{worker_rate:.1f} games/s.\n"
    )
    print(
        "| executor | store | runs | games | wall s | games/s (wall) | coordinator CPU s | "
        "coordinator µs/game | games/s per coordinator core | worker cores fed per coordinator core |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row.executor} | {row.store} | {row.runs} | {row.games} | {row.wall:.1f} | "
            f"{row.games / row.wall:,.0f} | {row.cpu:.2f} | {1000 * row.ms_per_game:.1f} | "
            f"{row.capacity:,.0f} | {row.capacity / worker_rate:,.0f} |"
        )
    for row in rows:
        if row.phases:
            print(
                f"\nPhases of the {row.executor} + {row.store} row with {row.runs} run(s) "
                "(µs a game; nested):\n"
            )
            print("| phase | µs/game |")
            print("|---|---|")
            for label, name in TIMED_PHASES:
                print(f"| {label} | {1e6 * row.phases[name] / row.games:.2f} |")
            outer = sum(row.phases[name] for label, name in TIMED_PHASES if not label.startswith(" "))
            print(f"| the rest (poll or wait, loop, progress) | {1e6 * (row.cpu - outer) / row.games:.2f} |")
            print(f"| total | {1e6 * row.cpu / row.games:.2f} |")
    if profiled is not None and profiled_executor is not None:
        stats = pstats.Stats(profile)
        print(
            f"\nWhere the coordinator's CPU goes (cProfile, CPU time, of a {profiled.executor} + "
            f"{profiled.store} run: {profiled.games} games, {1000 * profiled.ms_per_game:.0f} µs/game "
            f"with the profiler; shares scaled to that; phases nest):\n"
        )
        print("| phase | µs/game | share |")
        print("|---|---|---|")
        for line in phase_table(stats, profiled_executor, profiled.games, profiled.cpu):
            print(line)
        print(f"\nTop {args.top} functions by own CPU time (times include cProfile's overhead):\n")
        stats.sort_stats("tottime").print_stats(args.top)


def warmup(config: SprtConfig) -> SprtConfig:
    """The first two batches of ``config`` as a run of their own (connections, imports, processes)."""
    return dataclasses.replace(config, max_games=4 * config.batch_pairs)


if __name__ == "__main__":
    main()
