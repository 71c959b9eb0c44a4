"""Text for people about tuning runs: the progress lines, the champions table, the status."""

from __future__ import annotations

from typing import Any

import engine
from coordinator.console.progress import PROGRESS_WIDTH
from coordinator.sprt.report import duration, fit_line
from coordinator.tuning.acceptance import AcceptanceProgress
from coordinator.tuning.progress import TuneProgress, elo_vs_start
from coordinator.tuning.records import AcceptanceRow, Champion, IterationRow, TrialRow, TuningRecords
from coordinator.tuning.spsa_tuner import SpsaProgress


def _accepting(a: AcceptanceProgress | None, trial: bool) -> str:
    """The acceptance SPRT under way, as a part of a progress line: with the trial it tests (an
    Optuna run's SPRTs test one trial each; SPSA's test its theta of the moment)."""
    if a is None:
        return ""
    tested = f" trial {a.candidate}:" if trial else ""
    return f"SPRT{tested} LLR {a.llr:.2f} [{a.lower_bound:.2f},{a.upper_bound:.2f}]"


def _played(p: TuneProgress | SpsaProgress, trial: bool) -> list[tuple[int, str]]:
    """The parts of a progress line both methods show after their own count: games, refusals, the
    acceptance SPRT under way (``trial``: naming the trial it tests), the champion and its Elo,
    ETA."""
    return [
        (0, f"games {p.games}"),
        (0, p.refused or ""),
        (1, _accepting(p.accepting, trial)),
        (2, f"champion #{p.champion} {p.champion_elo:+.0f}+-{p.champion_elo95:.0f}"),
        (3, f"ETA {duration(p.eta)}"),
    ]


def _pace(p: TuneProgress | SpsaProgress) -> list[tuple[int, str]]:
    """The last parts of a progress line, left out first: speed and time."""
    return [(5, f"{p.games_per_second:.1f} games/s"), (6, duration(p.elapsed))]


def progress_line(p: TuneProgress, max_trials: int | None, width: int = PROGRESS_WIDTH) -> str:
    """One line of at most ``width`` columns: trials, games, an SPRT under way, the champion and its Elo,
    ETA, the best trial (its Elo against the start), speed, time (the last ones left out first
    when they do not fit)."""
    trials = f"{p.trials}/{max_trials}" if max_trials else str(p.trials)
    best = f"best trial {p.best_trial} ({p.best_value:+.0f})" if p.best_trial is not None else ""
    return fit_line(
        [(0, f"trials {trials} ({p.running_trials} running)"), *_played(p, True), (4, best), *_pace(p)],
        width,
    )


def spsa_progress_line(p: SpsaProgress, width: int = PROGRESS_WIDTH) -> str:
    """One line of at most ``width`` columns: iterations applied (and in flight, while any are),
    games, an SPRT under way, the champion and its Elo, ETA, speed, time (the last ones left out
    first when they do not fit)."""
    in_flight = f" ({p.in_flight} in flight)" if p.in_flight else ""
    return fit_line(
        [(0, f"iterations {p.applied}/{p.iterations}{in_flight}"), *_played(p, False), *_pace(p)], width
    )


def champions_table(records: TuningRecords, run_id: int, champions: list[Champion]) -> str:
    """Each champion with its Elo against the start weights (95%) and the games played while it
    reigned (its trials and the acceptance SPRTs against it), as ``arbiter report`` counts them."""
    lines = [
        f"{'champion':>8}  {'trial':>5}  {'Elo vs start (95%)':>18}  {'SPRT Elo vs parent':>24}  {'games':>7}"
    ]
    for c in champions:
        elo, half = elo_vs_start(champions, c.number)
        games = records.games(run_id, champion=c.number)
        vs_parent = f"{c.elo_vs_parent:+.1f} [{c.elo_vs_parent_low:+.1f}, {c.elo_vs_parent_high:+.1f}]"
        trial = "start" if c.number == 0 else str(c.trial_number)
        lines.append(
            f"{'#' + str(c.number):>8}  {trial:>5}  {f'{elo:+.1f} +- {half:.1f}':>18}  "
            f"{'-' if c.number == 0 else vs_parent:>24}  {games:>7}"
        )
    return "\n".join(lines)


def trials_table(trials: list[TrialRow]) -> str:
    """Every trial: state, the champion it was compared with, games, Elo against the start (its
    objective value)."""
    lines = [f"{'trial':>5}  {'state':<9} {'vs':>4}  {'games':>6}  {'Elo vs start':>16}  accept SPRT"]
    for t in trials:
        elo = f"{t.elo:+.1f} +- {t.elo95:.1f}" if t.elo is not None and t.elo95 is not None else "-"
        accept = f"run {t.accept_run_id}" if t.accept_run_id else "-"
        played = f"#{t.champion_number}"
        lines.append(f"{t.trial_number:>5}  {t.state:<9} {played:>4}  {t.games:>6}  {elo:>16}  {accept}")
    return "\n".join(lines)


def theta_table(start: dict[str, int], iterations: list[IterationRow]) -> str:
    """SPSA: each tuned weight at the start and now (theta after the last applied iteration)."""
    applied = [row for row in iterations if row.theta is not None]
    theta = applied[-1].theta if applied else None
    lines = [f"{len(applied)} iterations applied", f"{'weight':<20} {'start':>7} {'theta':>9} {'change':>8}"]
    for name, value in (theta or {}).items():
        lines.append(f"{name[:20]:<20} {start[name]:>7} {value:>9.2f} {value - start[name]:>+8.2f}")
    return "\n".join(lines)


def acceptances_json(rows: list[AcceptanceRow], limits: list[engine.Limits]) -> list[dict[str, Any]]:
    """The acceptance SPRTs of a run for scripts: candidate, stage and its limits, run, champion."""
    return [
        {
            "candidate": r.candidate,
            "stage": r.stage,
            "limits": limits[r.stage].to_json() if r.stage < len(limits) else None,
            "run": r.run_id,
            "champion": r.champion_number,
        }
        for r in rows
    ]


def status_json(
    run_id: int,
    state: str,
    game: str,
    champions: list[Champion],
    trials: list[TrialRow],
    games: int,
    method: str = "optuna",
    acceptances: list[dict[str, Any]] | None = None,
    iterations: list[IterationRow] | None = None,
) -> dict[str, Any]:
    """A tuning run as one JSON object for scripts (an SPSA run adds its path of theta)."""
    elo, half = elo_vs_start(champions, champions[-1].number) if champions else (0.0, 0.0)
    data: dict[str, Any] = {
        "id": run_id,
        "kind": "tune",
        "method": method,
        "game": game,
        "state": state,
        "games": games,
        "trials": [
            {
                "number": t.trial_number,
                "run": t.trial_run_id,
                "state": t.state,
                "pruned": t.state == "pruned",
                "champion": t.champion_number,
                "games": t.games,
                "elo": t.elo,
                "elo95": t.elo95,
                "params": t.params,
                "accept_run": t.accept_run_id,
            }
            for t in trials
        ],
        "champions": [
            {
                "number": c.number,
                "parent": c.parent,
                "trial": c.trial_number,
                "accept_run": c.accept_run_id,
                "elo_vs_parent": c.elo_vs_parent,
                "elo_vs_parent_ci": [c.elo_vs_parent_low, c.elo_vs_parent_high],
                "weights": c.weights,
            }
            for c in champions
        ],
        "champion_elo": elo,
        "champion_elo95": half,
        "acceptances": acceptances or [],
    }
    if iterations is not None:
        applied = [row for row in iterations if row.theta is not None]
        data["spsa"] = {
            "dispatched": len(iterations),
            "applied": len(applied),
            "theta": applied[-1].theta if applied else None,
            "path": [
                {"iteration": row.iteration, "wins": row.wins, "losses": row.losses, "theta": row.theta}
                for row in applied
            ],
        }
    return data
