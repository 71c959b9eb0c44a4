"""Text for people about tuning runs: the progress line, the champions table, the status."""

from __future__ import annotations

from typing import Any

from coordinator.sprt.report import duration
from coordinator.tuning.records import Champion, TrialRow, TuningRecords
from coordinator.tuning.tuner import TuneProgress, elo_vs_start


def progress_line(p: TuneProgress, max_trials: int | None) -> str:
    """One line: trials, games, speed, the champion and its Elo, the best trial, an SPRT under way."""
    trials = f"{p.trials}/{max_trials}" if max_trials else str(p.trials)
    best = f"best trial {p.best_trial} ({p.best_value:+.0f})" if p.best_trial is not None else "best -"
    line = (
        f"trials {trials} ({p.running_trials} running)  games {p.games}  {p.games_per_second:.1f} games/s  "
        f"champion #{p.champion} {p.champion_elo:+.0f} +- {p.champion_elo95:.0f}  {best}  "
        f"{duration(p.elapsed)}"
    )
    if p.accepting is not None and p.accept_llr is not None and p.accept_bounds is not None:
        lo, hi = p.accept_bounds
        line += f"  SPRT trial {p.accepting}: LLR {p.accept_llr:.2f} [{lo:.2f}, {hi:.2f}]"
    return line


def champions_table(records: TuningRecords, run_id: int, champions: list[Champion]) -> str:
    """Each champion with its Elo against the start weights (95%) and the games it cost: every
    trial and acceptance SPRT played against its parent."""
    lines = [
        f"{'champion':>8}  {'trial':>5}  {'Elo vs start (95%)':>18}  {'SPRT Elo vs parent':>24}  {'games':>7}"
    ]
    for c in champions:
        elo, half = elo_vs_start(champions, c.number)
        if c.number == 0:
            lines.append(f"{'#0':>8}  {'start':>5}  {'+0':>18}  {'-':>24}  {'-':>7}")
            continue
        vs_parent = f"{c.elo_vs_parent:+.1f} [{c.elo_vs_parent_low:+.1f}, {c.elo_vs_parent_high:+.1f}]"
        games = records.games(run_id, champion=c.number - 1)
        lines.append(
            f"{'#' + str(c.number):>8}  {c.trial_number!s:>5}  {f'{elo:+.1f} +- {half:.1f}':>18}  "
            f"{vs_parent:>24}  {games:>7}"
        )
    return "\n".join(lines)


def trials_table(trials: list[TrialRow]) -> str:
    """Every trial: state, champion played, games, Elo against that champion."""
    lines = [f"{'trial':>5}  {'state':<9} {'vs':>4}  {'games':>6}  {'Elo vs champion':>16}  accept SPRT"]
    for t in trials:
        elo = f"{t.elo:+.1f} +- {t.elo95:.1f}" if t.elo is not None and t.elo95 is not None else "-"
        accept = f"run {t.accept_run_id}" if t.accept_run_id else "-"
        played = f"#{t.champion_number}"
        lines.append(f"{t.trial_number:>5}  {t.state:<9} {played:>4}  {t.games:>6}  {elo:>16}  {accept}")
    return "\n".join(lines)


def status_json(
    run_id: int, state: str, game: str, champions: list[Champion], trials: list[TrialRow], games: int
) -> dict[str, Any]:
    """A tuning run as one JSON object for scripts."""
    elo, half = elo_vs_start(champions, champions[-1].number) if champions else (0.0, 0.0)
    return {
        "id": run_id,
        "kind": "tune",
        "game": game,
        "state": state,
        "games": games,
        "trials": [
            {
                "number": t.trial_number,
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
    }
