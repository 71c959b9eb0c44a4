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
have its fault.

All of it about the records is one call to the rules core (``engine.check_records``), which reads the
records as the worker sent them, replays each distinct game once, and returns the counts and the
records in the store's form: the coordinator checks tens of thousands of records a second.
"""

from __future__ import annotations

from collections.abc import Callable

import engine
from coordinator.store.results import CheckedResult
from wire.protocol import BatchPayload, ResultReport

#: Decides whether a well-formed result answers its payload with true games; raises ValueError
#: naming what is not, else returns what the store keeps of it.
AnswerCheck = Callable[[ResultReport, BatchPayload], CheckedResult]


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
    return CheckedResult(report, pentanomial, wdl, records)
