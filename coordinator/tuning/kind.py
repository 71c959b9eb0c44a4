"""Tuning as kinds of run: the tuning run itself (``arbiter tune``), whose games are those of the
match runs it makes (trials, acceptance SPRTs, SPSA iterations: runs of an SPRT configuration that
belong to it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coordinator.registry import Kind, LiveItem, elo_text
from coordinator.runs import RunKind
from coordinator.sprt.kind import MatchRunKind
from coordinator.tuning.config import TuneConfig

if TYPE_CHECKING:
    from coordinator.executors.base import Executor
    from coordinator.reports.engines import Engines
    from coordinator.reports.tuning.data import TuneReport
    from coordinator.store import Run, Store


def tune_status_text(store: Store, run: Run) -> str:
    """A tuning run for people: trials or the path of theta, champions, total games (``arbiter
    status RUN``; ``--json`` prints :func:`coordinator.reports.status.tune_status`)."""
    from coordinator.escape import terminal
    from coordinator.trust.verifiable import unverifiable_note
    from coordinator.tuning.outcomes import tally, tally_text, trial_outcomes
    from coordinator.tuning.records import TuningRecords
    from coordinator.tuning.report import champions_table, theta_table, trials_table

    config = run.settings_as(TuneConfig)
    records = TuningRecords(store)
    champions = records.champions(run.id)
    trials = records.trials(run.id)
    games = records.games(run.id)
    iterations = records.iterations(run.id) if config.method == "spsa" else None
    lines = []
    if (note := unverifiable_note(run.config)) is not None:
        lines.append(terminal(note))
    if iterations is not None:
        lines.append(f"tuning run {run.id} ({run.game}, spsa): {run.state}, {games} games")
        lines.append(theta_table(config.start, iterations))
    else:
        tallied = tally_text(tally(trial_outcomes(store, run.id).values()))
        lines.append(f"tuning run {run.id} ({run.game}): {run.state}, {tallied}, {games} games")
        lines.append(trials_table(trials))
    lines.append(champions_table(records, run.id, champions))
    return "\n".join(lines)


def tune_columns(store: Store, run: Run) -> dict[str, Any]:
    """Trials, games and the current champion of a tuning run."""
    from coordinator.tuning.outcomes import tally, tally_text, trial_outcomes
    from coordinator.tuning.progress import elo_vs_start
    from coordinator.tuning.records import TuningRecords

    records = TuningRecords(store)
    champions = records.champions(run.id)
    trials = records.trials(run.id)
    champion = champions[-1].number if champions else 0
    elo, half = elo_vs_start(champions, champion) if champions else (0.0, 0.0)
    return {
        "start": run.settings_as(TuneConfig).start_source or "default",
        "games": records.games(run.id),
        "trials": len(trials),
        "tally": tally_text(tally(trial_outcomes(store, run.id).values())),
        "champion": champion,
        "elo": elo if champion else None,
        "elo95": half if champion else None,
    }


def _study(store: Store, run: Run) -> Any:
    """The Optuna study of a tuning run, or None if it has none yet."""
    import optuna

    from coordinator.tuning.tuner import optuna_storage, study_name

    try:
        return optuna.load_study(study_name=study_name(run.id), storage=optuna_storage(store.url))
    except KeyError:
        return None


def tuning_parent(store: Store, run: Run) -> int | None:
    """The run a tuning child belongs to (a tuning run's match run, a campaign's round or
    verification SPRT), or None."""
    from coordinator.tuning.records import TuningRecords

    return TuningRecords(store).parents().get(run.id)


def tuning_children(store: Store, run: Run) -> list[Run]:
    """The runs that belong to ``run`` (a tuning run's or a campaign's), in order."""
    from coordinator.tuning.records import TuningRecords

    return [r for r in (store.get_run(i) for i in TuningRecords(store).children(run.id)) if r is not None]


class TuneKind(Kind["TuneReport"]):
    """``arbiter tune``: trials or SPSA iterations, acceptance SPRTs, champions."""

    name = RunKind.TUNE
    noun = "tuning run"
    config_type = TuneConfig
    related = True
    children = "its trials and acceptance SPRTs"

    def match_runs(self, store: Store, run: Run) -> list[Run]:
        """Its trials, acceptance SPRTs and SPSA iterations, in order."""
        return tuning_children(store, run)

    def games(self, store: Store, run: Run) -> int:
        """The games of all its match runs."""
        from coordinator.tuning.records import TuningRecords

        return TuningRecords(store).games(run.id)

    def play(self, store: Store, run: Run, executor: Executor) -> None:
        """Tune to the end; write the champion and the report; print the champions."""
        from coordinator.tuning.drive import drive

        drive(store, run, run.settings_as(TuneConfig), executor, None)

    def status_row(self, store: Store, run: Run) -> str:
        """Games only: Elo and LLR belong to its match runs."""
        from coordinator.sprt.report import status_row

        return status_row(run, self.games(store, run), "-", "-")

    def status_text(self, store: Store, run: Run) -> str:
        """:func:`tune_status_text`."""
        return tune_status_text(store, run)

    def status_json(self, store: Store, run: Run) -> dict[str, Any]:
        """:func:`coordinator.reports.status.tune_status`."""
        from coordinator.reports.status import tune_status

        return tune_status(store, run)

    def report_data(self, store: Store, run: Run, anchor: str | None) -> TuneReport:
        """:func:`coordinator.reports.tuning.gather.tune_report`."""
        from coordinator.reports.tuning.gather import tune_report

        return tune_report(store, run)

    def report_plots(self, store: Store, run: Run, data: TuneReport) -> dict[str, str]:
        """Champions, trials or theta, acceptance SPRTs, and the Optuna study's plots (SPSA has
        no study: a read-only store that never ran Optuna has no tables to load one from)."""
        from coordinator.reports.tuning.plots import tune_plots

        return tune_plots(data, None if data.method == "spsa" else _study(store, run))

    def report_html(self, data: TuneReport, plots: dict[str, str]) -> str:
        """The tuning report page."""
        from coordinator.reports.tuning.html import tune_html

        return tune_html(data, plots)

    def report_text(self, data: TuneReport) -> str:
        """The tuning summary."""
        from coordinator.reports.tuning.text import tune_text

        return tune_text(data)

    def engines(self, store: Store, run: Run) -> Engines:
        """None of its own: its games are its match runs'."""
        raise TypeError(f"run {run.id} is a tuning run: its engines are those of its match runs")

    def row(self, store: Store, run: Run) -> dict[str, Any]:
        """:func:`tune_columns`."""
        return tune_columns(store, run)

    def versus(self, row: dict[str, Any]) -> str:
        """Where it started."""
        return f"start: {row['start']}"

    def outcome(self, row: dict[str, Any]) -> str:
        """The current champion."""
        return f"champion #{row['champion']}"

    def report_row(self, data: TuneReport) -> dict[str, Any]:
        """Trials, games and the champion of the tuning report."""
        from coordinator.tuning.outcomes import tally_text

        t = data.totals
        return {
            "start": data.config.get("start_source") or "default",
            "games": t.games,
            "trials": t.trials,
            "tally": tally_text(t.outcomes),
            "champion": t.champion,
            "elo": t.champion_elo if t.champion else None,
            "elo95": t.champion_elo95 if t.champion else None,
        }

    def live(self, row: dict[str, Any]) -> list[LiveItem]:
        """Trials, games and the champion's Elo against the start."""
        return [
            LiveItem("trials", row["tally"], "trials"),
            LiveItem("games", row["games"], "games"),
            LiveItem("champion", f"#{row['champion']}", "champion", f" {elo_text(row)} Elo vs start"),
        ]


class TuningMatchKind(MatchRunKind):
    """A match run a tuning run makes for itself: resumed and reproduced through it."""

    started_by_user = False
    related = True

    def __init__(self, name: RunKind) -> None:
        """The kind stored as ``name``."""
        self.name = name

    def parent_of(self, store: Store, run: Run) -> int | None:
        """The tuning run it belongs to."""
        return tuning_parent(store, run)

    def command(self, store: Store, run: Run) -> tuple[str, list[str]]:
        """The tuning run's command (which plays this run again), or the SPRT's without one."""
        from coordinator.reports.command import tune_command

        parent = self.parent_of(store, run)
        parent_run = store.get_run(parent) if parent is not None else None
        if parent_run is None:
            return super().command(store, run)
        command, notes = tune_command(parent_run.config, store.url)
        return command, [
            f"this {run.kind} run is part of tuning run {parent}, which this command plays",
            *notes,
        ]


#: The kinds of the registry.
TUNE = TuneKind()
TRIAL = TuningMatchKind(RunKind.TRIAL)
ACCEPTANCE = TuningMatchKind(RunKind.ACCEPTANCE)
ITERATION = TuningMatchKind(RunKind.ITERATION)
