"""Games per second over Celery (1 and 2 workers) against the local process pool, and the overhead
per task, on the same work. Prints a markdown table.

Starts its own redis-server (persistence off, loopback, free port) and its own ``celery worker``
processes, each of concurrency 1; every executor plays the same batches (the same payloads, made
by the SPRT scheduler's batch plan) through the executor interface, keeping as many batches in
flight as the scheduler would (two per worker process). The overhead per task is measured with
batches of one pair at a tiny node limit, where the playing itself takes about a millisecond.
Configurations are measured in interleaved rounds and the best round of each is reported, so that
load from other programs on the machine penalises none of them more than the others.

    python benchmarks/celery_throughput.py                     # 8 pairs at 2000 nodes, 12 batches
    python benchmarks/celery_throughput.py --batches 24 --pairs 8 --nodes 2000 --game congo
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from local_redis import redis_command, wait_for, wait_for_redis

import engine
from coordinator.defaults import ADJUDICATION
from coordinator.executors.base import Executor
from coordinator.executors.celery.executor import CeleryExecutor
from coordinator.executors.local import LocalExecutor
from coordinator.openings.book import default_book_path, load_book
from coordinator.sprt.config import BatchPlan, SprtConfig
from wire.protocol import BatchPayload

REPO = Path(__file__).resolve().parents[1]


def payloads(game: str, batches: int, pairs: int, nodes: int, seed: int) -> list[BatchPayload]:
    """``batches`` payloads of ``pairs`` pairs each, from the shipped book, as an SPRT run makes them."""
    config = SprtConfig(
        game=game,
        candidate=engine.validate_weights(game, {"pawn": 150}),
        baseline=engine.validate_weights(game, None),
        openings=load_book(default_book_path(game), game),
        engine_version=engine.ENGINE_VERSION,
        limits=engine.Limits(nodes=nodes),
        adjudication=ADJUDICATION,
        batch_pairs=pairs,
        seed=seed,
    )
    plan = BatchPlan(config)
    return [plan.payload(1, i) for i in range(batches)]


def drive(executor: Executor, work: list[BatchPayload]) -> tuple[float, int]:
    """Play every payload, ``executor.slots`` in flight; (seconds, games)."""
    queue = list(work)
    games = 0
    started = time.perf_counter()
    while queue or executor.in_flight():
        while queue and executor.in_flight() < executor.slots:
            executor.submit(queue.pop(0))
        for outcome in executor.completed(timeout=1.0):
            if outcome.error is not None or outcome.result is None:
                raise RuntimeError(f"batch {outcome.batch_index} failed: {outcome.error}")
            games += len(outcome.result["games"])
    return time.perf_counter() - started, games


class Cluster:
    """A redis-server and Celery workers, all killed by :meth:`stop`."""

    def __init__(self, folder: Path) -> None:
        """Start redis-server on a free loopback port."""
        server, self.url = redis_command(folder)
        self.folder = folder
        self.processes: list[subprocess.Popen[bytes]] = []
        self._spawn(server, "redis")
        wait_for_redis(self.url)

    def _spawn(self, argv: list[str], name: str) -> subprocess.Popen[bytes]:
        env = {**os.environ, "ARBITER_BROKER": self.url}
        with open(self.folder / f"{name}.log", "wb") as log:
            process = subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=REPO
            )
        self.processes.append(process)
        return process

    def add_worker(self, executor: CeleryExecutor, name: str) -> str:
        """Start one worker of concurrency 1, wait until the executor sees it; its node name."""
        node = f"{name}@bench"
        argv = [sys.executable, "-m", "celery", "-A", "worker.celery_app", "worker", "--hostname", node]
        argv += ["--concurrency", "1", "--loglevel", "WARNING", "--without-gossip", "--without-mingle"]
        self._spawn(argv, name)
        wait_for(lambda: node in executor.discover_workers(), f"worker {name}")
        return node

    def stop(self) -> None:
        """Kill everything started here."""
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def measure(executor: Executor, work: list[dict[str, Any]]) -> dict[str, Any]:
    """Games per second and batches per second of ``work`` (after a warm-up of two batches)."""
    drive(executor, work[:2])  # processes started, modules imported, connections open
    seconds, games = drive(executor, work[2:])
    return {"seconds": seconds, "games": games, "rate": games / seconds, "batches": len(work) - 2}


def use_workers(celery: CeleryExecutor, nodes: list[str], count: int) -> None:
    """Let the first ``count`` workers take batches (the others stop consuming), and size the slots."""
    control = celery.app.control
    for i, node in enumerate(nodes):
        if i < count:
            control.add_consumer(celery.queue, destination=[node], reply=True)
        else:
            control.cancel_consumer(celery.queue, destination=[node], reply=True)
    celery.slots = 2 * count


def main() -> None:
    """Run every configuration ``--rounds`` times, interleaved, and print the best of each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="congo", choices=engine.GAMES)
    parser.add_argument("--batches", type=int, default=12)
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--tiny-batches", type=int, default=200, help="batches of the overhead test")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved repetitions; the best counts")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    work = payloads(args.game, args.batches + 2, args.pairs, args.nodes, args.seed)
    tiny = payloads(args.game, args.tiny_batches + 2, 1, 50, args.seed)
    labels = ["local pool, 2 processes", "Celery, 1 worker x 1 process", "Celery, 2 workers x 1 process"]
    best: dict[str, dict[str, Any]] = {}
    best_tiny: dict[str, dict[str, Any]] = {}

    def keep(table: dict[str, dict[str, Any]], label: str, row: dict[str, Any]) -> None:
        if label not in table or row["rate"] > table[label]["rate"]:
            table[label] = row

    folder = Path(tempfile.mkdtemp(prefix="arbiter-bench-"))
    cluster = Cluster(folder)
    try:
        with LocalExecutor(2) as local, CeleryExecutor(cluster.url, lease_seconds=600) as celery:
            nodes = [cluster.add_worker(celery, f"w{i}") for i in (1, 2)]
            for _ in range(args.rounds):
                keep(best, labels[0], measure(local, work))
                keep(best_tiny, labels[0], measure(local, tiny))
                for count in (1, 2):
                    use_workers(celery, nodes, count)
                    keep(best, labels[count], measure(celery, work))
                    keep(best_tiny, labels[count], measure(celery, tiny))
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)

    base = best[labels[0]]["rate"]
    print(
        f"Work: {args.batches} batches of {args.pairs} pairs ({2 * args.pairs} games) of {args.game} at "
        f"{args.nodes} nodes per move; engine {engine.ENGINE_VERSION}; {os.cpu_count()} cores; "
        f"best of {args.rounds} interleaved rounds.\n"
    )
    print("| executor | games | seconds | games/s | vs local pool |")
    print("|---|---|---|---|---|")
    for label in labels:
        row = best[label]
        print(
            f"| {label} | {row['games']} | {row['seconds']:.2f} | {row['rate']:.1f} | "
            f"{100 * row['rate'] / base:.0f}% |"
        )
    print(f"\nOverhead: {args.tiny_batches} batches of 1 pair at 50 nodes (the playing takes ~1 ms).\n")
    print("| executor | batches/s | ms per batch |")
    print("|---|---|---|")
    for label in labels:
        row = best_tiny[label]
        per_second = row["batches"] / row["seconds"]
        print(f"| {label} | {per_second:.0f} | {1000 / per_second:.1f} |")


if __name__ == "__main__":
    main()
