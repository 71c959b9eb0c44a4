"""``arbiter status`` and ``arbiter resume``: look at the runs of a store, continue a stopped one."""

from __future__ import annotations

import json

import click

from coordinator.cli.options import (
    check_engine_version,
    load_run,
    open_executor,
    open_existing_store,
    run_argument,
    settled_heap,
    store_option,
)
from coordinator.cli.stacks import fleet_options
from coordinator.executors.options import ExecutorOptions
from coordinator.registry import kind_of
from coordinator.runs import RunState
from coordinator.sprt.report import STATUS_HEADER
from coordinator.store import Run, Store
from coordinator.tuning.records import TuningRecords


def list_runs(store: Store, show_all: bool) -> None:
    """The runs table: the runs people start, or every run with ``show_all``."""
    parents = TuningRecords(store).parents() if show_all else {}
    click.echo(STATUS_HEADER + ("  parent" if show_all else ""))
    for run in store.list_runs():
        kind = kind_of(run.kind)
        if not (show_all or kind.started_by_user):
            continue
        parent = f"  {parents[run.id]:>6}" if run.id in parents else ""
        click.echo(kind.status_row(store, run) + parent)


@click.command()
@run_argument(required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (with RUN).")
@click.option("--all", "show_all", is_flag=True, help="Also list tuning trials and acceptance SPRTs.")
@store_option
def status(run_id: int | None, as_json: bool, show_all: bool, store_url: str | None) -> None:
    """List the runs of the store (SPRTs, tuning runs, tournaments and matches), or show one run."""
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
    click.echo(kind_of(run.kind).status_text(store, run))


def top_run(store: Store, run: Run) -> Run | None:
    """The run people started that ``run`` belongs to (a tuning run, a campaign), or None."""
    owner: Run | None = run
    while owner is not None and not kind_of(owner.kind).started_by_user:
        parent = kind_of(owner.kind).parent_of(store, owner)
        owner = store.get_run(parent) if parent is not None else None
    return owner


@click.command()
@run_argument()
@fleet_options
@store_option
def resume(
    run_id: int,
    concurrency: int | None,
    broker: str | None,
    verify_fraction: float,
    priority: int,
    store_url: str | None,
) -> None:
    """Continue an interrupted SPRT, tuning run, tournament or match where it stopped."""
    store = open_existing_store(store_url)
    run = load_run(store, run_id)
    kind = kind_of(run.kind)
    if not kind.started_by_user:
        owner = top_run(store, run)
        whose = "a tuning run" if owner is None else f"{kind_of(owner.kind).noun} {owner.id}"
        raise click.BadParameter(
            f"run {run_id} is a {run.kind} run of {whose}: resume that instead", param_hint="RUN"
        )
    check_engine_version(run, str(run.config.get("engine_version")))
    if run.state is RunState.FINISHED:
        click.echo(f"arbiter: run {run_id} is already finished; nothing to resume", err=True)
        if (text := kind.finished_text(store, run)) is not None:
            click.echo(text)
        return
    options = ExecutorOptions(broker, concurrency, verify_fraction, priority)
    run.settings  # noqa: B018 - a configuration this version refuses is the only line
    click.echo(f"arbiter: resuming {kind.noun} {run_id}", err=True)
    executor = open_executor(options)
    with settled_heap():
        kind.play(store, run, executor)
