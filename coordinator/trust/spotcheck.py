"""What a spot check decides, as pure functions: which batches are checked, and whether two plays
of a batch are the same games (the executor that sends and compares them is
:mod:`coordinator.executors.checking`).

Deterministic spot checks are the proof that a worker plays the games it was sent.

Games are deterministic under node and depth limits: the same payload always gives the same games,
move for move. So the coordinator can check a worker by having some of its batches played again:
the first batch of every worker, and a fraction of all batches chosen from the run's seed. The
check is played by another worker of the fleet, sent to it alone (its direct queue), so that checks
scale with the fleet; when the two disagree, or no other worker is up, the coordinator's own pool
plays the batch too and decides, and whoever differs from it is the liar. A result held for a
check is delivered only once a check agrees; a mismatch quarantines the worker: its held and later
results become refusals (their batches are played again elsewhere), and the runs are told
(:attr:`CheckingExecutor.quarantined`) so that they discard what they stored from it and count
again. A peer whose check was wrong is quarantined the same way.

A result that fails the checks every result must pass (a forged record, an illegal move) also
quarantines its worker (:meth:`CheckingExecutor.quarantine`): a worker that lies once is not
believed again.

Worker names are what results say they are. Whoever can write to the result backend can claim a
name, so a name proves nothing; what the spot checks prove is that the games are the right ones.
(Two workers that lie alike, or a liar that also writes the result backend and copies the result it
checks, pass a check by peers: the coordinator's own pool is the one judge no worker can sway.)
"""

from __future__ import annotations

import hashlib
from typing import Any

from coordinator.trust.answers import check_matches_payload
from coordinator.trust.replay import replay_check
from worker.protocol import RECORD_FIELDS, BatchPayload, BatchResult, move_list


def checkable(payload: BatchPayload) -> bool:
    """Whether a batch's games are the same every time it is played (node and depth limits): a
    time limit's are not, so such batches are checked by replay alone, never played again."""
    return payload.limits.deterministic


def chosen_for_check(payload: BatchPayload, fraction: float) -> bool:
    """Whether batch ``payload`` is in the checked fraction: a pure function of its seed."""
    digest = hashlib.sha256(f"spot-check:{payload.run_id}:{payload.seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < fraction


def games_of(result: Any) -> list[dict[str, Any]] | None:
    """The games of a JSON result as compared move for move (None if it has none)."""
    if not isinstance(result, dict) or not isinstance(result.get("games"), list):
        return None
    games = result["games"]
    if not all(isinstance(g, dict) for g in games):
        return None
    return [{k: g.get(k) for k in RECORD_FIELDS} for g in games]


def plausible(payload: BatchPayload, result: Any) -> bool:
    """Whether ``result`` passes the checks every result must pass (no replay is spent on the
    others: the runner refuses them with the reason)."""
    try:
        checked = BatchResult.from_json(result)
        check_matches_payload(checked, payload)
        replay_check(payload, checked)
    except ValueError:
        return False
    return True


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
