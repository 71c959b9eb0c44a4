"""Runs as the dashboard lists them: one JSON row per run (what ``arbiter status`` shows, and the
columns of the runs list), the list's filters and order, and a run's version (a cheap mark that
changes whenever anything its report shows may have changed)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from coordinator.reports.engines import side_of
from coordinator.reports.games import match_runs
from coordinator.reports.match import iso, run_info
from coordinator.runs import RunKind, RunState
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.report import summary_of
from coordinator.store import Run, Store, now
from coordinator.tuning.outcomes import tally, tally_text, trial_outcomes
from coordinator.tuning.progress import elo_vs_start
from coordinator.tuning.records import TuningRecords

#: ``kind`` filter values: a kind, or every run (the list shows the runs people start by default).
KIND_CHOICES = (*(str(k) for k in RunKind), "all")
STATE_CHOICES = tuple(str(s) for s in RunState)


@dataclass(frozen=True)
class RunFilter:
    """Which runs the list shows (None: any). Without ``kind`` and ``parent``: the runs people
    start (SPRTs, tuning runs and tournaments), like ``arbiter status``."""

    kind: str | None = None
    game: str | None = None
    state: str | None = None
    parent: int | None = None

    def keeps(self, run: Run, parents: dict[int, int]) -> bool:
        """True if ``run`` passes the filter (``parents``: the tuning run of each child run)."""
        if self.parent is not None and parents.get(run.id) != self.parent:
            return False
        if self.kind is None:
            if self.parent is None and not run.kind.started_by_user:
                return False
        elif self.kind != "all" and run.kind != self.kind:
            return False
        if self.game is not None and run.game != self.game:
            return False
        return self.state is None or run.state == self.state


def parents_of(store: Store, runs: list[Run]) -> dict[int, int]:
    """The tuning run of every child run (a store that never tuned may lack the tuning tables, and
    a reader creates none, so they are read only when a run needs them)."""
    if all(r.kind is RunKind.SPRT for r in runs):
        return {}
    return TuningRecords(store).parents()


def listed_runs(store: Store, wanted: RunFilter) -> tuple[list[Run], dict[int, int]]:
    """The runs that pass ``wanted`` (running runs first, then the others, newest first in each),
    and the tuning run of every child run."""
    everything = store.list_runs()
    parents = parents_of(store, everything)
    kept = [r for r in everything if wanted.keeps(r, parents)]
    return sorted(kept, key=lambda r: (r.state is not RunState.RUNNING, -r.id)), parents


def _seconds(run: Run) -> float:
    """How long the run has lasted (until it finished, or until now)."""
    return ((run.finished_at or now()) - run.created_at).total_seconds()


def _match_columns(store: Store, run: Run) -> dict[str, Any]:
    """Games and statistics of a match run's counted batches, as the store has them."""
    config = SprtConfig.from_json(run.config)
    totals = store.totals(run.id)
    s = summary_of(config, totals.pentanomial, totals.wdl)
    played = totals.games > 0
    return {
        "candidate": side_of(config, "candidate")["name"],
        "baseline": side_of(config, "baseline")["name"],
        "games": totals.games,
        "pentanomial": totals.pentanomial,
        "wdl": totals.wdl,
        "elo": s["elo"] if played else None,
        "elo95": s["elo95"] if played else None,
        "llr": s["llr"],
        "lower_bound": s["lower_bound"],
        "upper_bound": s["upper_bound"],
    }


def _tune_columns(store: Store, run: Run) -> dict[str, Any]:
    """Trials, games and the current champion of a tuning run."""
    records = TuningRecords(store)
    champions = records.champions(run.id)
    trials = records.trials(run.id)
    champion = champions[-1].number if champions else 0
    elo, half = elo_vs_start(champions, champion) if champions else (0.0, 0.0)
    return {
        "start": run.config.get("start_source") or "default",
        "games": records.games(run.id),
        "trials": len(trials),
        "tally": tally_text(tally(trial_outcomes(store, run.id).values())),
        "champion": champion,
        "elo": elo if champion else None,
        "elo95": half if champion else None,
    }


def _tournament_columns(store: Store, run: Run) -> dict[str, Any]:
    """Format, engines and counted games of a tournament."""
    entrants = run.config.get("entrants") or []
    return {
        "format": run.config.get("format"),
        "engines": [str(e.get("name")) for e in entrants],
        "games": store.totals(run.id).games,
        "planned_games": 2
        * int(run.config.get("pairs", 0))
        * _pairings(len(entrants), run.config.get("format")),
    }


def _pairings(engines: int, format_: Any) -> int:
    """Pairings of a tournament of ``engines`` engines in ``format_``."""
    return engines - 1 if format_ == "gauntlet" else engines * (engines - 1) // 2


def run_row(store: Store, run: Run, parent: int | None) -> dict[str, Any]:
    """One run as the list and the live part of its page show it (JSON data); ``parent``: the
    tuning run it belongs to."""
    row: dict[str, Any] = run_info(run, parent) | {"seconds": _seconds(run), "url": f"/runs/{run.id}"}
    if run.kind is RunKind.TUNE:
        return row | _tune_columns(store, run)
    if run.kind is RunKind.TOURNAMENT:
        return row | _tournament_columns(store, run)
    try:
        return row | _match_columns(store, run)
    except (KeyError, TypeError, ValueError) as e:  # a configuration this arbiter cannot read
        return row | {"games": None, "problem": f"cannot read the run's configuration: {e}"}


def _match_figures(data: dict[str, Any]) -> dict[str, Any]:
    """The live line's figures of a match report."""
    t, h, stats = data["totals"], data["hypothesis"], data["stats"]
    sides = data["engines"]["sides"]
    return {
        "candidate": sides["candidate"]["name"],
        "baseline": sides["baseline"]["name"],
        "games": t["games"],
        "pentanomial": t["pentanomial"],
        "wdl": t["wdl"],
        "elo": stats["elo"] if stats else None,
        "elo95": stats["elo95"] if stats else None,
        "llr": t["llr"],
        "lower_bound": h["lower_bound"],
        "upper_bound": h["upper_bound"],
        "headline": data["headline"],
    }


def _tune_figures(data: dict[str, Any]) -> dict[str, Any]:
    """The live line's figures of a tuning report."""
    t = data["totals"]
    champion = t["champion"]
    return {
        "start": data["config"].get("start_source") or "default",
        "games": t["games"],
        "trials": t["trials"],
        "tally": tally_text(t["outcomes"]),
        "champion": champion,
        "elo": t["champion_elo"] if champion else None,
        "elo95": t["champion_elo95"] if champion else None,
    }


def _tournament_figures(data: dict[str, Any]) -> dict[str, Any]:
    """The live line's figures of a tournament report."""
    return {
        "format": data["format"],
        "engines": [e["name"] for e in data["engines"]],
        "games": data["games"],
        "planned_games": data["planned_games"],
    }


_FIGURES = {"match": _match_figures, "tune": _tune_figures, "tournament": _tournament_figures}


def report_row(run: Run, data: dict[str, Any]) -> dict[str, Any]:
    """One run as its page's live line shows it, read from the report ``data`` the page shows
    below it (not from the store again, which may have moved on since the report was built), so
    that the line and the report never disagree."""
    row = dict(data["run"]) | {"seconds": _seconds(run), "url": f"/runs/{run.id}"}
    return row | _FIGURES[str(data["type"])](data)


def run_version(store: Store, run: Run) -> str:
    """A mark of everything ``run``'s report is made of: its state, and the stored results,
    counted batches and latest change of it and (a tuning run) of every one of its match runs."""
    ids = [run.id] + ([m.id for m in match_runs(store, run)] if run.kind is RunKind.TUNE else [])
    a = store.activity(ids)
    mark = f"{run.state}|{run.decision}|{len(ids)}|{a.results}|{a.counted_batches}|{iso(a.updated_at)}"
    return hashlib.sha256(mark.encode()).hexdigest()[:16]


def is_final(run: Run) -> bool:
    """True when nothing will change the run any more (it finished or failed)."""
    return run.state in (RunState.FINISHED, RunState.FAILED)
