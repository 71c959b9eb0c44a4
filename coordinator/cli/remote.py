"""The CLI as a client of ``arbiter server``: ``--server URL`` (or ``$ARBITER_SERVER``) on the
commands that play runs submits the run there and follows it; ``arbiter watch``, ``stop`` and
``rerun`` act on a server's runs. Without a server everything plays here, as always."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from coordinator.cli.options import F, run_argument
from coordinator.cli.webhooks import WebhookType
from coordinator.server.client import SERVER_ENV

if TYPE_CHECKING:
    from coordinator.cli.options import Side
    from coordinator.registry import RunConfig
    from coordinator.runs import RunKind
    from coordinator.server.client import ServerClient

USER_ENV = "ARBITER_USER"
META_KEY = "arbiter.remote"
#: Where a command run by :func:`built_run` keeps the run it would submit (the server's web forms).
BUILT_KEY = "arbiter.built"
#: The server a command run by :func:`built_run` names: none, it only builds the run.
BUILDING = "(built for the web form)"


@dataclass(frozen=True)
class Remote:
    """Where a command's run goes when a server is named, and how the server serves it."""

    server: str | None = None
    throughput: int = 100
    webhooks: tuple[str, ...] = ()


def _keep(name: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A callback keeping an option's value in the context's meta (the commands' own
    signatures stay as they are)."""

    def keep(ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
        ctx.meta.setdefault(META_KEY, {})[name] = value
        return value

    return keep


def server_options(f: F) -> F:
    """``--server``, ``--throughput`` and ``--webhook``."""
    for decorator in reversed(
        (
            click.option(
                "--server",
                metavar="URL",
                envvar=SERVER_ENV,
                expose_value=False,
                callback=_keep("server"),
                help=f"Submit the run to this arbiter server and follow it (default: ${SERVER_ENV}; "
                "unset: play here). Ctrl-C detaches; the run goes on.",
            ),
            click.option(
                "--throughput",
                type=click.IntRange(1, 1000),
                default=100,
                show_default=True,
                expose_value=False,
                callback=_keep("throughput"),
                help="With --server: the run's weight among your runs of its priority, in percent.",
            ),
            click.option(
                "--webhook",
                "webhooks",
                type=WebhookType(),
                metavar="URL",
                multiple=True,
                expose_value=False,
                callback=_keep("webhooks"),
                help="With --server: POST a JSON message to URL when the run ends (Discord, Slack).",
            ),
        )
    ):
        f = decorator(f)
    return f


def remote() -> Remote:
    """The server options of the running command (a command run by :func:`built_run` goes the
    way of a submission, to stop at its run)."""
    ctx = click.get_current_context()
    kept = ctx.meta.get(META_KEY, {})
    server = BUILDING if BUILT_KEY in ctx.meta else (kept.get("server") or "").strip() or None
    return Remote(server, kept.get("throughput", 100), tuple(kept.get("webhooks", ())))


def client_of(url: str) -> ServerClient:
    """The client of ``url``."""
    from coordinator.server.client import ServerClient

    return ServerClient.of(url)


def check_local_only(*names: str) -> None:
    """A usage error when an option that only a local run uses was given with --server."""
    ctx = click.get_current_context()
    for name in names:
        if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE:
            option = "--" + name.replace("_", "-")
            raise click.UsageError(f"{option}: with --server the server decides where games are played")


@dataclass(frozen=True)
class BuiltRun:
    """The run a command would submit: its kind, configuration, sides and priority."""

    kind: RunKind
    config: RunConfig
    sides: tuple[Side, ...]
    priority: int


def built_run(command: click.Command, argv: list[str]) -> BuiltRun:
    """The run ``command`` (``arbiter sprt``, ``match``, ...) builds from ``argv``, checked as the
    command checks it, without playing or submitting it: the server's web forms build the same
    configuration the CLI does. A click error (UsageError, BadParameter) for bad options."""
    ctx = command.make_context(command.name or "arbiter", argv)
    ctx.meta[BUILT_KEY] = None
    with ctx:
        command.invoke(ctx)
    built = ctx.meta[BUILT_KEY]
    if not isinstance(built, BuiltRun):
        raise click.UsageError(f"{command.name}: this command submits no run")
    return built


def submit(kind: RunKind, config: RunConfig, sides: Sequence[Side], where: Remote) -> None:
    """Upload the sides' programs, submit the run to the server, and follow it (a command run by
    :func:`built_run` keeps the run there instead)."""
    from coordinator.registry import kind_of
    from coordinator.server.client import follow

    ctx = click.get_current_context()
    if BUILT_KEY in ctx.meta:
        ctx.meta[BUILT_KEY] = BuiltRun(kind, config, tuple(sides), ctx.params.get("priority", 0))
        return
    assert where.server is not None
    check_local_only("concurrency", "broker", "verify_fraction", "store_url")
    client = client_of(where.server)
    for side in sides:
        if side.program is not None and side.archive is not None:
            digest = client.upload_program(side.program.name, side.archive)
            if digest != side.program.digest:
                raise click.UsageError(
                    f"{side.source}: the server read its files as {digest[:12]}, not as sent"
                )
    priority = click.get_current_context().params.get("priority", 0)
    row, created = client.submit(
        str(kind), kind_of(kind).encode(config), priority, where.throughput, where.webhooks, submitter()
    )
    noun = kind_of(kind).noun
    said = "submitted" if created else "already on the server with the same configuration"
    click.echo(f"arbiter: {noun} {row['id']} {said} ({row['page']} on {client.url})", err=True)
    follow(client, int(row["id"]))


def submitter() -> str | None:
    """Who submits: ``$ARBITER_USER``, else the user's login name (the server shares its fleet
    among submitters; accounts will prove who they are)."""
    import getpass
    import os

    name = os.environ.get(USER_ENV, "").strip()
    if name:
        return name
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return None


# commands -----------------------------------------------------------------------------------------

server_required = click.option(
    "--server",
    metavar="URL",
    envvar=SERVER_ENV,
    required=True,
    help=f"The arbiter server (default: ${SERVER_ENV}).",
)


@click.command()
@run_argument()
@server_required
def watch(run_id: int, server: str) -> None:
    """Follow a run of a server until it ends (Ctrl-C detaches; the run goes on)."""
    from coordinator.server.client import follow

    follow(client_of(server), run_id)


@click.command()
@run_argument()
@server_required
def stop(run_id: int, server: str) -> None:
    """Stop a run of a server between two steps (arbiter resume RUN --server continues it)."""
    row = client_of(server).action(run_id, "stop")
    click.echo(f"arbiter: run {row['id']} stops ({row['state']} now)", err=True)


@click.command()
@run_argument()
@server_required
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="The new run's seed (default: a random one).")
@click.option(
    "--preset",
    metavar="NAME",
    help="Play it with the bounds and limits of the server's preset NAME (e.g. ltc after stc passed).",
)
@click.option("--follow/--no-follow", default=True, show_default=True, help="Follow the new run.")
def rerun(run_id: int, server: str, seed: int | None, preset: str | None, follow: bool) -> None:
    """Play a run of a server again with the same settings and a new seed, as a new run (or as
    its follow-up under another preset)."""
    from coordinator.server.client import follow as follow_run

    client = client_of(server)
    body: dict[str, Any] = {}
    if seed is not None:
        body["seed"] = seed
    if preset is not None:
        body["preset"] = preset
    row = client.action(run_id, "rerun", body)
    how = f"under preset {preset}" if preset else "with a new seed"
    click.echo(f"arbiter: run {row['id']} submitted: run {run_id} again {how}", err=True)
    if follow:
        follow_run(client, int(row["id"]))


@click.command()
@run_argument()
@server_required
def approve(run_id: int, server: str) -> None:
    """Approve a run of a server so that it is played (approvers; never one's own run)."""
    row = client_of(server).action(run_id, "approve")
    click.echo(f"arbiter: run {row['id']} approved by {row['approved_by']} ({row['state']})", err=True)
