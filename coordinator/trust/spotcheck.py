"""What a spot check decides, as pure functions: which batches are checked, by which peer,
whether a result is plausible at all, and whether two plays of a batch are the same games (the
executor that sends and compares them is :mod:`coordinator.executors.checking`).

Deterministic spot checks are the proof that a worker plays the games it was sent. Under node and
depth limits the same payload always gives the same games, move for move, so a batch is checked by
playing it again. What proves a batch: the coordinator's own pool playing it alike, or a *trusted*
peer playing it alike, one that this run has proved by the coordinator's own pool and that the
statistics do not suspect; a peer's agreement is never proof on its own. Timed games are not the
same twice, but every move's search stopped at a node, and the worker records that node count
(its budget) for every move: searching each move again with exactly its budget must give the same
move, which the coordinator's pool checks (:func:`worker.games.replay_budgets`).

Which batches are checked, and which trusted peer checks each, is chosen with a key of the run's
that only the coordinator holds (the store's ``runs.check_key``): a worker cannot tell which of its
batches will be checked, nor by whom, and a checked batch is, to the worker that played it, like
any other. Every worker's first batches in every run are checked by the coordinator's own pool,
and every batch of a worker under suspicion: one whose results differ beyond chance from the
results the coordinator played itself (:func:`coordinator.stats.residuals.outliers_against`).
The odds of catching a liar, or colluders, are in :mod:`coordinator.trust.odds`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import Any

import engine
from coordinator.trust.answers import check_answer
from wire.protocol import COMPARED_FIELDS, BatchPayload, BatchResult, ResultReport, move_list


def checkable_by_replaying(payload: BatchPayload) -> bool:
    """Whether a batch's games are the same every time it is played (node and depth limits): a
    time limit's are not, so such batches are checked move by move with their recorded budgets."""
    return payload.limits.deterministic


def chosen_for_check(key: bytes, payload: BatchPayload, fraction: float) -> bool:
    """Whether batch ``payload`` is in its run's checked fraction: chosen by the run's secret
    ``key`` (nothing a worker sees tells it which batches are chosen)."""
    mac = hmac.new(key, f"spot-check:{payload.run_id}:{payload.batch_index}".encode(), hashlib.sha256)
    return int.from_bytes(mac.digest()[:8], "big") / 2**64 < fraction


def peer_for_check(key: bytes, payload: BatchPayload, trusted: Sequence[str]) -> str | None:
    """The worker of ``trusted`` that checks batch ``payload``, chosen by the run's secret
    ``key`` (no worker can tell which peer checks which batch); None when there is none."""
    if not trusted:
        return None
    mac = hmac.new(key, f"peer:{payload.run_id}:{payload.batch_index}".encode(), hashlib.sha256)
    return sorted(trusted)[int.from_bytes(mac.digest()[:8], "big") % len(trusted)]


def games_of(result: Any) -> list[dict[str, Any]] | None:
    """The games of a JSON result as compared move for move (None if it has none)."""
    if not isinstance(result, dict) or not isinstance(result.get("games"), list | engine.Records):
        return None
    games = list(result["games"])
    if not all(isinstance(g, dict) for g in games):
        return None
    return [{k: g.get(k) for k in COMPARED_FIELDS} for g in games]


def plausible(payload: BatchPayload, result: Any) -> BatchResult | None:
    """``result`` parsed, if it passes the checks every result must pass (no check is spent on the
    others: the runner refuses them with the reason)."""
    try:
        report = ResultReport.from_json(result)
        check_answer(report, payload)
        return BatchResult.from_report(report)
    except ValueError:
        return None


def first_difference(sent: Any, replayed: Any) -> str:
    """Where two results' games first differ, in a few words."""
    a, b = games_of(sent) or [], games_of(replayed) or []
    if len(a) != len(b):
        return f"{len(a)} games instead of {len(b)}"
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x != y:
            field = next(k for k in x if x[k] != y[k])
            if field == "moves" and isinstance(x["moves"], str) and isinstance(y["moves"], str):
                mine, theirs = move_list(x["moves"]), move_list(y["moves"])
                ply = next(
                    (p for p, (m, n) in enumerate(zip(mine, theirs, strict=False), 1) if m != n),
                    min(len(mine), len(theirs)) + 1,
                )
                return f"game {i} differs from ply {ply}"
            return f"game {i}: {field} {x[field]!r} instead of {y[field]!r}"
    return "no difference"
