"""What checking a worker's results costs the coordinator, as a share of playing them.

For each game, plays a few batches as a worker does (``worker.games.run_batch``, one core), then
times what the coordinator does with each result before it counts: decode and type-check it
(``BatchResult.from_json``), match it to its payload, and replay every game through the rules core
(``trust.replay.replay_check``). The spot checks cost a share of playing by construction: each
worker's first batch and ``--verify-fraction`` (2%) of the others are played once more, by another
worker (and by the coordinator's own pool only when the two disagree).

    python benchmarks/trust_cost.py                       # 4 batches of 16 pairs per game, 2,000 nodes
    python benchmarks/trust_cost.py --batches 8 --pairs 32 --nodes 2000 --repeat 20
"""

from __future__ import annotations

import argparse
import json
import time

import engine
from coordinator.openings.book import default_book_path, load_book
from coordinator.sprt.config import BatchPlan, SprtConfig
from coordinator.trust.replay import replay_check
from worker.games import run_batch
from worker.protocol import BatchResult, check_matches_payload


def main() -> None:
    """Print a markdown table: per game, playing and checking CPU per game and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--pairs", type=int, default=16)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=10, help="times each check is timed (the best counts)")
    args = parser.parse_args()
    print(
        f"{args.batches} batches of {args.pairs} pairs per game at {args.nodes} nodes; "
        f"engine {engine.ENGINE_VERSION}\n"
    )
    print(
        "| game | plies per game | play CPU µs/game | decode + type-check µs/game | replay µs/game "
        "| check / play |"
    )
    print("|---|---|---|---|---|---|")
    for game in engine.GAMES:
        config = SprtConfig(
            game=game,
            candidate=engine.validate_weights(game, None),
            baseline=engine.validate_weights(game, None),
            openings=load_book(default_book_path(game), game),
            engine_version=engine.ENGINE_VERSION,
            limits=engine.Limits(nodes=args.nodes),
            batch_pairs=args.pairs,
            seed=1,
        )
        plan = BatchPlan(config)
        payloads = [plan.payload(1, i) for i in range(args.batches)]
        started = time.process_time()
        texts = [json.dumps(run_batch(p.to_json())) for p in payloads]
        play = time.process_time() - started
        games = 2 * args.pairs * args.batches
        plies = sum(g["moves"].count(" ") + 1 for t in texts for g in json.loads(t)["games"]) / games
        decode = replay = float("inf")
        for _ in range(args.repeat):
            t0 = time.process_time()
            results = [BatchResult.from_json(json.loads(t)) for t in texts]
            for result, payload in zip(results, payloads, strict=True):
                check_matches_payload(result, payload)
            t1 = time.process_time()
            for result, payload in zip(results, payloads, strict=True):
                replay_check(payload, result)
            t2 = time.process_time()
            decode, replay = min(decode, t1 - t0), min(replay, t2 - t1)
        us = 1e6 / games
        print(
            f"| {game} | {plies:.0f} | {play * us:,.0f} | {decode * us:.1f} | {replay * us:.1f} | "
            f"{(decode + replay) / play:.3%} |"
        )


if __name__ == "__main__":
    main()
