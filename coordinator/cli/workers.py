"""``arbiter workers``: who is online on a broker, from the workers' heartbeats
(:mod:`wire.heartbeat`), with what the store holds against each (refused answers,
quarantines).

A heartbeat is the worker's own claim; with the fleet's secret (``$ARBITER_SECRET``) its seal is
checked and the ``proved`` column says whether the worker it names sent it.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import click
import orjson

from coordinator.cli.options import broker_option_for, store_option
from coordinator.escape import terminal
from wire.celeryconfig import BROKER_ENV, DEFAULT_BROKER, broker_url

if TYPE_CHECKING:
    from coordinator.fleet import Fleet

COLUMNS = ("worker", "proved", "cores", "speed", "engine", "playing", "seen", "refused", "quarantined",
           "programs")  # fmt: skip
#: The longest list of batches shown in one cell.
SHOWN_BATCHES = 4


def aligned(rows: list[list[str]]) -> list[str]:
    """``rows`` as lines of left-aligned columns two spaces apart."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    ]


def table_lines(fleet: Fleet) -> list[str]:
    """The table of ``fleet``'s workers."""
    from coordinator.fleet import age_text

    rows = [list(COLUMNS)]
    for w in fleet.workers:
        b = w.beat
        playing = ", ".join(f"{run}/{batch}" for run, batch in b.batches[:SHOWN_BATCHES])
        if len(b.batches) > SHOWN_BATCHES:
            playing += f" +{len(b.batches) - SHOWN_BATCHES}"
        rows.append(
            [
                b.name,
                "yes" if w.proved else w.proof,
                str(b.cores),
                "?" if w.speed_factor is None else f"{w.speed_factor:.2f}x",
                b.engine,
                playing or "idle",
                age_text(w.last_seen),
                "?" if w.refusals is None else str(w.refusals),
                ",".join(map(str, w.quarantined)) or "-",
                "refused" if b.refuses_programs else b.sandbox,
            ]
        )
    return aligned([[terminal(cell) for cell in row] for row in rows])  # names and claims are the workers'


@click.command()
@broker_option_for(f"Broker the workers send heartbeats to (default: ${BROKER_ENV} or {DEFAULT_BROKER}).")
@store_option
@click.option("--json", "as_json", is_flag=True, help="Print the workers as JSON.")
def workers(broker: str | None, store_url: str | None, as_json: bool) -> None:
    """List the workers online now, from their heartbeats.

    Each row: name, whether its heartbeat is proved its own (with $ARBITER_SECRET), pool size,
    bench speed against the reference machine, engine version, the batches it plays (run/batch),
    when it was last heard, and the store's refused answers and quarantines (runs) of it. The
    store is read when --store or $ARBITER_STORE is given, or the default one exists.
    """
    from sqlalchemy.exc import SQLAlchemyError

    from coordinator.fleet import Broker, online
    from coordinator.store import STORE_ENV, Store, mask_url
    from wire.connectivity import safe_url
    from wire.sealing import fleet_keys

    url = broker.strip() if broker and broker.strip() else broker_url()
    named_store = store_url is not None or bool(os.environ.get(STORE_ENV))
    store = None
    try:
        store = Store(store_url, create=False, read_only=True)
    except FileNotFoundError as e:
        if named_store:
            raise click.UsageError(str(e)) from None
    source = Broker(url)
    try:
        fleet = online(source, store, fleet_keys(), time.time())
    except SQLAlchemyError as e:
        assert store is not None
        reason = " ".join(str(getattr(e, "orig", None) or e).split())
        raise click.UsageError(f"store {mask_url(store.url)} cannot be read: {reason}") from None
    finally:
        source.close()
        if store is not None:
            store.close()
    for node, why in fleet.unreadable:
        click.echo(terminal(f"arbiter workers: warning: heartbeat of {node!r} ignored: {why}"), err=True)
    if fleet.truncated:
        click.echo("arbiter workers: warning: more heartbeats than listed", err=True)
    if as_json:
        click.echo(orjson.dumps(fleet.to_json(), option=orjson.OPT_INDENT_2).decode())
    elif not fleet.workers:
        click.echo(f"no worker online on {safe_url(url)}")
    else:
        click.echo("\n".join(table_lines(fleet)))
