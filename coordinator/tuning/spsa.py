"""SPSA's update rule, as fishtest plays it, in pure functions: the gains, the perturbation of one
iteration and the step theta takes from its result. No I/O; :mod:`coordinator.tuning.spsa_tuner`
plays the games.

fishtest's parametrisation (``server/fishtest/spsa_handler.py`` and the parser of its SPSA
parameters): for a run planned over ``N`` game pairs, each weight has ``c_end`` (the perturbation
at the end) and ``r_end`` (the learning rate at the end), and

    c   = c_end * N ** gamma                    c_k = c / k ** gamma
    a   = r_end * c_end ** 2 * (A + N) ** alpha a_k = a / (A + k) ** alpha

where ``k`` counts game pairs from 1. One iteration plays ``theta + c_k * flip`` (the candidate)
against ``theta - c_k * flip`` (the baseline), a Rademacher sign per weight, and moves each weight
by ``a_k / c_k * (wins - losses) * flip`` (fishtest's ``R * c * result * flip`` with
``R = a_k / c_k ** 2``), clipped to the weight's range. An iteration of ``P`` pairs takes its gains
at ``k = iteration * P + 1``, the pair it starts with, as if iterations ran one after the other.

Defaults as Stockfish's ``TUNE`` prints them for fishtest: ``c_end`` a twentieth of the weight's
range, ``r_end`` 0.002; ``A`` a tenth of the planned pairs; alpha 0.602 and gamma 0.101.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from coordinator.sprt.config import derive_seed

ALPHA = 0.602
GAMMA = 0.101
#: ``c_end`` as a fraction of a weight's range (Stockfish's TUNE: ``(max - min) / 20``).
C_END_FRACTION = 0.05
R_END = 0.002
#: ``A`` as a fraction of the planned game pairs.
A_RATIO = 0.1


@dataclass(frozen=True)
class SpsaWeight:
    """One tuned weight: its range and its end-of-run perturbation and learning rate."""

    name: str
    low: int
    high: int
    c_end: float
    r_end: float

    def clip(self, value: float) -> float:
        """``value`` inside the weight's range."""
        return min(max(value, float(self.low)), float(self.high))


@dataclass(frozen=True)
class SpsaPlan:
    """The gains of a run of ``iterations`` iterations of ``pairs_per_iteration`` game pairs."""

    weights: tuple[SpsaWeight, ...]
    iterations: int
    pairs_per_iteration: int
    a_ratio: float = A_RATIO
    alpha: float = ALPHA
    gamma: float = GAMMA

    def __post_init__(self) -> None:
        """Reject plans no run could follow."""
        if not self.weights:
            raise ValueError("SPSA needs at least one weight to tune")
        if self.iterations < 1 or self.pairs_per_iteration < 1:
            raise ValueError("SPSA needs at least one iteration of at least one game pair")
        for w in self.weights:
            if w.low >= w.high or w.c_end <= 0 or w.r_end <= 0:
                raise ValueError(f"weight {w.name}: SPSA needs a range, c_end > 0 and r_end > 0")
            try:  # the first iteration's gains are the largest
                gains = (self.a(w, 0), self.c(w, 0))
            except OverflowError:
                gains = (math.inf, math.inf)
            if not all(math.isfinite(g) for g in gains):
                raise ValueError(
                    f"weight {w.name}: c_end {w.c_end:g} and r_end {w.r_end:g} make SPSA's gains overflow"
                )

    @property
    def pairs(self) -> int:
        """Planned game pairs (fishtest's ``num_iter``)."""
        return self.iterations * self.pairs_per_iteration

    @property
    def big_a(self) -> float:
        """fishtest's ``A``: a warm-up, in pairs, that keeps the first steps small."""
        return self.a_ratio * self.pairs

    def pair_index(self, iteration: int) -> int:
        """``k`` of ``iteration``: its first game pair, counted from 1."""
        return iteration * self.pairs_per_iteration + 1

    def c(self, weight: SpsaWeight, iteration: int) -> float:
        """The perturbation ``c_k`` of ``weight`` in ``iteration``."""
        c = weight.c_end * float(self.pairs**self.gamma)
        return c / float(self.pair_index(iteration) ** self.gamma)

    def a(self, weight: SpsaWeight, iteration: int) -> float:
        """The gain ``a_k`` of ``weight`` in ``iteration``."""
        a = weight.r_end * weight.c_end**2 * float((self.big_a + self.pairs) ** self.alpha)
        return a / float((self.big_a + self.pair_index(iteration)) ** self.alpha)


def plan_for(
    table: Sequence[tuple[str, int, int]],
    iterations: int,
    pairs_per_iteration: int,
    c_end_fraction: float = C_END_FRACTION,
    r_end: float = R_END,
    a_ratio: float = A_RATIO,
    alpha: float = ALPHA,
    gamma: float = GAMMA,
) -> SpsaPlan:
    """The plan for weights ``(name, min, max)`` with fishtest's defaults derived from each range."""
    weights = tuple(SpsaWeight(n, lo, hi, c_end_fraction * (hi - lo), r_end) for n, lo, hi in table)
    return SpsaPlan(weights, iterations, pairs_per_iteration, a_ratio, alpha, gamma)


def flips(seed: int, iteration: int, count: int) -> tuple[int, ...]:
    """The Rademacher signs (+1 or -1, one per weight) of ``iteration``, from the run's seed."""
    bits = random.Random(derive_seed(seed, "spsa flips", iteration)).getrandbits(count)
    return tuple(1 if bits >> i & 1 else -1 for i in range(count))


@dataclass(frozen=True)
class Perturbation:
    """The two engines of one iteration: ``plus`` plays ``minus`` (integer weights)."""

    plus: dict[str, int]
    minus: dict[str, int]


def perturb(
    plan: SpsaPlan,
    theta: Mapping[str, float],
    iteration: int,
    signs: Sequence[int],
    rounding_seed: int | None = None,
) -> Perturbation:
    """theta +- c_k * flip, clipped to each range and made whole numbers: rounded to the nearest,
    or, with ``rounding_seed``, stochastically as fishtest rounds them (up with a probability of
    the fraction; one draw per weight shared by both engines, from the seed and the iteration, so
    a run's engines are the same on any machine)."""
    draws = (
        None
        if rounding_seed is None
        else random.Random(derive_seed(rounding_seed, "spsa rounding", iteration))
    )
    plus, minus = {}, {}
    for w, flip in zip(plan.weights, signs, strict=True):
        c = plan.c(w, iteration)
        up = None if draws is None else draws.random()
        plus[w.name] = _whole(w, w.clip(theta[w.name] + c * flip), up)
        minus[w.name] = _whole(w, w.clip(theta[w.name] - c * flip), up)
    return Perturbation(plus, minus)


def _whole(weight: SpsaWeight, value: float, up: float | None) -> int:
    """``value`` as a whole number: the nearest, or rounded stochastically (``up``: a uniform draw
    in [0, 1)), within the weight's range."""
    if up is None:
        return round(value)
    return int(min(max(math.floor(value + up), weight.low), weight.high))


def step(
    plan: SpsaPlan, theta: Mapping[str, float], iteration: int, signs: Sequence[int], result: int
) -> dict[str, float]:
    """theta after ``iteration``'s ``result`` (the plus engine's wins minus losses)."""
    moved = {}
    for w, flip in zip(plan.weights, signs, strict=True):
        moved[w.name] = w.clip(theta[w.name] + plan.a(w, iteration) / plan.c(w, iteration) * result * flip)
    return moved


def rounded(theta: Mapping[str, float]) -> dict[str, int]:
    """theta as engine weights."""
    return {name: round(value) for name, value in theta.items()}


def is_checkpoint(iteration: int, plan: SpsaPlan, every_games: int | None) -> bool:
    """True when theta after ``iteration`` goes to an acceptance SPRT: each time the iterations'
    games pass a multiple of ``every_games``, and after the last iteration."""
    if iteration == plan.iterations - 1:
        return True
    if not every_games:
        return False
    games = 2 * plan.pairs_per_iteration
    return (iteration + 1) * games // every_games > iteration * games // every_games
