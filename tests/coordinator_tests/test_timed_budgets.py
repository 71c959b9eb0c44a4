"""The budgets of a timed result, as the check every result must pass judges them
(coordinator/trust/answers.py): a worker that cripples one side with tiny budgets, or claims budgets
no clock allows (which would hold the coordinator's pool, repeating them, for ever), is refused and
quarantined by the runner; nothing of it reaches a spot check, or a count."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from coordinator.executors.base import BatchOutcome
from coordinator.executors.checking import CheckingExecutor
from coordinator.trust.answers import check_answer
from wire.protocol import BatchPayload, ResultReport
from wire.tally import tally
from worker.games import index_openings, pair_limits

START = engine.Position.start("congo").fen()
#: A tiny timed batch: one pair from the start, 12 plies at most.
PAYLOAD = BatchPayload(
    run_id=1,
    batch_index=0,
    game="congo",
    candidate=None,
    baseline=None,
    openings=[START],
    limits=engine.Limits(movetime_ms=50),
    adjudication=engine.Adjudication(max_plies=12),
    seed=0,
    engine_version=engine.ENGINE_VERSION,
)


def timed_result(candidate: int, baseline: int) -> dict[str, Any]:
    """The batch's real games, each move of the candidate searched with ``candidate`` nodes and of
    the baseline with ``baseline`` (what a spot check repeating the budgets finds alike)."""
    records = []
    for i, opening in enumerate(index_openings(PAYLOAD)):
        white = "candidate" if i % 2 == 0 else "baseline"
        nodes = {"candidate": candidate, "baseline": baseline}
        other = "baseline" if white == "candidate" else "candidate"
        budgets = [nodes[white] if ply % 2 == 0 else nodes[other] for ply in range(12)]
        limits = pair_limits(PAYLOAD.limits, PAYLOAD.seed, 0)
        moves = engine.moves_for_budgets("congo", None, None, opening, limits, budgets)
        position = engine.Position.from_fen("congo", opening)
        for move in moves:
            position = position.play(move)
        end = position.outcome()
        result, reason = (
            ("1-0" if end.winner == "white" else "0-1", end.reason) if end else ("1/2-1/2", "ply_limit")
        )
        records.append(
            {
                "opening": opening,
                "moves": " ".join(moves),
                "result": result,
                "reason": reason,
                "candidate_color": "white" if white == "candidate" else "black",
                "budgets": " ".join(map(str, budgets[: len(moves)])),
                "times": "",
            }
        )
    pentanomial, wdl = tally(records)
    return {
        "run_id": 1,
        "batch_index": 0,
        "engine_version": engine.ENGINE_VERSION,
        "pentanomial": pentanomial,
        "wdl": wdl,
        "games": records,
        "worker": "w@x",
    }


def test_even_budgets_within_the_clock_pass() -> None:
    checked = check_answer(ResultReport.from_json(timed_result(2_000, 2_000)), PAYLOAD)
    assert sum(checked.wdl) == 2


@pytest.mark.parametrize(
    ("candidate", "baseline", "why"),
    [
        (20_000, 1, "under the same clock"),  # the baseline crippled: a real, repeatable lie
        (10**15, 10**15, "more than its clock allows"),  # a replay of it would never end
    ],
    ids=["crippled", "beyond-the-clock"],
)
def test_lying_budgets_are_refused_by_the_check_every_result_passes(
    candidate: int, baseline: int, why: str
) -> None:
    result = timed_result(candidate, baseline) if candidate < 10**9 else with_budgets(candidate)
    with pytest.raises(ValueError, match=why):
        check_answer(ResultReport.from_json(result), PAYLOAD)
    # The spot-checking executor hands it to the runner (which refuses it, and quarantines its
    # worker) rather than holding it for a replay.
    checking = CheckingExecutor(inner=None, verifier=None, fraction=1.0)  # type: ignore[arg-type]
    checking.submit = lambda payload: None  # type: ignore[method-assign]
    checking._payloads[(1, 0)] = PAYLOAD
    (delivered,) = checking._admit(BatchOutcome(1, 0, result=result, worker="w@x", authenticated=True))
    assert delivered.result is result and not checking._held


def with_budgets(nodes: int) -> dict[str, Any]:
    """An honest batch whose every budget is then claimed as ``nodes``."""
    result = timed_result(2_000, 2_000)
    for record in result["games"]:
        record["budgets"] = " ".join([str(nodes)] * len(record["moves"].split()))
    return result
