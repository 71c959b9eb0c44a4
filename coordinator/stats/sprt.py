"""SPRT bookkeeping: bounds, the stop decision, and dynamic overshoot correction.

A test is updated with cumulative counts after each batch of games.  Because the
LLR is only looked at between batches it jumps past a bound by some "overshoot";
fishtest (``stat_util.update_SPRT``) estimates the expected overshoot from the
LLR's past record lows and highs (Siegmund, Sequential Analysis, Corollary 8.33)
and moves the bounds inward by that amount, which keeps the real error rates at
alpha and beta.  The state that this needs is carried in :class:`SprtState`, and
:func:`update_sprt` is a pure function from one state to the next.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from coordinator.stats.inputs import (
    EloModel,
    check_counts,
    check_error_rates,
    check_hypotheses,
    check_model,
)
from coordinator.stats.llr import llr as gsprt_llr

#: What the SPRT says after a look at the counts (how a whole run ended is
#: ``coordinator.runs.Decision``, which adds the budget).
Verdict = Literal["accepted", "rejected", "continue"]


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's LLR bounds ``(ln(beta/(1-alpha)), ln((1-beta)/alpha))``.

    ``alpha`` is the false-positive rate at elo0 and ``beta`` the false-negative
    rate at elo1; the test rejects below the first bound and accepts above the
    second.
    """
    alpha, beta = check_error_rates(alpha, beta)
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def decide(
    llr: float,
    lower_bound: float,
    upper_bound: float,
    overshoot0: float = 0.0,
    overshoot1: float = 0.0,
) -> Verdict:
    """Stop decision for an LLR, with the bounds moved inward by the overshoots.

    ``rejected`` if ``llr < lower_bound + overshoot0``, else ``accepted`` if
    ``llr > upper_bound - overshoot1``, else ``continue``.
    """
    if llr < lower_bound + overshoot0:
        return "rejected"
    if llr > upper_bound - overshoot1:
        return "accepted"
    return "continue"


@dataclass(frozen=True)
class SprtParams:
    """Fixed settings of one SPRT (validated on construction).

    ``elo0``/``elo1`` are in the units of ``elo_model``; ``batch_size`` is the
    number of samples (games for W/D/L data, game pairs for pentanomial data)
    between two regular updates.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    elo_model: EloModel = "normalized"
    batch_size: int = 1

    def __post_init__(self) -> None:
        """Validate and canonicalize the settings."""
        object.__setattr__(self, "elo_model", check_model(self.elo_model))
        check_hypotheses(self.elo0, self.elo1, self.elo_model)
        check_error_rates(self.alpha, self.beta)
        if isinstance(self.batch_size, bool) or not isinstance(self.batch_size, int) or self.batch_size < 1:
            raise ValueError(f"batch_size: expected a positive integer, got {self.batch_size!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lower_bound, upper_bound)`` from alpha and beta."""
        return sprt_bounds(self.alpha, self.beta)


@dataclass(frozen=True)
class Overshoot:
    """Running record of LLR descents/ascents used to estimate the overshoot.

    ``ref0``/``ref1`` are the lowest/highest LLR seen; ``m0``, ``sq0`` (``m1``,
    ``sq1``) sum the new-record jumps below ``ref0`` (above ``ref1``) and their
    squares.  The expected overshoot is ``sq / (2 m)`` on each side.
    """

    last_update: float = 0
    skipped_updates: float = 0
    ref0: float = 0.0
    m0: float = 0.0
    sq0: float = 0.0
    ref1: float = 0.0
    m1: float = 0.0
    sq1: float = 0.0

    @property
    def lower(self) -> float:
        """Expected overshoot below the lower bound (>= 0)."""
        return -self.sq0 / self.m0 / 2 if self.m0 != 0 else 0.0

    @property
    def upper(self) -> float:
        """Expected overshoot above the upper bound (>= 0)."""
        return self.sq1 / self.m1 / 2 if self.m1 != 0 else 0.0


@dataclass(frozen=True)
class SprtState:
    """Evolving part of an SPRT: the last LLR, the decision and the overshoot data.

    ``overshoot`` becomes ``None`` (no correction any more) when the update
    contract is broken: a sample count that is not a multiple of the batch size
    (recorded in ``illegal_update``) or a count smaller than before (the number of
    lost samples is recorded in ``lost_samples``).
    """

    llr: float = 0.0
    state: Verdict = "continue"
    overshoot: Overshoot | None = field(default_factory=Overshoot)
    illegal_update: float | None = None
    lost_samples: float | None = None


def _track_overshoot(o: Overshoot, llr: float, samples: float, batch_size: int) -> Overshoot:
    """Fold a new cumulative LLR observation into the overshoot record."""
    if samples == o.last_update:  # same data again: nothing new
        return o
    if samples == o.last_update + batch_size:  # the regular case
        if llr < o.ref0:
            delta = llr - o.ref0
            o = replace(o, m0=o.m0 + delta, sq0=o.sq0 + delta**2, ref0=llr)
        if llr > o.ref1:
            delta = llr - o.ref1
            o = replace(o, m1=o.m1 + delta, sq1=o.sq1 + delta**2, ref1=llr)
        return replace(o, last_update=samples)
    # Updates were missed: restart the records from here.
    return replace(
        o,
        ref0=llr,
        ref1=llr,
        skipped_updates=o.skipped_updates + (samples - o.last_update) - 1,
        last_update=samples,
    )


def update_sprt(
    params: SprtParams,
    state: SprtState,
    results: Sequence[float],
    *,
    ldw: Sequence[float] | None = None,
) -> SprtState:
    """Next SPRT state after cumulative ``results`` (fishtest's ``update_SPRT``).

    ``results`` are all counts so far in ascending-score order (``[L, D, W]`` or
    pentanomial ``[LL, LD, DD+WL, WD, WW]``); ``ldw`` gives ``[L, D, W]`` for the
    BayesElo draw-elo when ``results`` is pentanomial.  Calling it again with the
    same counts is harmless.  Start from ``SprtState()``.
    """
    results = check_counts(results, "results")
    llr = gsprt_llr(results, params.elo0, params.elo1, params.elo_model, ldw=ldw)
    samples = sum(results)
    overshoot = state.overshoot
    illegal_update = state.illegal_update
    lost_samples = state.lost_samples

    if samples % params.batch_size != 0:
        illegal_update = samples
        overshoot = None
    if overshoot is not None:
        if samples < overshoot.last_update:
            lost_samples = overshoot.last_update - samples
            overshoot = None
        else:
            overshoot = _track_overshoot(overshoot, llr, samples, params.batch_size)

    lower, upper = params.bounds
    o0 = overshoot.lower if overshoot is not None else 0.0
    o1 = overshoot.upper if overshoot is not None else 0.0
    return SprtState(
        llr=llr,
        state=decide(llr, lower, upper, o0, o1),
        overshoot=overshoot,
        illegal_update=illegal_update,
        lost_samples=lost_samples,
    )


def run_sprt(params: SprtParams, updates: Sequence[Sequence[float]]) -> list[SprtState]:
    """States after each of a sequence of cumulative updates, starting from scratch."""
    states: list[SprtState] = []
    state = SprtState()
    for results in updates:
        state = update_sprt(params, state, results)
        states.append(state)
    return states
