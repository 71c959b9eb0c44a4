"""Local pool efficiency: games/s of the executor against independent single-process runs.

Plays the same batches (default vs material-only weights, Congo, node limit) three ways in one run:
1. one process alone (the single-core rate);
2. N independent processes at once, each playing its share of the batches with no executor;
3. the local executor (a process pool of N) fed through the executor interface.
Prints games/s of each and the ratio of (3) to (2).

    python benchmarks/pool_scaling.py [--workers 2] [--batches 16] [--pairs 8] [--nodes 1000]
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from pathlib import Path

import engine
from coordinator.defaults import ADJUDICATION
from coordinator.executors.local import LocalExecutor
from coordinator.openings.book import default_book_path, load_book
from coordinator.sprt.config import BatchPlan, SprtConfig
from wire.protocol import BatchPayload
from worker.games import play_batch

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def payloads(game: str, batches: int, pairs: int, nodes: int) -> list[BatchPayload]:
    """The benchmark's batches: the defaults against material-only weights, from the shipped book."""
    config = SprtConfig(
        game=game,
        candidate=engine.validate_weights(game, None),
        baseline=engine.validate_weights(game, EXAMPLES / f"{game}-material.json"),
        openings=load_book(default_book_path(game), game),
        engine_version=engine.ENGINE_VERSION,
        limits=engine.Limits(nodes=nodes),
        adjudication=ADJUDICATION,
        batch_pairs=pairs,
    )
    plan = BatchPlan(config)
    return [plan.payload(0, i) for i in range(batches)]


def play_all(batch_list: list[BatchPayload]) -> int:
    """Games played by one process playing every batch in turn."""
    return sum(play_batch(p).game_count for p in batch_list)


def independent(batch_list: list[BatchPayload], workers: int) -> tuple[int, float]:
    """N processes started together, each with every N-th batch; (games, seconds)."""
    shares = [batch_list[i::workers] for i in range(workers)]
    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        games = sum(pool.map(play_all, shares))
    return games, time.perf_counter() - start


def pooled(batch_list: list[BatchPayload], workers: int) -> tuple[int, float]:
    """The same batches through the local executor; (games, seconds)."""
    games = 0
    with LocalExecutor(workers) as executor:
        executor.submit(batch_list[0])  # start the pool before timing, like the other runs
        for outcome in executor.completed(timeout=600):
            assert outcome.result is not None
        start = time.perf_counter()
        pending = list(batch_list)
        while pending or executor.in_flight():
            while pending and executor.in_flight() < executor.slots:
                executor.submit(pending.pop(0))
            for outcome in executor.completed(timeout=600):
                assert outcome.result is not None, outcome.error
                games += len(outcome.result["games"])
    return games, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="congo")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batches", type=int, default=16)
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--nodes", type=int, default=1000)
    args = parser.parse_args()
    batch_list = payloads(args.game, args.batches, args.pairs, args.nodes)
    single_games, single_seconds = independent(batch_list[: max(1, args.batches // args.workers)], 1)
    ind_games, ind_seconds = independent(batch_list, args.workers)
    pool_games, pool_seconds = pooled(batch_list, args.workers)
    single, ind, pool = single_games / single_seconds, ind_games / ind_seconds, pool_games / pool_seconds
    setup = f"{args.game}, {args.nodes} nodes/move, {args.pairs} pairs/batch"
    print(f"| setup ({setup}) | games | seconds | games/s |")
    print("|---|---|---|---|")
    print(f"| 1 process alone | {single_games} | {single_seconds:.1f} | {single:.1f} |")
    print(f"| {args.workers} independent processes | {ind_games} | {ind_seconds:.1f} | {ind:.1f} |")
    print(f"| local pool of {args.workers} (executor) | {pool_games} | {pool_seconds:.1f} | {pool:.1f} |")
    print(f"\nlocal pool / independent processes: {pool / ind:.1%}")


if __name__ == "__main__":
    main()
