"""``arbiter status`` and ``arbiter resume``: look at the runs of a store, continue a stopped one."""

from __future__ import annotations

import json

import click

from coordinator.cli.options import (
    broker_option,
    check_engine_version,
    concurrency_option,
    load_run,
    open_executor,
    open_existing_store,
    priority_option,
    run_argument,
    store_option,
    verify_option,
)
from coordinator.escape import terminal
from coordinator.executors.options import ExecutorOptions
from coordinator.runs import RunKind, RunState, decision_label
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.report import (
    STATUS_HEADER,
    status_row,
    stored_progress,
    stored_row,
    summary_text,
)
from coordinator.store import Run, Store
from coordinator.trust.verifiable import unverifiable_note
from coordinator.tuning.records import TuningRecords


def games_of(store: Store, run: Run) -> int:
    """Games stored for a run: a tuning run's are those of all its trials and SPRTs."""
    if run.kind is RunKind.TUNE:
        return TuningRecords(store).games(run.id)
    return store.totals(run.id).games


def list_runs(store: Store, show_all: bool) -> None:
    """The runs table: the runs people start, or every run with ``show_all``."""
    parents = TuningRecords(store).parents() if show_all else {}
    click.echo(STATUS_HEADER + ("  parent" if show_all else ""))
    for run in store.list_runs():
        if not (show_all or run.kind.started_by_user):
            continue
        parent = f"  {parents[run.id]:>6}" if run.id in parents else ""
        if run.kind is RunKind.TOURNAMENT:
            done = "complete" if run.state is RunState.FINISHED else "-"
            click.echo(status_row(run, games_of(store, run), "-", "-", decision=done) + parent)
            continue
        if not run.kind.is_match:
            click.echo(status_row(run, games_of(store, run), "-", "-") + parent)
            continue
        click.echo(stored_row(store, run) + parent)


def show_match_run(store: Store, run: Run) -> None:
    """One SPRT, trial or acceptance run, for people."""
    from coordinator.reports.status import match_status
    from coordinator.reports.text import engines_lines

    data = match_status(store, run)
    if "headline" in data:
        click.echo(terminal(data["headline"]))
        if data["ending"]:
            click.echo(data["ending"])
    for key in ("id", "kind", "game", "state", "decision", "games", "pentanomial", "wdl"):
        if key in data:
            value = decision_label(data[key]) if key == "decision" else data[key]
            click.echo(f"{key}: {terminal(value)}")
    for side in ("candidate", "baseline"):
        if side in data:
            where = f" from {data[side]['repo']}" if "repo" in data[side] else ""
            click.echo(f"{side}: {terminal(data[side]['name'] + where)}")
    if "statistics_error" in data:
        click.echo(f"statistics: {terminal(data['statistics_error'])}")
    else:
        click.echo(
            f"llr: {data['llr']:.2f} [{data['lower_bound']:.2f}, {data['upper_bound']:.2f}]\n"
            f"elo: {data['elo']:.2f} +- {data['elo95']:.2f} (95%)  los: {100 * data['los']:.1f}%\n"
            f"batches: {data['counted_batches']} counted, {data['stored_batches']} stored"
        )
    if "engines" in data:
        click.echo("\n".join(engines_lines(data["engines"])))
    if run.error:
        click.echo(f"error: {terminal(run.error)}")
    if (note := unverifiable_note(run.config)) is not None:
        click.echo(terminal(note))
    for q in data["quarantined"]:
        click.echo(
            f"quarantined worker {terminal(q['worker'])}: {terminal(q['reason'])} "
            f"({q['discarded_batches']} batches discarded)"
        )
    for refusal in data["refused"]:
        click.echo(
            f"refused batch {refusal['batch']} ({refusal['attempts']} attempts, {refusal['state']}): "
            f"{terminal(refusal['reason'])}"
        )
    check = data["worker_check"]
    for w in check["workers"]:
        if w["flagged"]:
            click.echo(
                f"outlier worker {terminal(w['worker'])}: residual {w['residual']:+.2f} "
                f"over {w['games']} games "
                f"(chi² p = {check['chi2']['p']:.3g}; a warning, not a proof)"
            )


@click.command()
@run_argument(required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (with RUN).")
@click.option("--all", "show_all", is_flag=True, help="Also list tuning trials and acceptance SPRTs.")
@store_option
def status(run_id: int | None, as_json: bool, show_all: bool, store_url: str | None) -> None:
    """List the runs of the store (SPRTs, tuning runs and tournaments), or show one run."""
    store = open_existing_store(store_url)
    if run_id is None:
        if as_json:
            raise click.UsageError("--json needs a RUN")
        list_runs(store, show_all)
        return
    run = load_run(store, run_id)
    if as_json:
        from coordinator.reports.status import status_data

        click.echo(json.dumps(status_data(store, run), sort_keys=True))
        return
    if run.kind is RunKind.TUNE:
        from coordinator.cli.tune import tune_status

        tune_status(store, run)
        return
    if run.kind is RunKind.TOURNAMENT:
        from coordinator.reports import gather, terminal_summary

        click.echo(terminal_summary(gather(store, run)))
        return
    show_match_run(store, run)


@click.command()
@run_argument()
@concurrency_option
@broker_option
@verify_option
@priority_option
@store_option
def resume(
    run_id: int,
    concurrency: int | None,
    broker: str | None,
    verify_fraction: float,
    priority: int,
    store_url: str | None,
) -> None:
    """Continue an interrupted SPRT, tuning run or tournament where it stopped."""
    store = open_existing_store(store_url)
    run = load_run(store, run_id)
    if not run.kind.started_by_user:
        raise click.BadParameter(
            f"run {run_id} is a {run.kind} run of a tuning run: resume the tuning run instead",
            param_hint="RUN",
        )
    check_engine_version(run, str(run.config.get("engine_version")))
    if run.state is RunState.FINISHED:
        click.echo(f"arbiter: run {run_id} is already finished; nothing to resume", err=True)
        if run.kind is RunKind.TOURNAMENT:
            from coordinator.reports import gather, terminal_summary

            click.echo(terminal_summary(gather(store, run)))
        if run.kind is RunKind.SPRT:
            config = SprtConfig.from_json(run.config)
            click.echo(
                summary_text(run, config, stored_progress(store, run), 0.0, store.totals(run.id).cpu_seconds)
            )
        return
    options = ExecutorOptions(broker, concurrency, verify_fraction, priority)
    if run.kind is RunKind.TUNE:
        from coordinator.cli.tune import drive
        from coordinator.tuning.config import TuneConfig

        click.echo(f"arbiter: resuming tuning run {run.id}", err=True)
        drive(
            store,
            run,
            TuneConfig.from_json(run.config),
            open_executor(options),
            None,
        )
        return
    if run.kind is RunKind.TOURNAMENT:
        from coordinator.cli.tournament import play as play_tournament
        from coordinator.tournament.config import TournamentConfig

        tournament = TournamentConfig.from_json(run.config)
        click.echo(f"arbiter: resuming tournament {run_id}", err=True)
        play_tournament(store, run, tournament, open_executor(options))
        return
    from coordinator.cli.sprt import play

    config = SprtConfig.from_json(run.config)  # one that this version refuses is the only line
    click.echo(f"arbiter: resuming run {run_id}", err=True)
    play(store, run, config, open_executor(options))
