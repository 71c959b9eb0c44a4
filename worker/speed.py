"""This machine's speed against the reference machine, for time limits scaled as fishtest scales
them: a worker twice as fast as the reference plays with half the time, so that slow and fast
machines play at the same effective strength. Node and depth limits are never scaled.

The speed is the built-in engine's bench (a fixed search of fixed positions), measured once per
process, the first time a timed batch asks for it.
"""

from __future__ import annotations

import functools
import time

import engine

#: The reference machine's self-bench speed (:func:`bench_nps`: nodes per second of one core, both
#: games at BENCH_DEPTH): the idle 2-core project machine of docs/performance.md, whose signature
#: bench (depth 9) runs at 2.75 M nodes/s for both games; the self-bench runs at about 0.9 of the
#: signature bench's speed (measured side by side, docs/performance.md, Time scaling). Time limits
#: mean time on that machine.
REFERENCE_NPS = 2_500_000
#: The bench depth measured (a fraction of a second).
BENCH_DEPTH = 7
#: Factors beyond these are clamped (a machine this far off is not measured but broken).
FACTOR_RANGE = (0.1, 10.0)


@functools.cache
def bench_nps() -> float:
    """This process's bench speed, in nodes per second (measured once)."""
    nodes = 0
    started = time.perf_counter()
    for game in engine.GAMES:
        counted, _ = engine.bench(game, depth=BENCH_DEPTH)
        nodes += counted
    return nodes / max(time.perf_counter() - started, 1e-6)


def time_factor(nps: float | None = None) -> float:
    """What time limits are multiplied by on this machine: the reference speed over its own."""
    measured = bench_nps() if nps is None else nps
    low, high = FACTOR_RANGE
    return min(high, max(low, REFERENCE_NPS / measured))


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
