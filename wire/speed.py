"""Time scaling as both sides read it: the reference machine's speed, and what a worker's time
factor (a result's ``time_factor``: the reference speed over its own, ``worker.speed``) does to a
run's limits. Node and depth limits are never scaled.
"""

from __future__ import annotations

import engine

#: The reference machine's self-bench speed (:func:`worker.speed.bench_nps`: nodes per second of
#: one core, both games at its BENCH_DEPTH): the idle 2-core project machine of
#: docs/performance.md, whose signature bench (depth 9) runs at 2.75 M nodes/s for both games; the
#: self-bench runs at about 0.9 of the signature bench's speed (measured side by side,
#: docs/performance.md, Time scaling). Time limits mean time on that machine.
REFERENCE_NPS = 2_500_000


def scaled(limits: engine.Limits, factor: float) -> engine.Limits:
    """``limits`` with their times (per move, and the clock's base and increment) multiplied by
    ``factor``; nodes and depth unchanged."""
    if factor == 1.0:
        return limits
    changes: dict[str, object] = {}
    if limits.movetime_ms is not None:
        changes["movetime_ms"] = max(1, round(limits.movetime_ms * factor))
    if limits.time_control is not None:
        changes["time_control"] = limits.time_control.scaled(factor)
    return limits.replace(**changes) if changes else limits
