"""``arbiter server``: the long-running service that owns every run of its store (see
``coordinator.server``). One command with embedded defaults: without a broker it plays on this
machine's cores with a SQLite store; with one, on the Celery fleet (a PostgreSQL store is then the
usual choice)."""

from __future__ import annotations

import logging
import os
import socket
import threading
from pathlib import Path

import click

from coordinator.cli.options import UTF8_TEXT, broker_option, store_option
from coordinator.cli.serve import DEFAULT_HOST, DEFAULT_PORT, exposure_warning, listening_socket
from coordinator.cli.webhooks import webhook_option
from coordinator.server.client import TOKEN_ENV

#: Seconds between two passes of the server's loop.
TICK_SECONDS = 1.0


@click.command()
@store_option
@broker_option
@click.option("--host", type=UTF8_TEXT, default=DEFAULT_HOST, show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True, help="Port.")
@click.option(
    "--name", help="This server's name in the runs' leases (default: the host name); unique per store."
)
@click.option(
    "--logs",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("arbiter-server-logs"),
    show_default=True,
    help="Folder of each run's log.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 4096),
    help="Without --broker: processes of each run's local pool (default: one per core).",
)
@webhook_option("POST a JSON message to URL when any run ends (also $ARBITER_WEBHOOKS).")
@click.option("--signup/--no-signup", default=True, show_default=True, help="Let people sign up on the web.")
@click.option(
    "--cross-approval/--self-approval",
    default=False,
    show_default=True,
    help="Whether an approver's own weight-only runs wait for another approver too.",
)
@click.option("--private", is_flag=True, help="Reading, too, needs a login or a token.")
@click.option(
    "--play/--no-play",
    default=True,
    show_default=True,
    help="Play runs; --no-play only answers people (the API and dashboard), leaving the runs to "
    "the other servers of the store.",
)
def server(
    store_url: str | None,
    broker: str | None,
    host: str,
    port: int,
    name: str | None,
    logs: Path,
    concurrency: int | None,
    webhooks: tuple[str, ...],
    signup: bool,
    cross_approval: bool,
    private: bool,
    play: bool,
) -> None:
    """Serve the store's runs: play every submitted or unfinished run, the API and the dashboard."""
    import uvicorn

    from coordinator.server.notices import notifier_of
    from coordinator.server.supervisor import Supervisor
    from coordinator.store import Store, mask_url
    from coordinator.store import store_url as resolve_store_url
    from wire.sealing import SECRET_ENV, fleet_keys

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("arbiter").setLevel(logging.INFO)
    url = resolve_store_url(store_url)
    notifier = notifier_of(webhooks)
    writer = Store(url)
    reader = Store(url, read_only=True)
    token = os.environ.get(TOKEN_ENV) or None
    sock = listening_socket(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    warning = exposure_warning(host, bound_host, bound_port)
    if warning is not None:
        click.echo(warning.replace("arbiter serve", "arbiter server"), err=True)
        if token is None:
            click.echo(
                f"arbiter server: warning: no ${TOKEN_ENV}: anyone who reaches it can submit runs", err=True
            )
    if broker and fleet_keys() is None:
        click.echo(
            f"arbiter server: warning: no ${SECRET_ENV}: engine programs cannot be sent to the fleet",
            err=True,
        )
    supervisor = Supervisor(
        writer,
        name or socket.gethostname(),
        url,
        broker,
        logs,
        concurrency=concurrency,
        on_end=notifier,
    )
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    where = f"fleet {mask_url(broker)}" if broker else "this machine's cores"
    if not play:
        where = "other servers (--no-play)"
    click.echo(
        f"arbiter: server {supervisor.name} on http://{shown}:{bound_port}/ (store {mask_url(url)}, "
        f"games on {where}, API /api/v1)",
        err=True,
    )
    from coordinator.accounts.rules import Policy
    from coordinator.server.app import create_server_app

    policy = Policy(cross_approval=cross_approval, signup=signup, private=private)
    app = create_server_app(reader, writer, token, broker, policy)
    stopping = threading.Event()

    def loop() -> None:
        while not stopping.is_set():
            try:
                supervisor.step()
            except Exception:  # the store hiccuped: the next pass tries again
                logging.getLogger("arbiter.server").exception("the server's pass failed")
            stopping.wait(TICK_SECONDS)

    looper = threading.Thread(target=loop, name="supervisor", daemon=True)
    if play:
        looper.start()
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=10)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        stopping.set()
        if play:
            looper.join()
        supervisor.close()
        notifier.close()
        sock.close()
        reader.close()
        writer.close()
