"""``arbiter user``: the operator's management of a server's accounts, on its store (the server
need not run); and ``arbiter login`` / ``logout``: a token of one's account, kept for the CLI."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from coordinator.cli.options import open_existing_store, store_option

if TYPE_CHECKING:
    from coordinator.server.client import ServerClient

#: --password-stdin: the password from stdin instead of a prompt.
password_stdin_option = click.option(
    "--password-stdin", is_flag=True, help="Read the password from stdin (else it is asked for)."
)


def read_password(from_stdin: bool, confirm: bool) -> str:
    """The password: stdin's first line (without its newline), or asked for (twice: ``confirm``)."""
    if from_stdin:
        line = sys.stdin.buffer.readline()  # bytes: stdin's own decoding fails later, or never
        try:
            return line.decode("utf-8").rstrip("\n")
        except UnicodeDecodeError:
            raise click.BadParameter(
                "the password on stdin is not UTF-8 text", param_hint="--password-stdin"
            ) from None
    return str(click.prompt("password", hide_input=True, confirmation_prompt=confirm))


def account_on(
    url: str, name: str | None, password_stdin: bool, confirm: bool
) -> tuple[ServerClient, str, str]:
    """The client of the server at ``url``, and the account's name and password (asked for when
    not given: :func:`read_password`)."""
    from coordinator.server.client import ServerClient

    client = ServerClient.of(url)
    name = name or click.prompt("name")
    return client, name, read_password(password_stdin, confirm)


@click.group("user")
def user_group() -> None:
    """Accounts of a server's store: add, list, enable, disable."""


@user_group.command("add")
@click.argument("name")
@click.option(
    "--role",
    type=click.Choice(["user", "approver", "admin"]),
    default="user",
    show_default=True,
    help="Its role.",
)
@password_stdin_option
@store_option
def add(name: str, role: str, password_stdin: bool, store_url: str | None) -> None:
    """Add an active account NAME."""
    from coordinator.accounts.passwords import hash_password
    from coordinator.accounts.rules import AccountState
    from coordinator.server.accounts_api import NAME_PATTERN

    if not NAME_PATTERN.fullmatch(name):
        raise click.BadParameter("expected 1 to 64 letters, digits, '.', '_' or '-'", param_hint="NAME")
    password = read_password(password_stdin, confirm=True)
    store = open_existing_store(store_url)
    store.create_account(name, hash_password(password), role, AccountState.ACTIVE)
    store.record("operator", "account", None, {"name": name, "role": role, "state": "active"})
    click.echo(f"arbiter: account {name} ({role}) added", err=True)


@user_group.command("list")
@store_option
def list_users(store_url: str | None) -> None:
    """List the accounts."""
    store = open_existing_store(store_url)
    found = store.list_accounts()
    if not found:
        click.echo("arbiter: no account yet (arbiter user add NAME --role admin)", err=True)
        return
    click.echo(f"{'name':<24} {'role':<9} {'state':<9} created")
    for account in found:
        click.echo(
            f"{account.name:<24} {account.role:<9} {account.state:<9} {account.created_at:%Y-%m-%d %H:%M}"
        )


def set_state(name: str, state: str, store_url: str | None, server: str | None = None) -> None:
    """Set account NAME's state: on a server through its API (as the logged-in caller, who must
    be an approver or an admin), else on the store directly (the operator)."""
    if server is not None:
        from coordinator.server.client import ServerClient

        client = ServerClient.of(server)
        answer = client.request("PATCH", f"/api/v1/accounts/{name}", {"state": state})
        click.echo(f"arbiter: account {name} is {answer['account']['state']}", err=True)
        return
    store = open_existing_store(store_url)
    if not store.update_account(name, state=state):
        raise click.BadParameter(f"no account {name!r}", param_hint="NAME")
    store.record("operator", "account", None, {"name": name, "state": state})
    click.echo(f"arbiter: account {name} is {state}", err=True)


server_option = click.option(
    "--server",
    metavar="URL",
    help="Through this server's API, as the logged-in approver or admin (else: the store).",
)


@user_group.command("disable")
@click.argument("name")
@store_option
@server_option
def disable(name: str, store_url: str | None, server: str | None) -> None:
    """Disable account NAME (its sessions end; its tokens stop working)."""
    set_state(name, "disabled", store_url, server)


@user_group.command("enable")
@click.argument("name")
@store_option
@server_option
def enable(name: str, store_url: str | None, server: str | None) -> None:
    """Enable account NAME (a pending sign-up, or a disabled account)."""
    set_state(name, "active", store_url, server)


@click.command()
@click.argument("url")
@click.option("--name", help="The account's name (else it is asked for).")
@password_stdin_option
def signup(url: str, name: str | None, password_stdin: bool) -> None:
    """Sign up on the server at URL: a pending account that an approver enables."""
    client, name, password = account_on(url, name, password_stdin, confirm=True)
    answer = client.request("POST", "/api/v1/signup", {"name": name, "password": password})
    state = answer["account"]["state"]
    click.echo(f"arbiter: account {name} signed up ({state}: an approver enables it)", err=True)


@click.command()
@click.argument("url")
@click.option("--name", help="Your account's name (else it is asked for).")
@password_stdin_option
def login(url: str, name: str | None, password_stdin: bool) -> None:
    """Get a token of your account on the server at URL, kept (mode 0600) for later commands."""
    from coordinator.server.credentials import save_token

    client, name, password = account_on(url, name, password_stdin, confirm=False)
    answer = client.request(
        "POST", "/api/v1/tokens", {"name": name, "password": password, "label": "arbiter login"}
    )
    where = save_token(client.url, str(answer["token"]))
    click.echo(
        f"arbiter: logged in to {client.url} as {answer['name']} ({answer['role']}); token kept in {where}",
        err=True,
    )


@click.command()
@click.argument("url")
def logout(url: str) -> None:
    """Forget the token kept for the server at URL."""
    from coordinator.server.client import ServerClient
    from coordinator.server.credentials import forget_token

    client = ServerClient.of(url)
    found = forget_token(client.url)
    click.echo(f"arbiter: {'logged out of' if found else 'no token kept for'} {client.url}", err=True)
