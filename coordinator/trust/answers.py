"""Whether a worker's result answers the payload it was sent for, and whether its games are true:
the check every result must pass before anything of it counts.

A result answers its payload when it is for the same run, batch and engine, has one record per
game in pair order (candidate white then black) from the openings sent, and claims the counts of
its records. A record counts only if its moves are legal from its opening and its stated result
and reason are exactly how the rules or the run's adjudication end that game (a win by the rules,
the ply limit, a threefold repetition, bare lions). What cannot be seen in the moves is accepted
only where it can happen, and the spot checks prove it: a resignation where the run allows
resigning, a loss on time under a time limit (the built-in engine's under a clock; a program's
also over its movetime), and an engine program's fault (a crash, an illegal move, a hang, a
protocol violation, no answer) where a side is played by a program; always by the side to move,
except a program failing before the first move. Each fault a result reports must name a different
game that its side lost by a fault's reason, and every such game of a batch with programs must
have its fault. A timed game's node budgets, which a spot check searches again, must fit it: one
per move, neither side of the built-in engine credited with far fewer nodes than the other (a
side crippled with tiny budgets plays real, repeatable moves), and none beyond what the side's
clock allows at any speed (a replay of those would never end).

All of it about the records is one call to the rules core (``engine.check_records``), which reads the
records as the worker sent them, replays each distinct game once, and returns the counts and the
records in the store's form: the coordinator checks tens of thousands of records a second.
"""

from __future__ import annotations

from collections.abc import Callable

import engine
from coordinator.store.results import CheckedResult
from wire.protocol import TIME_FACTOR_RANGE, BatchPayload, GameRecord, ResultReport, records_from_json
from wire.speed import REFERENCE_NPS

#: Decides whether a well-formed result answers its payload with true games; raises ValueError
#: naming what is not, else returns what the store keeps of it.
AnswerCheck = Callable[[ResultReport, BatchPayload], CheckedResult]

#: In a timed batch, neither side may have searched more than this many times as many nodes as
#: the other (both have the same clock): a worker claiming small budgets for one side, to weaken
#: it in the check, is refused.
MAX_BUDGET_RATIO = 3.0
#: Below this many nodes per side in a batch the ratio says nothing (a very short batch).
MIN_BUDGET_NODES = 10_000
#: The most nodes a second any worker searches under a time limit: the reference machine's speed
#: over the least time factor a worker may scale by (the fastest machine time scaling admits).
MAX_NODES_PER_SECOND = REFERENCE_NPS / TIME_FACTOR_RANGE[0]


def check_answer(report: ResultReport, payload: BatchPayload) -> CheckedResult:
    """ValueError unless ``report`` answers ``payload`` with true games (see the module's
    docstring), naming the first thing wrong; else the result with the counts tallied from its
    records and the records in the store's form."""
    if report.run_id != payload.run_id:
        raise ValueError(f"run_id: result is for run {report.run_id!r}, expected {payload.run_id!r}")
    if report.batch_index != payload.batch_index:
        raise ValueError(
            f"batch_index: result is for batch {report.batch_index!r}, expected {payload.batch_index}"
        )
    if report.engine_version != payload.engine_version:
        raise ValueError(
            f"engine_version: result was played by {report.engine_version!r}, "
            f"expected {payload.engine_version!r}"
        )
    pairs = payload.pairs
    if sum(report.pentanomial) != pairs:
        raise ValueError(f"pentanomial: counts add up to {sum(report.pentanomial)}, expected {pairs}")
    if sum(report.wdl) != 2 * pairs:
        raise ValueError(f"wdl: counts add up to {sum(report.wdl)}, expected {2 * pairs}")
    if not payload.has_programs and (report.faults or report.engines):
        raise ValueError("faults, engines: reported for a batch that no engine program plays")
    pentanomial, wdl, records = engine.check_records(
        payload.game,
        report.games,
        payload.openings,
        report.pentanomial,
        report.wdl,
        [(fault["game"], fault["side"] == "candidate") for fault in report.faults],
        payload.adjudication,
        payload.limits,
        payload.has_programs,
    )
    if not payload.limits.deterministic:
        check_budgets(payload, records_from_json(report.games))
    return CheckedResult(report, pentanomial, wdl, records)


def side_time_ms(limits: engine.Limits, moves: int) -> int | None:
    """The most milliseconds one side's ``moves`` moves of a game may take under ``limits``, each
    with the margin a search may run past its time (None without a time limit)."""
    margin = limits.time_margin_ms
    bounds = []
    if limits.movetime_ms is not None:
        bounds.append((limits.movetime_ms + margin) * moves)
    control = limits.time_control
    if control is not None:
        periods = 1 + (moves // control.moves if control.moves else 0)
        bounds.append(control.base_ms * periods + (control.increment_ms + margin) * moves)
    return min(bounds) if bounds else None


def check_budgets(payload: BatchPayload, games: list[GameRecord]) -> None:
    """ValueError unless a timed batch's budgets fit its games: one per move; between two sides of
    the built-in engine, neither credited with far fewer nodes than the other (see
    :data:`MAX_BUDGET_RATIO`), and no side of a game with more than its clock allows at
    :data:`MAX_NODES_PER_SECOND` (programs search at speeds and count nodes of their own, and
    their replays stop at each move's time limit)."""
    per_side = {"candidate": 0, "baseline": 0}
    for i, record in enumerate(games):
        budgets = record.budget_list()
        if len(budgets) != record.plies:
            raise ValueError(f"games[{i}]: {len(budgets)} node budgets for {record.plies} moves")
        first = "white" if record.opening.endswith(" w") else "black"  # who moves at ply 0
        nodes, moves = {"candidate": 0, "baseline": 0}, {"candidate": 0, "baseline": 0}
        for ply, budget in enumerate(budgets):
            side = "candidate" if (ply % 2 == 0) == (record.candidate_color == first) else "baseline"
            nodes[side] += budget
            moves[side] += 1
        for side, searched in nodes.items():
            allowed = side_time_ms(payload.limits, moves[side])
            if (
                not payload.has_programs
                and allowed is not None
                and searched > MAX_NODES_PER_SECOND * allowed / 1000
            ):
                raise ValueError(
                    f"games[{i}]: budgets: the {side} searched {searched} nodes in {moves[side]} moves, "
                    f"more than its clock allows at {MAX_NODES_PER_SECOND:,.0f} nodes a second"
                )
            per_side[side] += searched
    low, high = sorted(per_side.values())
    if not payload.has_programs and high >= MIN_BUDGET_NODES and high > MAX_BUDGET_RATIO * max(low, 1):
        raise ValueError(
            f"budgets: the candidate searched {per_side['candidate']} nodes and the baseline "
            f"{per_side['baseline']} under the same clock"
        )
