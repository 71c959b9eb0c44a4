"""Play one batch of game pairs (no Celery here).

A batch is a list of openings; each opening is played twice with colours reversed, the candidate
white first, then black. The same function runs in the local process pool and in a Celery worker;
what goes in and comes out is defined in :mod:`wire.protocol`.
"""

from __future__ import annotations

import os
import random
import socket
import time
from collections.abc import Callable
from typing import Any

import orjson

import engine
from wire.programs import ProgramError
from wire.progress import Report
from wire.protocol import PAIR_COLORS, BatchPayload, BatchResult, Color, GameRecord, number_list
from wire.sealing import WorkerKeys, addressee, digest, refusal, seal
from wire.speed import scaled
from wire.tally import tally
from worker.builds import BuildError
from worker.program_batch import Fetch, play_program_batch
from worker.program_batch import moves_for_budgets as program_moves
from worker.programs import ProgramCache
from worker.referee.kept import KEPT
from worker.speed import time_factor

PlayGame = Callable[..., engine.GameRecord]

#: Node limits vary by up to this fraction per game pair, derived from the batch seed.
NODE_JITTER = 0.05


def worker_name() -> str:
    """``hostname:pid`` of this process, recorded with each result."""
    return f"{socket.gethostname()}:{os.getpid()}"


class OtherEngine(ValueError):
    """The payload asks for an engine this worker does not have."""


def check_engine_version(payload: BatchPayload) -> None:
    """:class:`OtherEngine` unless this worker has the engine version the payload asks for."""
    if payload.engine_version != engine.ENGINE_VERSION:
        raise OtherEngine(
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
    payload: BatchPayload,
    play_game: PlayGame | None = None,
    worker: str | None = None,
    fetch: Fetch | None = None,
    cache: ProgramCache | None = None,
    progress: Report | None = None,
) -> BatchResult:
    """Play every opening of ``payload`` twice, colours reversed; the records and their counts,
    signed with ``worker`` (default: :func:`worker_name`). Sides played by engine programs go
    through the referee, with each program from ``cache`` (``fetch`` gets a missing one); time
    limits are scaled by this machine's speed when the payload asks. ``progress`` is told the
    games played so far after each game (:mod:`wire.progress`).

    ``play_game`` defaults to ``engine.play_game``; it is a parameter only so that the plumbing can
    be exercised without the search.
    """
    check_engine_version(payload)
    started = time.process_time()
    factor = time_factor() if payload.scale_time and not payload.limits.deterministic else 1.0

    def limits_of(pair: int) -> engine.Limits:
        return scaled(pair_limits(payload.limits, payload.seed, pair), factor)

    nodes = {"candidate": 0, "baseline": 0}
    faults: list[dict[str, Any]] = []
    engines: dict[str, dict[str, str | None]] = {}
    engines_cpu = 0.0
    if payload.has_programs:
        played = play_program_batch(payload, limits_of, fetch, cache, progress)
        records, engines, engines_cpu = played.records, played.engines, played.engines_cpu_seconds
        faults = [f.to_json() for f in played.faults]
    else:
        KEPT.close()  # the engines of an earlier batch: no batch of theirs follows this one
        records = play_in_process(payload, limits_of, play_game or engine.play_game, nodes, progress)
    pentanomial, wdl = tally(records)
    return BatchResult(
        run_id=payload.run_id,
        batch_index=payload.batch_index,
        engine_version=engine.ENGINE_VERSION,
        pentanomial=pentanomial,
        wdl=wdl,
        games=records,
        nodes=nodes,
        cpu_seconds=time.process_time() - started + engines_cpu,
        worker=worker or worker_name(),
        faults=faults,
        time_factor=factor,
        engines=engines,
    )


def play_in_process(
    payload: BatchPayload,
    limits_of: Callable[[int], engine.Limits],
    play: PlayGame,
    nodes: dict[str, int],
    progress: Report | None = None,
) -> list[GameRecord]:
    """Every game of ``payload`` with the built-in engine, in this process (``nodes``: each
    side's searched nodes, added up; ``progress``: told the games played after each one)."""
    sides = {"candidate": payload.candidate, "baseline": payload.baseline}
    records: list[GameRecord] = []
    for pair, opening in enumerate(payload.openings):
        limits = limits_of(pair)
        for candidate_color in PAIR_COLORS:
            white, black = (
                ("candidate", "baseline") if candidate_color is Color.WHITE else ("baseline", "candidate")
            )
            played = play(payload.game, sides[white], sides[black], opening, limits, payload.adjudication)
            white_nodes, black_nodes = (int(n) for n in played.get("nodes", (0, 0)))
            nodes[white] += white_nodes
            nodes[black] += black_nodes
            timed = not limits.deterministic  # a timed game states how to repeat it, and its times
            records.append(
                GameRecord(
                    opening=opening,
                    moves=" ".join(played["moves"]),
                    result=played["result"],
                    reason=played["reason"],
                    candidate_color=candidate_color,
                    budgets=" ".join(map(str, played["budgets"])) if timed else "",
                    times=" ".join(map(str, played["times_ms"])) if timed else "",
                )
            )
            if progress is not None:
                progress(len(records))
    return records


def run_batch(
    data: Any, worker: str | None = None, fetch: Fetch | None = None, progress: Report | None = None
) -> dict[str, Any]:
    """Check a JSON payload, play it, return the JSON result (in the local pool, the whole task;
    ``progress`` is told the games played so far).

    A malformed payload, one asking for another engine version, or a program this machine cannot
    have or run, raises a one-line ValueError that the coordinator records as the reason the
    batch was refused.
    """
    return play_batch(BatchPayload.from_json(data), worker=worker, fetch=fetch, progress=progress).to_json()


def answer_batch(
    data: Any, worker: str, fetch: Fetch | None = None, progress: Report | None = None
) -> dict[str, Any]:
    """A Celery worker's answer for a JSON payload: the result of :func:`run_batch`, or the
    refusal of a batch it cannot play (a malformed payload, another engine version, a program it
    cannot have or run)."""
    try:
        return run_batch(data, worker=worker, fetch=fetch, progress=progress)
    except OtherEngine as e:
        return refusal(str(e), worker, kind="version")
    except (ProgramError, BuildError) as e:
        return refusal(str(e), worker, kind="program")
    except ValueError as e:
        return refusal(str(e), worker, kind="payload")


Answer = Callable[[Any, str], dict[str, Any]]


#: Why a worker without keys plays no engine program.
UNSIGNED_PROGRAMS = (
    "this worker starts engine programs only from payloads its fleet's coordinator signed: "
    "set ARBITER_WORKER_KEY (or ARBITER_SECRET) on it"
)


def answer_task(
    message: Any,
    task_id: str,
    worker: str,
    keys: WorkerKeys | None,
    answer: Answer | None = None,
    fetch: Fetch | None = None,
    progress: Report | None = None,
) -> dict[str, Any]:
    """A Celery worker's sealed answer for a batch's task message (the payload's JSON text and the
    coordinator's signature of it for this task): with keys, a payload whose signature does not
    verify is refused unplayed (nobody's fault but a forger's); without keys, a payload naming an
    engine program is refused (only a signed payload may start a program); the answer binds the
    digest of the payload played, and is sealed with this worker's key. ``answer`` turns the JSON
    payload into the body (default :func:`answer_batch`, with ``fetch`` getting missing programs
    and ``progress`` told the games played so far; test workers that lie pass their own)."""
    key = keys.key_for(worker) if keys is not None else None
    text = message.get("payload") if isinstance(message, dict) else None
    if not isinstance(text, str):
        return seal(refusal("not a batch message", worker), task_id, worker, "", key)
    played = digest(text)
    if keys is not None and not keys.verify(task_id, text, message.get("signature")):
        why = "the payload is not signed by this fleet's coordinator for this task"
        return seal(refusal(why, worker, kind="unsigned"), task_id, worker, played, key)
    to = addressee(task_id)
    if to is not None and to != worker:
        why = f"the task is addressed to worker {to}, not to this one"
        return seal(refusal(why, worker, kind="address"), task_id, worker, played, key)
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return seal(refusal("the payload is not JSON", worker), task_id, worker, played, key)
    programs = isinstance(data, dict) and (data.get("candidate_program") or data.get("baseline_program"))
    if keys is None and programs:
        return seal(refusal(UNSIGNED_PROGRAMS, worker, kind="program"), task_id, worker, played, key)
    if answer is None:
        return seal(answer_batch(data, worker, fetch, progress), task_id, worker, played, key)
    return seal(answer(data, worker), task_id, worker, played, key)


def replay_budgets(data: Any) -> dict[str, Any]:
    """The check of a timed batch (the coordinator's pool runs it): ``data`` holds the payload and
    each game's node budgets, as a worker recorded them; every game is played again with each move
    searched under exactly its budget, by searchers set up as the worker's were. The answer has
    the moves so found, game by game, to be compared with the worker's."""
    payload = BatchPayload.from_json(data["payload"])
    budgets = data["budgets"]
    if payload.has_programs:
        found = program_moves(payload, [number_list(b) for b in budgets])
        return {"games": [{"moves": " ".join(moves)} for moves in found]}
    sides = {"candidate": payload.candidate, "baseline": payload.baseline}
    games = []
    for i, opening in enumerate(index_openings(payload)):
        pair, candidate_color = divmod(i, 2)
        limits = pair_limits(payload.limits, payload.seed, pair)
        white, black = ("candidate", "baseline") if candidate_color == 0 else ("baseline", "candidate")
        moves = engine.moves_for_budgets(
            payload.game, sides[white], sides[black], opening, limits, number_list(budgets[i])
        )
        games.append({"moves": " ".join(moves)})
    return {"games": games}


def check_batch(data: Any) -> dict[str, Any]:
    """The coordinator's own check of a batch (its verifier pool runs this): ``data`` is a payload
    to play again, or a payload with the node budgets of a timed batch's games to repeat."""
    if isinstance(data, dict) and "budgets" in data:
        return replay_budgets(data)
    return run_batch(data)


def index_openings(payload: BatchPayload) -> list[str]:
    """The opening of each game of a batch in game order (each pair's opening twice)."""
    return [opening for opening in payload.openings for _ in PAIR_COLORS]
