"""Play one batch of game pairs and check a batch result (no Celery here).

A batch is a list of openings; each opening is played twice with colours reversed, the candidate
white first, then black. The result is JSON-safe: pentanomial counts ``[LL, LD, DD+WL, WD, WW]`` and
W/D/L counts from the candidate's side, the game records, node counts and CPU time. The same
function runs in the local process pool and in a Celery worker, and :func:`validate_result` is what
the coordinator applies to every result before it counts, whichever executor delivered it.
"""

from __future__ import annotations

import os
import random
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import engine

RESULTS = ("1-0", "0-1", "1/2-1/2")
COLORS = ("white", "black")
PAYLOAD_KEYS = (
    "run_id",
    "batch_index",
    "game",
    "candidate",
    "baseline",
    "openings",
    "limits",
    "adjudication",
    "seed",
    "engine_version",
)

PlayGame = Callable[..., dict[str, Any]]


def candidate_score(result: str, candidate_color: str) -> float:
    """The candidate's score (1, 0.5 or 0) in a game with ``result`` where it played ``candidate_color``."""
    if result == "1/2-1/2":
        return 0.5
    white_won = result == "1-0"
    return 1.0 if white_won == (candidate_color == "white") else 0.0


def tally(records: Sequence[Mapping[str, Any]]) -> tuple[list[int], list[int]]:
    """Pentanomial ``[LL, LD, DD+WL, WD, WW]`` and ``[W, D, L]`` of records taken two by two as pairs."""
    pentanomial = [0] * 5
    wdl = [0, 0, 0]
    scores = [candidate_score(r["result"], r["candidate_color"]) for r in records]
    for score in scores:
        wdl[0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
    for first, second in zip(scores[0::2], scores[1::2], strict=True):
        pentanomial[round(2 * (first + second))] += 1
    return pentanomial, wdl


def worker_name() -> str:
    """``hostname:pid`` of this process, recorded with each result."""
    return f"{socket.gethostname()}:{os.getpid()}"


def check_payload(payload: Mapping[str, Any]) -> None:
    """ValueError naming the first missing or malformed field of a batch payload."""
    missing = [key for key in PAYLOAD_KEYS if key not in payload]
    if missing:
        raise ValueError(f"batch payload: missing {', '.join(missing)}")
    if payload["engine_version"] != engine.ENGINE_VERSION:
        raise ValueError(
            f"batch payload: engine version {payload['engine_version']!r} was requested but this worker "
            f"has {engine.ENGINE_VERSION!r}"
        )
    openings = payload["openings"]
    if not isinstance(openings, list) or not openings or not all(isinstance(o, str) for o in openings):
        raise ValueError("batch payload: openings must be a non-empty list of position strings")


#: Node limits vary by up to this fraction per game pair, derived from the batch seed.
NODE_JITTER = 0.05


def pair_limits(limits: Mapping[str, Any], seed: int, pair: int) -> dict[str, Any]:
    """The limits of one game pair: a node limit varies by up to +-5%, chosen from the batch seed.

    Without it a second pass through the book would replay earlier games move for move (with a
    node limit a game depends only on its opening and the weights). Both games of a pair use the
    same limit, so the pair stays fair, and the choice is deterministic.
    """
    out = dict(limits)
    if out.get("nodes"):
        rng = random.Random(f"{seed}:{pair}")
        out["nodes"] = max(1, round(out["nodes"] * (1 + rng.uniform(-NODE_JITTER, NODE_JITTER))))
    return out


def play_batch(payload: Mapping[str, Any], play_game: PlayGame | None = None) -> dict[str, Any]:
    """Play every opening of ``payload`` twice, colours reversed, and return counts and records.

    ``play_game`` defaults to ``engine.play_game``; it is a parameter only so that the plumbing can
    be exercised without the search.
    """
    check_payload(payload)
    play = play_game if play_game is not None else engine.play_game
    started = time.process_time()
    game = payload["game"]
    sides = {"candidate": payload["candidate"], "baseline": payload["baseline"]}
    records: list[dict[str, Any]] = []
    nodes = {"candidate": 0, "baseline": 0}
    for pair, opening in enumerate(payload["openings"]):
        limits = pair_limits(payload["limits"], int(payload["seed"]), pair)
        for candidate_color in COLORS:
            white, black = (
                ("candidate", "baseline") if candidate_color == "white" else ("baseline", "candidate")
            )
            played = play(game, sides[white], sides[black], opening, dict(limits), payload["adjudication"])
            white_nodes, black_nodes = (int(n) for n in played.get("nodes", (0, 0)))
            nodes[white] += white_nodes
            nodes[black] += black_nodes
            records.append(
                {
                    "opening": opening,
                    "moves": list(played["moves"]),
                    "result": played["result"],
                    "reason": played["reason"],
                    "plies": int(played.get("plies", len(played["moves"]))),
                    "candidate_color": candidate_color,
                }
            )
    pentanomial, wdl = tally(records)
    return {
        "run_id": payload["run_id"],
        "batch_index": payload["batch_index"],
        "engine_version": engine.ENGINE_VERSION,
        "pentanomial": pentanomial,
        "wdl": wdl,
        "games": records,
        "nodes": nodes,
        "cpu_seconds": time.process_time() - started,
        "worker": worker_name(),
    }


def _check_counts(value: Any, length: int, total: int, name: str) -> list[int]:
    """The counts ``value`` as a list of ``length`` non-negative ints adding up to ``total``."""
    if not isinstance(value, list) or len(value) != length:
        raise ValueError(f"{name}: expected a list of {length} counts, got {value!r}")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        raise ValueError(f"{name}: expected non-negative integer counts, got {value!r}")
    if sum(value) != total:
        raise ValueError(f"{name}: counts add up to {sum(value)}, expected {total}")
    return value


def _check_records(games: Any, expected_pairs: int, openings: Sequence[str] | None) -> None:
    """Each record well-formed, pairs in order (candidate white then black, same opening)."""
    if not isinstance(games, list) or len(games) != 2 * expected_pairs:
        count = len(games) if isinstance(games, list) else type(games).__name__
        raise ValueError(f"games: expected {2 * expected_pairs} game records, got {count}")
    for i, record in enumerate(games):
        if not isinstance(record, dict):
            raise ValueError(f"games[{i}]: expected a record, got {type(record).__name__}")
        if record.get("result") not in RESULTS:
            raise ValueError(
                f"games[{i}]: result {record.get('result')!r} is not one of {', '.join(RESULTS)}"
            )
        if record.get("candidate_color") != COLORS[i % 2]:
            raise ValueError(f"games[{i}]: candidate_color should be {COLORS[i % 2]!r}")
        if not isinstance(record.get("moves"), list) or not isinstance(record.get("opening"), str):
            raise ValueError(f"games[{i}]: expected an opening string and a list of moves")
        if i % 2 == 1 and record["opening"] != games[i - 1]["opening"]:
            raise ValueError(f"games[{i}]: the two games of a pair must start from the same opening")
        if openings is not None and record["opening"] != openings[i // 2]:
            raise ValueError(f"games[{i}]: opening differs from the one sent for pair {i // 2}")


def replay_moves(game: str, records: Sequence[Mapping[str, Any]]) -> None:
    """Play every record's moves through the rules core; ValueError naming the first illegal one."""
    for i, record in enumerate(records):
        position = engine.Position.from_fen(game, record["opening"])
        for ply, move in enumerate(record["moves"], start=1):
            if position.outcome() is not None:
                raise ValueError(f"games[{i}]: move {move!r} at ply {ply} comes after the game ended")
            try:
                position = position.play(move)
            except ValueError as e:
                raise ValueError(f"games[{i}]: ply {ply}: {e}") from None


def validate_result(
    result: Any,
    expected_pairs: int,
    run_id: Any,
    batch_index: int,
    engine_version: str,
    *,
    openings: Sequence[str] | None = None,
    game: str | None = None,
) -> None:
    """Refuse a batch result that cannot be counted: ValueError naming what is wrong.

    Checks the run and batch it claims, the engine version, that pentanomial and W/D/L counts add
    up to the pairs sent and agree with the game records, and (given ``openings``) that the records
    start from the openings sent. Given ``game``, the moves are also replayed through the rules.
    """
    if not isinstance(result, dict):
        raise ValueError(f"result: expected a dict, got {type(result).__name__}")
    missing = [
        k
        for k in ("run_id", "batch_index", "engine_version", "pentanomial", "wdl", "games")
        if k not in result
    ]
    if missing:
        raise ValueError(f"result: missing {', '.join(missing)}")
    if result["run_id"] != run_id:
        raise ValueError(f"run_id: result is for run {result['run_id']!r}, expected {run_id!r}")
    if result["batch_index"] != batch_index:
        raise ValueError(
            f"batch_index: result is for batch {result['batch_index']!r}, expected {batch_index}"
        )
    if result["engine_version"] != engine_version:
        raise ValueError(
            f"engine_version: result was played by {result['engine_version']!r}, expected {engine_version!r}"
        )
    pentanomial = _check_counts(result["pentanomial"], 5, expected_pairs, "pentanomial")
    wdl = _check_counts(result["wdl"], 3, 2 * expected_pairs, "wdl")
    if openings is not None and len(openings) != expected_pairs:
        raise ValueError(f"openings: {len(openings)} openings given for {expected_pairs} pairs")
    _check_records(result["games"], expected_pairs, openings)
    counted_pentanomial, counted_wdl = tally(result["games"])
    if counted_pentanomial != pentanomial:
        raise ValueError(
            f"pentanomial: {pentanomial} does not match the game records ({counted_pentanomial})"
        )
    if counted_wdl != wdl:
        raise ValueError(f"wdl: {wdl} does not match the game records ({counted_wdl})")
    if game is not None:
        replay_moves(game, result["games"])
