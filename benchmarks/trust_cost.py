"""What checking a worker's results costs the coordinator, as a share of playing them.

For each game, plays a few batches as a worker does (``worker.games.run_batch``, one core), then
times what the coordinator does with each result before it counts: decode it and type-check all
but its records (``ResultReport.from_json``), then check the records against its payload and
replay every game through the rules core (``trust.answers.check_answer``, one call), and what the
keys cost on both sides: the coordinator signs the payload (Ed25519), the worker verifies it and
seals its answer (HMAC), the coordinator unseals it.
The spot checks cost a share of playing by construction: each worker's first batch and
``--verify-fraction`` (2%) of the others are played once more, by another worker (and by the
coordinator's own pool only when the two disagree).

Timed batches (``--movetime``) are checked differently: the coordinator repeats every game with
each move's recorded node budget (``worker.games.replay_budgets``). The second table compares that
repetition with playing the timed batch in the first place.

    python benchmarks/trust_cost.py                       # 4 batches of 16 pairs per game, 2,000 nodes
    python benchmarks/trust_cost.py --batches 8 --pairs 32 --nodes 2000 --repeat 20 --movetime 20
"""

from __future__ import annotations

import argparse
import json
import time

import engine
from coordinator.openings.book import default_book_path, load_book
from coordinator.sprt.config import BatchPlan, SprtConfig
from coordinator.trust.answers import check_answer
from wire.protocol import BatchPayload, ResultReport
from wire.sealing import FleetKeys, task_message, unseal
from worker.games import answer_task, replay_budgets, run_batch

KEYS = FleetKeys(b"benchmark master secret")
NODE = "bench@host"


def config_of(game: str, limits: engine.Limits, pairs: int) -> SprtConfig:
    """Defaults against defaults on the game's default book."""
    return SprtConfig(
        game=game,
        candidate=engine.validate_weights(game, None),
        baseline=engine.validate_weights(game, None),
        openings=load_book(default_book_path(game), game),
        engine_version=engine.ENGINE_VERSION,
        limits=limits,
        batch_pairs=pairs,
        seed=1,
    )


def key_costs(payloads: list[BatchPayload], repeat: int) -> tuple[float, float]:
    """Best CPU seconds, over all ``payloads``, of the coordinator's side of the keys (sign each
    payload, unseal each answer) and of the worker's (verify the signature, seal the answer)."""
    worker_keys = KEYS.worker_keys()
    texts = [orjson_text(p) for p in payloads]
    messages = [task_message(t, KEYS, f"task-{i}") for i, t in enumerate(texts)]
    answers = [
        answer_task(m, f"task-{i}", NODE, worker_keys, answer=run_batch) for i, m in enumerate(messages)
    ]
    coordinator = worker = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for i, text in enumerate(texts):
            task_message(text, KEYS, f"task-{i}")
        for i, answer in enumerate(answers):
            assert unseal(answer, f"task-{i}", KEYS).authenticated
        t1 = time.process_time()
        for i, message in enumerate(messages):
            answer_task(message, f"task-{i}", NODE, worker_keys, answer=lambda data, _w: {"games": []})
        t2 = time.process_time()
        coordinator, worker = min(coordinator, t1 - t0), min(worker, t2 - t1)
    return coordinator, worker


def orjson_text(payload: BatchPayload) -> str:
    """A payload's JSON text as the coordinator sends it."""
    return json.dumps(payload.to_json())


def timed_table(args: argparse.Namespace) -> None:
    """Per game: a timed batch played, then repeated move by move with its recorded budgets."""
    print(f"\nTimed batches: {args.batches} of {args.pairs} pairs per game at --movetime {args.movetime}\n")
    print("| game | plies per game | play wall ms/game | repeat with budgets CPU ms/game | repeat / play |")
    print("|---|---|---|---|---|")
    for game in engine.GAMES:
        plan = BatchPlan(config_of(game, engine.Limits(movetime_ms=args.movetime), args.pairs))
        payloads = [plan.payload(1, i) for i in range(args.batches)]
        started = time.monotonic()
        results = [run_batch(p.to_json()) for p in payloads]
        play = time.monotonic() - started
        games = 2 * args.pairs * args.batches
        plies = sum(g["moves"].count(" ") + 1 for r in results for g in r["games"]) / games
        started = time.process_time()
        for payload, result in zip(payloads, results, strict=True):
            again = replay_budgets(
                {"payload": payload.to_json(), "budgets": [g["budgets"] for g in result["games"]]}
            )
            assert [g["moves"] for g in again["games"]] == [g["moves"] for g in result["games"]]
        repeat = time.process_time() - started
        ms = 1e3 / games
        print(f"| {game} | {plies:.0f} | {play * ms:,.1f} | {repeat * ms:,.1f} | {repeat / play:.1%} |")


def main() -> None:
    """Print a markdown table: per game, playing and checking CPU per game and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--pairs", type=int, default=16)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=10, help="times each check is timed (the best counts)")
    parser.add_argument("--movetime", type=int, default=20, help="ms per move of the timed batches")
    args = parser.parse_args()
    print(
        f"{args.batches} batches of {args.pairs} pairs per game at {args.nodes} nodes; "
        f"engine {engine.ENGINE_VERSION}\n"
    )
    print(
        "| game | plies per game | play CPU µs/game | decode + type-check µs/game | check + replay µs/game "
        "| sign + unseal µs/game | verify + seal µs/game | check / play |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for game in engine.GAMES:
        plan = BatchPlan(config_of(game, engine.Limits(nodes=args.nodes), args.pairs))
        payloads = [plan.payload(1, i) for i in range(args.batches)]
        started = time.process_time()
        texts = [json.dumps(run_batch(p.to_json())) for p in payloads]
        play = time.process_time() - started
        games = 2 * args.pairs * args.batches
        plies = sum(g["moves"].count(" ") + 1 for t in texts for g in json.loads(t)["games"]) / games
        decode = replay = float("inf")
        for _ in range(args.repeat):
            t0 = time.process_time()
            reports = [ResultReport.from_json(json.loads(t)) for t in texts]
            t1 = time.process_time()
            for report, payload in zip(reports, payloads, strict=True):
                check_answer(report, payload)
            t2 = time.process_time()
            decode, replay = min(decode, t1 - t0), min(replay, t2 - t1)
        coordinator, worker = key_costs(payloads, args.repeat)
        us = 1e6 / games
        print(
            f"| {game} | {plies:.0f} | {play * us:,.0f} | {decode * us:.1f} | {replay * us:.1f} | "
            f"{coordinator * us:.1f} | {worker * us:.1f} | {(decode + replay + coordinator) / play:.3%} |"
        )
    timed_table(args)


if __name__ == "__main__":
    main()
