"""This machine's speed against the reference machine, for time limits scaled as fishtest scales
them: a worker twice as fast as the reference plays with half the time, so that slow and fast
machines play at the same effective strength. Node and depth limits are never scaled.

The speed is the built-in engine's bench (a fixed search of fixed positions), measured once per
process, the first time a timed batch asks for it; the reference speed and what a factor does to
limits are ``wire.speed``'s (a result states the factor its worker played with).
"""

from __future__ import annotations

import functools
import time

import engine
from wire.speed import REFERENCE_NPS

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
