"""The terminal summary of a report: the most important numbers and tables, within 80 columns (the
parts every kind's summary uses; a kind's own summary is in its package, e.g. ``reports/sprt/text.py``)."""

from __future__ import annotations

import shlex
import textwrap

from coordinator.escape import terminal
from coordinator.reports.engines import FAULT_KINDS, FAULT_LABELS, Engines, Faults, SideTimes

#: The width every line of the summary fits in.
WIDTH = 80


def fit(line: str) -> str:
    """``line`` within :data:`WIDTH` columns: a longer line (a headline, a list of names) goes on
    over indented lines, cut nowhere (the tables are laid out to fit)."""
    if len(line) <= WIDTH:
        return line
    return "\n".join(textwrap.wrap(line, WIDTH, subsequent_indent="    ", break_on_hyphens=False))


def wrap_command(command: str) -> list[str]:
    """A shell command over several lines of at most :data:`WIDTH` columns (``\\`` continued)."""
    lines: list[str] = []
    current = " "
    for word in (shlex.quote(terminal(part)) for part in shlex.split(command)):
        if len(current) + len(word) + 3 > WIDTH and current.strip():
            lines.append(current + " \\")
            current = "    "
        current += " " + word
    lines.append(current)
    return lines


def num(value: float | None, spec: str = ".1f") -> str:
    """A number, or ``-`` when there is none."""
    return "-" if value is None else format(value, spec)


def engines_lines(engines: Engines) -> list[str]:
    """The engines of a run in the status text: each side's name, version and options, the
    limits, the faults (with the last one's reason and stderr) and each worker's time factor."""
    lines = []
    for side, e in engines.sides.items():
        what = e.kind if e.commit is None else f"commit {e.commit.sha} ({e.commit.repo})"
        options = " ".join(f"{k}={v}" for k, v in e.options.items())
        lines.append(
            f"{side}: {e.name} [{what}]; version: {e.version or 'not reported'}"
            + (f"; options: {options}" if options else "")
        )
    lines.append(f"limits: {engines.limits}")
    for side, e in engines.sides.items():
        lines += fault_lines(f"the {side}", e.faults)
    for w in engines.workers:
        if engines.timed or w.faults.total:
            lines.append(
                f"worker {w.worker}: time factor {w.time_factor:.2f} "
                f"({w.time_factor_min:.2f} to {w.time_factor_max:.2f}), faults {w.faults.total}"
            )
    return [terminal(line) for line in lines]


def fault_lines(who: str, f: Faults) -> list[str]:
    """The faults of ``who`` (a side, an engine) by kind, the last one's reason and its stderr
    lines (none without a fault; not escaped)."""
    last = f.last
    if not f.total or last is None:
        return []
    kinds = ", ".join(f"{FAULT_LABELS[k]} {f.counts[k]}" for k in FAULT_KINDS if f.counts[k])
    return [
        f"faults of {who}: {f.total} ({kinds}); last: {last.reason} "
        f"(worker {last.worker}, batch {last.batch})",
        *(f"  stderr: {line}" for line in last.stderr),
    ]


def move_times_line(times: dict[str, SideTimes]) -> str | None:
    """The mean time per move of each engine, where the records have times."""
    shown = [f"{side} {t.mean_ms:.0f} ms over {t.moves} moves" for side, t in times.items() if t.moves]
    return "time per move: " + ", ".join(shown) if shown else None


def noted(text: str, unverifiable: str | None) -> str:
    """The terminal summary ``text`` of a report (its kind's), with the "unverifiable" line of an
    unverifiable run under its first line."""
    if unverifiable:
        first, _, rest = text.partition("\n")
        return f"{first}\n{terminal(unverifiable)}\n{rest}"
    return text
