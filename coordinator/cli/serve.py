"""``arbiter serve``: the live web dashboard of a store (``coordinator.web``), served by uvicorn.

It reads the store read-only, beside the coordinators writing it, and listens on loopback unless
told otherwise: anywhere else, anyone who reaches the port reads every run, so it warns and the
docs say how to put it behind a reverse proxy with authentication (docs/deploy.md).
"""

from __future__ import annotations

import ipaddress
import signal
import socket
from types import FrameType

import click

from coordinator.cli.options import UTF8_TEXT, broker_option_for, store_option
from wire.celeryconfig import BROKER_ENV

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: Seconds open requests get to finish when the server stops (drawing a big report takes seconds).
SHUTDOWN_SECONDS = 30


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening (a usage error if that cannot be done)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as e:
        raise click.BadParameter(f"cannot listen on {host}: {e.strerror or e}", param_hint="--host") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise click.UsageError(f"cannot listen on {host} port {port}: {e.strerror or e}") from None
    return sock


def is_loopback(address: str) -> bool:
    """True for an address of this machine's loopback interface."""
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, address: str, port: int) -> str | None:
    """The warning for a dashboard listening on ``address`` (``--host`` said ``host``), or None
    on loopback."""
    if is_loopback(address):
        return None
    return (
        f"arbiter serve: warning: listening on {host}, not loopback: anyone who reaches port {port} "
        "reads every run; put it behind a proxy with authentication (docs/deploy.md)"
    )


@click.command()
@store_option
@click.option("--host", type=UTF8_TEXT, default=DEFAULT_HOST, show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="Port to listen on.",
)
@broker_option_for(
    "Redis broker whose workers the workers page lists as online, from their heartbeats "
    f"(default: ${BROKER_ENV}; unset: no such list)."
)
def serve(store_url: str | None, host: str, port: int, broker: str | None) -> None:
    """Serve a live, read-only web dashboard of the store's runs."""
    import uvicorn

    from coordinator.store import Store, mask_url
    from coordinator.web.app import create_app

    try:
        store = Store(store_url, read_only=True)
    except FileNotFoundError as e:
        raise click.UsageError(str(e)) from None
    broker = broker.strip() if broker and broker.strip() else None
    try:
        app = create_app(store, broker_url=broker)
    except ValueError as e:
        store.close()
        raise click.BadParameter(str(e), param_hint="--broker") from None
    sock = listening_socket(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    warning = exposure_warning(host, bound_host, bound_port)
    if warning is not None:
        click.echo(warning, err=True)
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    click.echo(
        f"arbiter: dashboard on http://{shown}:{bound_port}/ (store {mask_url(store.url)}, read-only"
        + (f"; workers online on {mask_url(broker)})" if broker else ")"),
        err=True,
    )
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
    )

    class Server(uvicorn.Server):
        """uvicorn's server, remembering a Ctrl-C: uvicorn re-raises it after its graceful
        shutdown, but whether that reaches us as KeyboardInterrupt depends on asyncio's timing."""

        interrupted = False

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            self.interrupted = self.interrupted or sig == signal.SIGINT
            super().handle_exit(sig, frame)

    server = Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        store.close()
    if server.interrupted:
        raise click.Abort
