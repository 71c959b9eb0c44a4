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


def check_hypotheses(elo0: float, elo1: float) -> tuple[float, float]:
    """Check the SPRT hypotheses: finite numbers with elo0 < elo1."""
    for name, value in (("elo0", elo0), ("elo1", elo1)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name}: expected a number, got {value!r}")
        if not math.isfinite(value):
            raise ValueError(f"{name}: expected a finite number, got {value!r}")
    if not elo0 < elo1:
        raise ValueError(f"elo1: expected elo1 > elo0, got elo0={elo0!r}, elo1={elo1!r}")
    return float(elo0), float(elo1)
