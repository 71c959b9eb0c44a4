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
from coordinator.cli.remote import check_local_only, client_of, remote
from coordinator.cli.stacks import fleet_options
from coordinator.console.lease import holding_lease
from coordinator.executors.options import ExecutorOptions
from coordinator.registry import kind_of
from coordinator.runs import RunState
from coordinator.sprt.report import STATUS_HEADER
from coordinator.store import Run, Store
from coordinator.tuning.records import TuningRecords


def list_runs(store: Store, show_all: bool) -> None:
    """The runs table: the runs people start, or every run with ``show_all``."""
    from coordinator.reports.serving import serving

    parents = TuningRecords(store).parents() if show_all else {}
    services = store.services()
    served = any(s.share is not None for s in services.values())
    click.echo(STATUS_HEADER + ("  parent" if show_all else "") + ("  share, games/s" if served else ""))
    for run in store.list_runs():
        kind = kind_of(run.kind)
        service = services.get(run.id)
        if not (show_all or kind.started_by_user) or (service is not None and service.deleted):
            continue
        parent = f"  {parents[run.id]:>6}" if run.id in parents else ""
        how = serving(store, run, service).text if served else ""
        click.echo(kind.status_row(store, run) + parent + (f"  {how}" if how else ""))


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
@click.option("--served-by", hidden=True, help="The server whose lease of RUN this process plays under.")
def resume(
    run_id: int,
    options: ExecutorOptions,
    store_url: str | None,
    served_by: str | None,
) -> None:
    """Continue an interrupted SPRT, tuning run, tournament or match where it stopped."""
    where = remote()
    if where.server is not None:
        from coordinator.server.client import follow

        check_local_only("concurrency", "broker", "verify_fraction", "store_url")
        client = client_of(where.server)
        row = client.action(run_id, "resume")
        click.echo(f"arbiter: run {row['id']} resumes on the server ({row['state']} now)", err=True)
        follow(client, run_id)
        return
    store = open_existing_store(store_url)
    run = load_run(store, run_id)
    kind = kind_of(run.kind)
    if not kind.started_by_user:
        owner = top_run(store, run)
        whose = "a tuning run" if owner is None else f"{kind_of(owner.kind).noun} {owner.id}"
        raise click.BadParameter(
            f"run {run_id} is a {run.kind} run of {whose}: resume that instead", param_hint="RUN"
        )
    check_engine_version(run, str(run.engine_version))
    if run.state is RunState.FINISHED:
        click.echo(f"arbiter: run {run_id} is already finished; nothing to resume", err=True)
        if (text := kind.finished_text(store, run)) is not None:
            click.echo(text)
        return
    run.settings  # noqa: B018 - a configuration this version refuses is the only line
    if served_by is not None:
        play_served(store, run, options, served_by)
        return
    with holding_lease(store, run_id):
        click.echo(f"arbiter: resuming {kind.noun} {run_id}", err=True)
        executor = open_executor(options)
        with settled_heap():
            kind.play(store, run, executor)


def play_served(store: Store, run: Run, options: ExecutorOptions, server: str) -> None:
    """Play ``run`` for ``server``, which holds its lease, with the share of the fleet the server
    gives it (``arbiter server`` starts this)."""
    from coordinator.executors.shared import SharedExecutor

    holder = store.lease_holder(run.id)
    if holder != server:
        raise click.UsageError(f"run {run.id} is not leased to {server} (held by {holder or 'nobody'})")
    click.echo(f"arbiter: playing {kind_of(run.kind).noun} {run.id} for {server}", err=True)
    executor = SharedExecutor(open_executor(options), lambda: store.share(run.id))
    with settled_heap():
        kind_of(run.kind).play(store, run, executor)
