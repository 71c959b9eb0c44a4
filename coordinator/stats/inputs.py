"""Validation of the inputs shared by the statistics functions.

Every check raises :class:`ValueError` with a message that names the offending
input and says what was expected, so that callers (API, CLI) can pass it on as is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

EloModel = Literal["logistic", "normalized", "BayesElo"]

ELO_MODELS: tuple[EloModel, ...] = ("logistic", "normalized", "BayesElo")
_MODEL_BY_LOWER: dict[str, EloModel] = {m.lower(): m for m in ELO_MODELS}

PENTANOMIAL_ORDER = "[LL, LD, DD+WL, WD, WW]"
TRINOMIAL_ORDER = "[L, D, W]"

#: The narrowest SPRT: elo1 - elo0 of at least this.  A test of width w needs about 7e5 / w^2 games
#: (normalized Elo), so 0.01 already takes some 10^10; far narrower ones (1e-9 and below) make both
#: hypotheses the same expected score in floating point, and the SPRT-aware estimate divides by 0.
MIN_HYPOTHESIS_WIDTH = 0.01
#: The largest |elo0| and |elo1| in each model.  Logistic: the SPRT-aware estimate searches +-1000
#: Elo and scores are clamped at about +-1200 (the fits themselves fail beyond ~2000).  BayesElo
#: becomes logistic Elo no larger than itself.  Normalized: fishtest's fit of a normalized hypothesis
#: exists only below a pair t-value of 1, about 245 nElo, beyond which the SPRT-aware estimate's
#: score also leaves [0, 1]; 200 keeps a margin for every sample.
MAX_HYPOTHESIS_ELO: dict[EloModel, float] = {"logistic": 1000.0, "normalized": 200.0, "BayesElo": 1000.0}


def check_model(elo_model: str) -> EloModel:
    """Return the canonical spelling of an Elo model name (case-insensitive)."""
    if isinstance(elo_model, str):
        model = _MODEL_BY_LOWER.get(elo_model.strip().lower())
        if model is not None:
            return model
    raise ValueError(f"elo_model: unknown model {elo_model!r}; expected one of " + ", ".join(ELO_MODELS))


def check_counts(counts: Sequence[float], name: str = "counts") -> list[float]:
    """Check game counts: a list of 3 ([L, D, W]) or 5 (pentanomial) finite numbers >= 0."""
    if isinstance(counts, (str, bytes)) or not isinstance(counts, Sequence):
        raise ValueError(
            f"{name}: expected a list of 3 counts {TRINOMIAL_ORDER} or 5 counts "
            f"{PENTANOMIAL_ORDER}, got {counts!r}"
        )
    if len(counts) not in (3, 5):
        raise ValueError(
            f"{name}: expected 3 counts {TRINOMIAL_ORDER} or 5 counts {PENTANOMIAL_ORDER}, got {len(counts)}"
        )
    checked = []
    for i, value in enumerate(counts):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name}[{i}]: expected a number, got {value!r}")
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{name}[{i}]: expected a finite non-negative count, got {value!r}")
        checked.append(value)
    return checked


def check_length(counts: Sequence[float], length: int, name: str) -> None:
    """Require exactly ``length`` counts (after :func:`check_counts`)."""
    if len(counts) != length:
        order = PENTANOMIAL_ORDER if length == 5 else TRINOMIAL_ORDER
        raise ValueError(f"{name}: expected {length} counts {order}, got {len(counts)}")


def check_probability(value: float, name: str) -> float:
    """Check an error rate such as alpha or beta: a number strictly inside (0, 1)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name}: expected a number in (0, 1), got {value!r}")
    if not 0 < value < 1:
        raise ValueError(f"{name}: expected a number strictly between 0 and 1, got {value!r}")
    return float(value)


def check_error_rates(alpha: float, beta: float) -> tuple[float, float]:
    """Check alpha and beta; their sum must stay below 1 so that lower < 0 < upper."""
    alpha = check_probability(alpha, "alpha")
    beta = check_probability(beta, "beta")
    if alpha + beta >= 1:
        raise ValueError(f"alpha, beta: expected alpha + beta < 1, got {alpha!r} + {beta!r}")
    return alpha, beta


class HypothesisError(ValueError):
    """An SPRT hypothesis the statistics cannot compute: ``name`` (as the caller calls it) and
    what was expected of it."""

    def __init__(self, name: str, expected: str) -> None:
        super().__init__(f"{name}: {expected}")
        self.name = name
        self.expected = expected


def check_hypotheses(
    elo0: float, elo1: float, elo_model: str = "normalized", names: tuple[str, str] = ("elo0", "elo1")
) -> tuple[float, float]:
    """Check the SPRT hypotheses in ``elo_model``'s units: finite, at most
    :data:`MAX_HYPOTHESIS_ELO` away from 0, and elo1 at least :data:`MIN_HYPOTHESIS_WIDTH` above
    elo0.  Raises :class:`HypothesisError`; ``names`` are how the caller calls them (CLI options)."""
    model = check_model(elo_model)
    limit = MAX_HYPOTHESIS_ELO[model]
    for name, value in zip(names, (elo0, elo1), strict=True):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise HypothesisError(name, f"expected a number, got {value!r}")
        if not math.isfinite(value):
            raise HypothesisError(name, f"expected a finite number, got {value!r}")
        if abs(value) > limit:
            raise HypothesisError(
                name, f"expected a value between -{limit:g} and {limit:g} ({model} Elo), got {value:g}"
            )
    if not elo0 < elo1:
        raise HypothesisError(names[1], f"expected a value greater than {names[0]} ({elo0:g}), got {elo1:g}")
    if elo1 - elo0 < MIN_HYPOTHESIS_WIDTH * (1 - 1e-9):  # up to rounding: 0.11 - 0.1 is wide enough
        raise HypothesisError(
            names[1],
            f"expected at least {names[0]} + {MIN_HYPOTHESIS_WIDTH:g} = {elo0 + MIN_HYPOTHESIS_WIDTH:g} "
            f"(narrower hypotheses cannot be told apart), got {elo1:g}",
        )
    return float(elo0), float(elo1)
