"""``arbiter worker``: play batches for coordinators as a Celery worker on a broker's queues.

Before it starts, the command checks that the broker answers (an unreachable broker is one line
and exit status 2 within seconds, instead of Celery's endless retries) and prints the engine
version with its bench speed, so that a slow or out-of-date machine shows at a glance.

``arbiter worker-key NODE`` prints the credential of worker NODE, made from the fleet's master
secret on the machine that holds it: the worker runs with it as ``$ARBITER_WORKER_KEY`` and signs
its answers as NODE and nobody else (docs/deploy.md, Security).
"""

from __future__ import annotations

import os
import warnings

import click

import engine
from coordinator.cli.options import MAX_CONCURRENCY, broker_option_for
from wire.celeryconfig import (
    BROKER_ENV,
    CONNECT_TIMEOUT,
    DEFAULT_BROKER,
    QUEUES_ENV,
    broker_url,
    create_app,
    queue_names,
    versioned_queue,
)
from wire.connectivity import check_reachable, exposure_warning, safe_url
from wire.heartbeat import heartbeat_seconds
from wire.sealing import SECRET_ENV, WORKER_KEY_ENV, check_node_name, fleet_keys, worker_keys
from worker.referee.sandbox import UNSANDBOXED_ENV, this_machine, unsandboxed_allowed

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
#: Depth of the start-up bench: shallower than the engine's signature depth (engine.BENCH_DEPTH) so
#: that a worker starts in a fraction of a second; the engine version already names the build.
STARTUP_BENCH_DEPTH = 6


def bench_line() -> str:
    """``engine VERSION; bench congo N nodes in S s (M Mnps), ...`` at :data:`STARTUP_BENCH_DEPTH`,
    so that a slow or out-of-date machine shows at a glance."""
    parts = []
    for game in engine.GAMES:
        nodes, seconds = engine.bench(game, depth=STARTUP_BENCH_DEPTH)
        speed = nodes / seconds / 1e6 if seconds > 0 else float("inf")
        parts.append(f"{game} {nodes} nodes in {seconds:.2f} s ({speed:.2f} Mnps)")
    return f"engine {engine.ENGINE_VERSION}; bench depth {STARTUP_BENCH_DEPTH}: " + ", ".join(parts)


def programs_line() -> str:
    """How this worker runs engine programs: sandboxed, refused (and why), or unsandboxed."""
    box = this_machine()
    if box.ready:
        seccomp = "seccomp filter on" if box.seccomp else f"no seccomp filter: {box.seccomp_reason}"
        return f"engine programs run sandboxed (bubblewrap, {seccomp})"
    if unsandboxed_allowed():
        return f"warning: engine programs run WITHOUT a sandbox (allowed): {box.reason}"
    return f"engine programs are refused: no sandbox here ({box.reason})"


def sandbox_check(broker: str) -> int:
    """``--check-sandbox``: the report of :func:`worker.sandbox_check.check_sandbox`; 0 when a
    program runs sandboxed and reaches nothing, else 1."""
    from worker.sandbox_check import check_sandbox

    report = check_sandbox(broker)
    for line in report.lines():
        click.echo(f"arbiter worker: {line}")
    if report.sandboxed:
        click.echo("arbiter worker: sandboxed: an engine program reaches none of the above")
        return 0
    click.echo("arbiter worker: NOT sandboxed: an engine program could reach what is marked above", err=True)
    return 1


def worker_argv(concurrency: int, queues: list[str], loglevel: str, name: str) -> list[str]:
    """The ``celery worker`` arguments this command runs with (``--quiet``: no Celery banner,
    the command prints its own line)."""
    return [
        "--quiet",
        "worker",
        f"--loglevel={loglevel.upper()}",
        f"--concurrency={concurrency}",
        f"--queues={','.join(queues)}",
        f"--hostname={name}",
    ]


@click.command()
@broker_option_for(f"Broker to take batches from (default: ${BROKER_ENV} or {DEFAULT_BROKER}).")
@click.option(
    "--concurrency",
    type=click.IntRange(1, MAX_CONCURRENCY),
    help="Batches played at once, one per process (default: one per core).",
)
@click.option(
    "--queues",
    metavar="NAMES",
    help=f"Comma-separated queues to take batches from (default: ${QUEUES_ENV} or 'arbiter'), each "
    "for this engine version only.",
)
@click.option(
    "--loglevel",
    type=click.Choice(LOG_LEVELS, case_sensitive=False),
    default="info",
    show_default=True,
    help="Celery's log level.",
)
@click.option("--name", metavar="NODE", help="Celery node name (default: arbiter-PID@HOSTNAME).")
@click.option(
    "--allow-unsandboxed-programs",
    is_flag=True,
    help=f"Where no sandbox can be made, run engine programs without one (${UNSANDBOXED_ENV}=1): "
    "only for a fleet whose programs are its own.",
)
@click.option(
    "--check-sandbox",
    is_flag=True,
    help="Print what an engine program could reach on this machine, then exit: 0 if it runs "
    "sandboxed and reaches nothing, 1 otherwise.",
)
def worker(
    broker: str | None,
    concurrency: int | None,
    queues: str | None,
    loglevel: str,
    name: str | None,
    allow_unsandboxed_programs: bool,
    check_sandbox: bool,
) -> int:
    """Play batches for coordinators: a Celery worker on the broker's queues."""
    url = broker.strip() if broker and broker.strip() else broker_url()
    if check_sandbox:
        return sandbox_check(url)
    if allow_unsandboxed_programs:
        os.environ[UNSANDBOXED_ENV] = "1"  # the pool's processes start programs
    from celery.exceptions import SecurityWarning  # Celery loads only for this command

    names = [versioned_queue(name, engine.ENGINE_VERSION) for name in queue_names(queues)]
    processes = concurrency or os.cpu_count() or 1
    try:
        keys = worker_keys()
        heartbeat = heartbeat_seconds()
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    if keys is not None and keys.node is not None:  # a credential names the one node it signs as
        if name is not None and name != keys.node:
            raise click.BadParameter(
                f"{name!r}: this worker's credential ({WORKER_KEY_ENV}) is for {keys.node}",
                param_hint="'--name'",
            )
        name = keys.node
    node = name or f"arbiter-{os.getpid()}@%h"
    app = create_app(broker=url)
    check_reachable(app, CONNECT_TIMEOUT)
    for endpoint in {url, str(app.conf.result_backend)}:
        warning = exposure_warning(endpoint, sealed=keys is not None)
        if warning:
            click.echo(f"arbiter worker: warning: {warning}", err=True)
    root = os.geteuid() == 0
    click.echo(
        f"arbiter worker: node {node}, broker {safe_url(url)}, queues {','.join(names)}, "
        f"{processes} process{'es' if processes != 1 else ''}"
        + f", heartbeat every {heartbeat:g} s"
        + (", running as root" if root else "")
        + f"; {bench_line()}; {programs_line()}"
    )
    with warnings.catch_warnings():
        # said in the line above; Celery's own warning is a paragraph (JSON only: no pickle risk)
        warnings.simplefilter("ignore", SecurityWarning)
        exit_code = app.start(argv=worker_argv(processes, names, loglevel, node))
    return int(exit_code or 0)


@click.command("worker-key")
@click.argument("node", metavar="NODE")
def worker_key(node: str) -> None:
    """Print worker NODE's credential, from the fleet's master secret ($ARBITER_SECRET).

    NODE is the worker's Celery node name, such as w1@host. Give the printed line to that worker
    only, as its environment ($ARBITER_WORKER_KEY): it then plays only payloads this fleet's
    coordinators signed, and signs its answers as NODE and nobody else.
    """
    keys = fleet_keys()
    if keys is None:
        raise click.UsageError(
            f"worker-key makes a worker's key from the fleet's master secret: set {SECRET_ENV}"
        )
    try:
        credential = keys.credential(check_node_name(node))
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="NODE") from None
    click.echo(f"{WORKER_KEY_ENV}={credential}")


COMMANDS = [worker, worker_key]
