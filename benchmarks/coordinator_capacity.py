"""How many games per second one coordinator core can take, and so how many worker cores it feeds.

The coordinator's own CPU per game is measured on the real loop (``SprtRunner.run``: dispatch, poll,
check every result by replaying its games, store it, count the SPRT) with the workers in other
processes: ``time.process_time()`` of this process around the run counts the coordinator and its
executor's threads, never the workers. It is measured on both executors (the local process pool
and Celery workers over a real redis-server on loopback) and both stores (a SQLite file and a
PostgreSQL database on a throwaway cluster, or ``--postgres URL``). In the same run it measures
what one worker core plays (games per second at the same node limit), so the capacity can be given
in worker cores: ``(games/s per coordinator core) / (games/s per worker core)``. Finally one run
is profiled with cProfile, and the coordinator's CPU is split by phase.

    python benchmarks/coordinator_capacity.py                       # ~2 minutes on 2 cores
    python benchmarks/coordinator_capacity.py --batches 60 --rounds 3 --workers 2
    python benchmarks/coordinator_capacity.py --postgres postgresql://USER:PASSWORD@HOST/DB

Figures go to docs/performance.md; the numbers of one run are only compared with each other.
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import os
import pstats
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from coordinator.executors.base import Executor
from coordinator.executors.celery.executor import CeleryExecutor
from coordinator.executors.local import LocalExecutor
from coordinator.openings.book import default_book_path, load_book
from coordinator.runs import RunKind
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.runner import SprtRunner
from coordinator.store import Store, mask_url
from coordinator.trust.replay import replay_check
from worker.games import run_batch
from worker.protocol import BatchResult, check_matches_payload

REPO = Path(__file__).resolve().parents[1]
START_TIMEOUT = 60.0
#: The phases of the coordinator's loop, with the function whose cumulative time is the phase's;
#: they nest (the sub-phases are indented). "submit" and "completed" are the profiled executor's.
PHASES: tuple[tuple[str, Callable[..., Any] | str], ...] = (
    ("receive a result (SprtRunner.receive)", SprtRunner.receive),
    ("  parse the JSON result (BatchResult.from_json)", BatchResult.from_json),
    ("  check it against the payload (check_matches_payload)", check_matches_payload),
    ("  replay every game (trust.replay.replay_check)", replay_check),
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
        limits={"nodes": nodes},
        batch_pairs=pairs,
        max_games=2 * pairs * batches,
        seed=seed,
    )


def worker_core_speed(config: SprtConfig, batches: int) -> tuple[int, float]:
    """(games, CPU seconds) of ``batches`` batches played in this process, one core, as a worker
    plays them (``worker.games.run_batch``)."""
    from coordinator.sprt.config import BatchPlan

    plan = BatchPlan(config)
    games, cpu = 0, 0.0
    for i in range(batches):
        payload = plan.payload(10_000, i).to_json()
        started = time.process_time()
        result = run_batch(payload)
        cpu += time.process_time() - started
        games += len(result["games"])
    return games, cpu


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


def wait_for(predicate: Callable[[], Any], what: str) -> None:
    """Poll ``predicate`` until true, at most :data:`START_TIMEOUT` seconds."""
    deadline = time.monotonic() + START_TIMEOUT
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"coordinator_capacity: timed out waiting for {what}")
        time.sleep(0.1)


class Fleet:
    """A redis-server on a free loopback port and Celery workers of one process each."""

    def __init__(self, folder: Path, workers: int) -> None:
        """Start redis-server and ``workers`` workers."""
        import socket

        import redis

        server = shutil.which("redis-server")
        if server is None:
            raise SystemExit("coordinator_capacity: redis-server is missing (scripts/ensure-redis.sh)")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.url = f"redis://127.0.0.1:{port}/0"
        self.folder = folder
        self.processes: list[subprocess.Popen[bytes]] = []
        self._spawn([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.5)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.exceptions.RedisError:
                return False

        wait_for(answers, "redis-server")
        for i in range(workers):
            argv = [sys.executable, "-m", "celery", "-A", "worker.celery_app", "worker"]
            argv += ["--hostname", f"w{i}@capacity", "--concurrency", "1", "--loglevel", "WARNING"]
            argv += ["--without-gossip", "--without-mingle"]
            self._spawn(argv)

    def _spawn(self, argv: list[str]) -> None:
        env = {**os.environ, "ARBITER_BROKER": self.url}
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
        rows.append(f"| {label} | {1000 * seconds / games:.3f} | {100 * seconds / cpu:.0f}% |")
    return rows


def main() -> None:
    """Measure every configuration, print markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="congo", choices=engine.GAMES)
    parser.add_argument("--batches", type=int, default=24, help="batches per measured run")
    parser.add_argument("--pairs", type=int, default=8, help="pairs per batch (arbiter sprt's default)")
    parser.add_argument("--nodes", type=int, default=2000, help="nodes per move (arbiter sprt's default)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (local pool and Celery)")
    parser.add_argument("--rounds", type=int, default=1, help="repetitions; the lowest CPU per game counts")
    parser.add_argument("--speed-batches", type=int, default=4, help="batches of the worker-core speed")
    parser.add_argument("--postgres", help="a PostgreSQL URL to use instead of a throwaway cluster")
    parser.add_argument("--top", type=int, default=15, help="functions listed from the profile")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    config = config_for(args.game, args.batches, args.pairs, args.nodes, args.seed)
    warmup = config_for(args.game, 2, args.pairs, args.nodes, args.seed + 1)
    speed_games, speed_cpu = worker_core_speed(config, args.speed_batches)
    worker_rate = speed_games / speed_cpu

    folder = Path(tempfile.mkdtemp(prefix="arbiter-capacity-"))
    rows: list[Row] = []
    profile = cProfile.Profile(time.process_time)  # CPU, not wall time: waiting costs nothing
    profiled: Row | None = None
    profiled_executor: Executor | None = None
    fleet = Fleet(folder, args.workers)
    try:
        celery = CeleryExecutor(fleet.url, lease_seconds=600)  # no lease runs out: nothing is re-sent
        with postgres(args.postgres, folder) as pg, LocalExecutor(args.workers) as local, celery:
            wait_for(lambda: len(celery.discover_workers()) >= args.workers, "the Celery workers")
            stores: dict[str, Callable[[str], str]] = {
                "SQLite": lambda label: f"sqlite:///{folder / label}.db",
            }
            if pg is not None:
                stores["PostgreSQL"] = pg
            executors: dict[str, Executor] = {"local pool": local, "Celery": celery}
            best: dict[tuple[str, str], Row] = {}
            for round_number in range(args.rounds):
                for executor_name, executor in executors.items():
                    for store_name, make_url in stores.items():
                        label = f"{executor_name}-{store_name}-{round_number}".replace(" ", "_").lower()
                        store = Store(make_url(label))
                        try:
                            coordinate(store, warmup, executor, None)  # connections, imports, processes
                            row = coordinate(store, config, executor, None)
                        finally:
                            store.close()
                        row.executor, row.store = executor_name, store_name
                        key = (executor_name, store_name)
                        if key not in best or row.ms_per_game < best[key].ms_per_game:
                            best[key] = row
            rows = list(best.values())
            # The profile: Celery with PostgreSQL (else SQLite), the shape of a fleet's coordinator.
            profiled_store = "PostgreSQL" if "PostgreSQL" in stores else "SQLite"
            profiled_executor = celery
            store = Store(stores[profiled_store]("profiled"))
            try:
                coordinate(store, warmup, celery, None)
                profiled = coordinate(store, config, celery, profile)
                profiled.executor, profiled.store = "Celery", profiled_store
            finally:
                store.close()
            pg_note = mask_url(stores["PostgreSQL"]("shown")) if "PostgreSQL" in stores else "not available"
    finally:
        fleet.stop()
        shutil.rmtree(folder, ignore_errors=True)

    print(
        f"Work: {args.batches} batches of {args.pairs} pairs ({2 * args.pairs * args.batches} games) of "
        f"{args.game} at {args.nodes} nodes per move; {args.workers} worker processes; engine "
        f"{engine.ENGINE_VERSION}; {os.cpu_count()} cores; PostgreSQL: {pg_note}; "
        f"best of {args.rounds} round(s).\n"
    )
    print(f"One worker core: {speed_games} games in {speed_cpu:.2f} s CPU = {worker_rate:.1f} games/s.\n")
    print(
        "| executor | store | games | wall s | coordinator CPU s | coordinator ms/game | "
        "games/s per coordinator core | worker cores fed per coordinator core |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row.executor} | {row.store} | {row.games} | {row.wall:.1f} | {row.cpu:.2f} | "
            f"{row.ms_per_game:.2f} | {row.capacity:.0f} | {row.capacity / worker_rate:.1f} |"
        )
    if profiled is not None and profiled_executor is not None:
        stats = pstats.Stats(profile)
        print(
            f"\nWhere the coordinator's CPU goes (cProfile, CPU time, of a {profiled.executor} + "
            f"{profiled.store} run: {profiled.games} games, {profiled.ms_per_game:.2f} ms/game with "
            f"the profiler; shares scaled to that; phases nest):\n"
        )
        print("| phase | ms/game | share |")
        print("|---|---|---|")
        for line in phase_table(stats, profiled_executor, profiled.games, profiled.cpu):
            print(line)
        print(f"\nTop {args.top} functions by own CPU time (times include cProfile's overhead):\n")
        stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
