"""Text for SPRT runs: the live progress line, the final summary and the status table/JSON.

Pure formatting over :class:`coordinator.scheduler.Progress` and the statistics of
``coordinator.stats``; printing and throttling live in :class:`ProgressPrinter`.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any, TextIO

from coordinator.scheduler import Progress, decision_label
from coordinator.sprt_plan import SprtConfig
from coordinator.stats import StatsSummary, fixed_elo, sprt_summary
from coordinator.store import Refusal, Run, Totals

#: Seconds between two progress lines when stderr is not a terminal.
LOG_INTERVAL = 10.0
#: Seconds between two redraws on a terminal.
TTY_INTERVAL = 0.2


def duration(seconds: float | None) -> str:
    """``1h02m``, ``3m20s`` or ``12s``; ``?`` when unknown."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return "?"
    seconds = round(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def eta_seconds(p: Progress) -> float | None:
    """Time to the decision, extrapolating the LLR's drift per game (capped by the budget)."""
    if p.elapsed <= 0 or p.games_played_here <= 0 or p.games <= 0:
        return None
    rate = p.games_played_here / p.elapsed
    remaining: float | None = None
    if p.llr > 0:
        remaining = p.games * (p.upper_bound - p.llr) / p.llr
    elif p.llr < 0:
        remaining = p.games * (p.lower_bound - p.llr) / p.llr
    if p.max_games is not None:
        budget_left = max(p.max_games - p.games, 0)
        remaining = budget_left if remaining is None else min(remaining, budget_left)
    return None if remaining is None else max(remaining, 0.0) / rate


def progress_line(p: Progress) -> str:
    """One line: games, games/s, W-D-L, pentanomial, Elo +- 95%, LLR [bounds], ETA."""
    elo = fixed_elo(p.pentanomial) if p.games else None
    rate = p.games_played_here / p.elapsed if p.elapsed > 0 else 0.0
    elo_text = f"{elo.elo:+.1f} +- {elo.elo95:.1f}" if elo is not None else "-"
    w, d, l = p.wdl  # noqa: E741
    return (
        f"run {p.run_id}: games {p.games} ({rate:.1f}/s)  W-D-L {w}-{d}-{l}  "
        f"penta {p.pentanomial}  Elo {elo_text}  "
        f"LLR {p.llr:.2f} [{p.lower_bound:.2f}, {p.upper_bound:.2f}]  ETA {duration(eta_seconds(p))}"
    )


class ProgressPrinter:
    """Draws progress on ``stream``: redrawn in place on a terminal, a line per interval otherwise."""

    def __init__(self, stream: TextIO | None = None, interval: float | None = None) -> None:
        """Print to ``stream`` (default stderr)."""
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.interval = interval if interval is not None else (TTY_INTERVAL if self.tty else LOG_INTERVAL)
        self._last = -math.inf
        self._width = 0

    def __call__(self, progress: Progress) -> None:
        """Show ``progress`` unless the last line is too recent."""
        self.show(progress_line(progress))

    def show(self, line: str) -> None:
        """Show one progress line unless the last one is too recent."""
        now = time.monotonic()
        if now - self._last < self.interval:
            return
        self._last = now
        if self.tty:
            self.stream.write("\r" + line.ljust(self._width))
            self._width = len(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self, progress: Progress | None = None) -> None:
        """Draw the last state and end the line."""
        if progress is not None:
            self._last = -math.inf
            self(progress)
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
        self._width = 0


def summary_of(config: SprtConfig, pentanomial: list[int], wdl: list[int]) -> StatsSummary:
    """Every statistic of the counted games (``sprt_summary`` with this run's settings)."""
    return sprt_summary(
        pentanomial=pentanomial,
        wdl=wdl,
        elo0=config.elo0,
        elo1=config.elo1,
        elo_model=config.elo_model,
        alpha=config.alpha,
        beta=config.beta,
    )


def summary_text(run: Run, config: SprtConfig, p: Progress, wall_seconds: float, cpu: float) -> str:
    """The end-of-run report: decision, LLR, counts, Elo estimates, time."""
    s = summary_of(config, p.pentanomial, p.wdl)
    w, d, l = p.wdl  # noqa: E741
    lo, hi = s["sprt_elo_ci"]
    nlo, nhi = s["nelo_ci"]
    rate = p.games_played_here / wall_seconds if wall_seconds > 0 else 0.0
    return "\n".join(
        [
            f"run {run.id} ({run.kind} {run.game}): {decision_label(p.decision)}",
            f"LLR: {s['llr']:.2f} [{s['lower_bound']:.2f}, {s['upper_bound']:.2f}]  "
            f"(elo0 {config.elo0:g}, elo1 {config.elo1:g}, {config.elo_model}, "
            f"alpha {config.alpha:g}, beta {config.beta:g})",
            f"games: {p.games}  W {w}  D {d}  L {l}  pentanomial {p.pentanomial}",
            f"Elo: {s['elo']:.2f} +- {s['elo95']:.2f} (95%)  LOS: {100 * s['los']:.2f}%",
            f"SPRT Elo: {s['sprt_elo']:.2f} [{lo:.2f}, {hi:.2f}] (95%)  LOS: {100 * s['sprt_los']:.2f}%",
            f"nElo: {s['nelo']:.2f} [{nlo:.2f}, {nhi:.2f}] (95%)",
            f"time: {duration(wall_seconds)} wall, {cpu:.1f} s cpu in workers, {rate:.1f} games/s",
        ]
    )


def status_json(run: Run, p: Progress | None, refusals: list[Refusal], totals: Totals) -> dict[str, Any]:
    """One run as a JSON-safe dict (``arbiter status RUN --json``); SPRT statistics given ``p``."""
    data: dict[str, Any] = {
        "id": run.id,
        "kind": run.kind,
        "game": run.game,
        "state": run.state,
        "decision": run.decision,
        "error": run.error,
        "created_at": run.created_at.isoformat(),
        "updated_at": run.updated_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "cpu_seconds": totals.cpu_seconds,
        "games": totals.games,
        "pentanomial": totals.pentanomial,
        "wdl": totals.wdl,
        "refused": [
            {"batch": r.batch_index, "attempts": r.attempts, "state": r.state, "reason": r.reason}
            for r in refusals
        ],
        "config": {k: v for k, v in run.config.items() if k != "openings"},
    }
    if p is not None:
        config = SprtConfig.from_json(run.config)
        s = summary_of(config, p.pentanomial, p.wdl)
        data |= {
            "games": p.games,
            "counted_batches": p.counted_batches,
            "stored_batches": p.stored_batches,
            "pentanomial": p.pentanomial,
            "wdl": p.wdl,
            **{key: value for key, value in s.items() if key != "state"},
        }
    return data


#: Columns of the runs table: id, kind, game, state, games, Elo, LLR, decision.
_ROW = "{:>4}  {:<5} {:<9} {:<11} {:>7}  {:>15}  {:>6}  {}"
STATUS_HEADER = _ROW.format("id", "kind", "game", "state", "games", "Elo", "LLR", "decision")


def status_row(run: Run, games: int, elo: str, llr: str) -> str:
    """One line of the runs table."""
    decision = decision_label(run.decision) if run.decision else "-"
    return _ROW.format(run.id, run.kind, run.game, run.state, games, elo, llr, decision)
