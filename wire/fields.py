"""Checks of values read from JSON that crosses the broker: each returns the value in its type or
raises a ValueError naming the field and what was expected, so that nothing a worker or a broker
client sends reaches the store, or crashes the coordinator, unchecked."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: Above this a count or index is not one any run could make (and would overflow the store).
MAX_INT = 2**63 - 1

#: Unknown fields an error names at most (the rest it counts).
SHOWN_FIELDS = 5

#: Weights as the wire carries them: ``{"name": value}``.
Weights = dict[str, int]


def check_int(value: Any, name: str, *, low: int = 0, high: int = MAX_INT) -> int:
    """``value`` as an int in ``[low, high]`` (bools are not ints here)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name}: expected an integer, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name}: expected an integer from {low} to {high}, got {value}")
    return value


def check_float(value: Any, name: str, *, low: float = 0.0, high: float = 1e12) -> float:
    """``value`` as a finite float in ``[low, high]`` (an int is accepted)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ValueError(f"{name}: expected a number, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise ValueError(f"{name}: expected a number from {low:g} to {high:g}, got {value!r}")
    return number


def check_str(value: Any, name: str, *, max_length: int = 4096) -> str:
    """``value`` as a str of at most ``max_length`` characters."""
    if type(value) is str and len(value) <= max_length:
        return value
    if not isinstance(value, str):
        raise ValueError(f"{name}: expected a string, got {type(value).__name__}")
    if len(value) > max_length:
        raise ValueError(f"{name}: longer than {max_length} characters")
    return value


def check_list(value: Any, name: str) -> list[Any]:
    """``value`` as a list."""
    if not isinstance(value, list):
        raise ValueError(f"{name}: expected a list, got {type(value).__name__}")
    return value


def check_object(
    value: Any, name: str, required: Sequence[str], optional: Sequence[str] = ()
) -> dict[str, Any]:
    """``value`` as a dict with string keys, every ``required`` key and no unknown one."""
    if not isinstance(value, dict):
        raise ValueError(f"{name}: expected a JSON object, got {type(value).__name__}")
    missing = [key for key in required if key not in value]
    if missing:
        raise ValueError(f"{name}: missing {', '.join(missing)}")
    known = set(required) | set(optional)
    unknown = sorted(str(key) for key in value if key not in known)
    if unknown:
        more = f" and {len(unknown) - SHOWN_FIELDS} more" if len(unknown) > SHOWN_FIELDS else ""
        raise ValueError(f"{name}: unknown field(s) {', '.join(unknown[:SHOWN_FIELDS])}{more}")
    return value


def check_counts(value: Any, length: int, name: str) -> list[int]:
    """``value`` as a list of ``length`` non-negative integer counts."""
    counts = check_list(value, name)
    if len(counts) != length:
        raise ValueError(f"{name}: expected a list of {length} counts, got {len(counts)} items")
    for v in counts:
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= MAX_INT:
            shown = v if isinstance(v, int) else type(v).__name__
            raise ValueError(f"{name}: expected non-negative integer counts, got {shown}")
    return list(counts)


def check_weights(value: Any, name: str) -> Weights | None:
    """A weights mapping ``{"name": int}`` or None (the engine's defaults)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"{name}: expected a JSON object of weights, got {type(value).__name__}")
    out: Weights = {}
    for key, number in value.items():
        check_str(key, f"{name} name", max_length=64)
        if isinstance(number, float) and number.is_integer():
            number = int(number)
        out[key] = check_int(number, f"{name}.{key}", low=-(2**31), high=2**31 - 1)
    return out
