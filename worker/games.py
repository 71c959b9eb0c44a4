"""Play one batch of game pairs (no Celery here).

A batch is a list of openings; each opening is played twice with colours reversed, the candidate
white first, then black. The same function runs in the local process pool and in a Celery worker;
what goes in and comes out is defined in :mod:`worker.protocol`.
"""

from __future__ import annotations

import os
import random
import socket
import time
from collections.abc import Callable
from typing import Any

import engine
from worker.protocol import PAIR_COLORS, BatchPayload, BatchResult, Color, GameRecord, refusal, tally

PlayGame = Callable[..., dict[str, Any]]

#: Node limits vary by up to this fraction per game pair, derived from the batch seed.
NODE_JITTER = 0.05


def worker_name() -> str:
    """``hostname:pid`` of this process, recorded with each result."""
    return f"{socket.gethostname()}:{os.getpid()}"


def check_engine_version(payload: BatchPayload) -> None:
    """ValueError unless this worker has the engine version the payload asks for."""
    if payload.engine_version != engine.ENGINE_VERSION:
        raise ValueError(
            f"batch payload: engine version {payload.engine_version!r} was requested but this worker "
            f"has {engine.ENGINE_VERSION!r}"
        )


def pair_limits(limits: engine.Limits, seed: int, pair: int) -> engine.Limits:
    """The limits of one game pair: a node limit varies by up to +-5%, chosen from the batch seed.

    Without it a second pass through the book would replay earlier games move for move (with a
    node limit a game depends only on its opening and the weights). Both games of a pair use the
    same limit, so the pair stays fair, and the choice is deterministic.
    """
    if limits.nodes is None:
        return limits
    rng = random.Random(f"{seed}:{pair}")
    return limits.replace(nodes=max(1, round(limits.nodes * (1 + rng.uniform(-NODE_JITTER, NODE_JITTER)))))


def play_batch(
    payload: BatchPayload, play_game: PlayGame | None = None, worker: str | None = None
) -> BatchResult:
    """Play every opening of ``payload`` twice, colours reversed; the records and their counts,
    signed with ``worker`` (default: :func:`worker_name`).

    ``play_game`` defaults to ``engine.play_game``; it is a parameter only so that the plumbing can
    be exercised without the search.
    """
    check_engine_version(payload)
    play = play_game if play_game is not None else engine.play_game
    started = time.process_time()
    sides = {"candidate": payload.candidate, "baseline": payload.baseline}
    records: list[GameRecord] = []
    nodes = {"candidate": 0, "baseline": 0}
    for pair, opening in enumerate(payload.openings):
        limits = pair_limits(payload.limits, payload.seed, pair)
        for candidate_color in PAIR_COLORS:
            white, black = (
                ("candidate", "baseline") if candidate_color is Color.WHITE else ("baseline", "candidate")
            )
            played = play(payload.game, sides[white], sides[black], opening, limits, payload.adjudication)
            white_nodes, black_nodes = (int(n) for n in played.get("nodes", (0, 0)))
            nodes[white] += white_nodes
            nodes[black] += black_nodes
            records.append(
                GameRecord(
                    opening=opening,
                    moves=" ".join(played["moves"]),
                    result=played["result"],
                    reason=played["reason"],
                    candidate_color=candidate_color,
                )
            )
    pentanomial, wdl = tally(records)
    return BatchResult(
        run_id=payload.run_id,
        batch_index=payload.batch_index,
        engine_version=engine.ENGINE_VERSION,
        pentanomial=pentanomial,
        wdl=wdl,
        games=records,
        nodes=nodes,
        cpu_seconds=time.process_time() - started,
        worker=worker or worker_name(),
    )


def run_batch(data: Any, worker: str | None = None) -> dict[str, Any]:
    """Check a JSON payload, play it, return the JSON result (in the local pool, the whole task).

    A malformed payload, or one asking for another engine version, raises a one-line ValueError
    that the coordinator records as the reason the batch was refused.
    """
    return play_batch(BatchPayload.from_json(data), worker=worker).to_json()


def answer_batch(data: Any, worker: str) -> dict[str, Any]:
    """A Celery worker's answer for a JSON payload: the result of :func:`run_batch`, or the
    refusal of a batch it cannot play (a malformed payload, another engine version)."""
    try:
        return run_batch(data, worker=worker)
    except ValueError as e:
        return refusal(str(e), worker)
