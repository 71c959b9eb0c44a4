"""SPSA parameter lists in OpenBench's format, one parameter a line:

    name, int, start, min, max, c_end, r_end
    lmr_reduction, int, 1, 0, 4, 0.5, 0.002

``c_end`` is the perturbation at the end of the run and ``r_end`` the learning rate at the end,
as fishtest and OpenBench read them. Blank lines and lines starting with ``#`` are skipped.
Parameters are whole numbers (every weight of the built-in engine and every spin option is).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SpsaParam:
    """One line of a parameter list."""

    name: str
    start: int
    low: int
    high: int
    c_end: float
    r_end: float

    def row(self) -> list[object]:
        """As a tuning run's configuration keeps it: [name, start, min, max, c_end, r_end]."""
        return [self.name, self.start, self.low, self.high, self.c_end, self.r_end]


def _number(text: str, where: str, what: str, whole: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {what}: expected a number, got {text!r}") from None
    if not math.isfinite(value) or (whole and value != int(value)):
        raise ValueError(f"{where}: {what}: expected a {'whole ' if whole else ''}number, got {text!r}")
    return value


def parse_spsa_params(text: str, source: str) -> list[SpsaParam]:
    """The parameters of a list; ValueError naming the file, the line and what was expected."""
    params: list[SpsaParam] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}:{number}"
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 7:
            raise ValueError(
                f"{where}: expected 'name, int, start, min, max, c_end, r_end', got {len(fields)} fields"
            )
        name, kind = fields[0], fields[1].lower()
        if not name or any(c.isspace() for c in name):
            raise ValueError(f"{where}: expected a parameter name without spaces, got {name!r}")
        if kind != "int":
            raise ValueError(f"{where}: {name}: expected type int (engines take whole numbers), got {kind!r}")
        start, low, high = (
            int(_number(v, where, w, True)) for v, w in zip(fields[2:5], ("start", "min", "max"), strict=True)
        )
        c_end = _number(fields[5], where, "c_end", False)
        r_end = _number(fields[6], where, "r_end", False)
        if not low < high or not low <= start <= high:
            raise ValueError(
                f"{where}: {name}: expected min < max and start within them, got {start} in [{low}, {high}]"
            )
        if c_end <= 0 or r_end <= 0:
            raise ValueError(f"{where}: {name}: expected c_end > 0 and r_end > 0")
        if any(p.name == name for p in params):
            raise ValueError(f"{where}: {name} is listed twice")
        params.append(SpsaParam(name, start, low, high, c_end, r_end))
    if not params:
        raise ValueError(f"{source}: no parameter listed")
    return params


def read_spsa_params(path: str) -> list[SpsaParam]:
    """A parameter list file; ValueError in one line."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: cannot be read ({getattr(e, 'strerror', None) or e})") from None
    return parse_spsa_params(text, path)
