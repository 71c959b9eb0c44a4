"""Accounts on a real ``arbiter server``: the authorization matrix of the API (every endpoint that
changes something, for every role, as the run's owner and not), approval (never by the submitter;
nothing is played before it), sign-up and enabling, tokens, the record of who did what, and the
same user journey from the CLI alone (``arbiter login``, ``arbiter sprt --server``)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_testkit import ServerProcess
from sprt_testkit import cli_command, run_cli, write_book, write_weights

from coordinator.accounts.passwords import hash_password
from coordinator.accounts.rules import AccountState
from coordinator.store import Store

GAME = "congo"
OPERATOR_TOKEN = "operator-token-for-tests"
PASSWORD = "correct horse battery"
RUN_WAIT = 180.0
ACCOUNTS = {"ann": "user", "bob": "user", "appr": "approver", "apr2": "approver", "adm": "admin"}
_seeds = itertools.count(100)


def add_account(store: str, name: str, role: str) -> None:
    done = subprocess.run(
        cli_command("user", "add", name, "--role", role, "--password-stdin", "--store", store),
        input=PASSWORD + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[ServerProcess, dict[str, str], dict[str, Any]]]:
    """A server with an operator token and five accounts; each account's token; an SPRT's
    configuration."""
    folder = tmp_path_factory.mktemp("accounts")
    store = f"sqlite:///{folder / 'server.db'}"
    files = {
        "book": write_book(folder / "book.txt", GAME, count=8),
        "cand": write_weights(folder / "c.json", {"pawn": 150}),
    }
    scratch = f"sqlite:///{folder / 'scratch.db'}"
    args = [
        "sprt",
        GAME,
        "--candidate",
        str(files["cand"]),
        "--book",
        str(files["book"]),
        "--batch-pairs",
        "2",
    ]
    done = run_cli(*args, "--nodes", "200", "--max-games", "4", "--store", scratch)
    assert done.returncode == 0, done.stderr
    config = Store(scratch).get_run(1).config  # type: ignore[union-attr]
    # It plays nothing: the runs the matrix makes only need to be stored and acted on. The journey
    # test starts a server that plays, beside it on the same store.
    server = ServerProcess(folder, store, env={"ARBITER_SERVER_TOKEN": OPERATOR_TOKEN}, args=("--no-play",))
    accounts = Store(store)  # as `arbiter user add` makes them (a command each cost a second of CPU)
    for name, role in ACCOUNTS.items():
        accounts.create_account(name, hash_password(PASSWORD), role, AccountState.ACTIVE)
    accounts.close()
    server.start()
    tokens = {}
    for name in ACCOUNTS:
        status, answer = server.request("POST", "/api/v1/tokens", {"name": name, "password": PASSWORD})
        assert status == 201, answer
        tokens[name] = answer["token"]
    tokens["operator"] = OPERATOR_TOKEN
    try:
        yield server, tokens, config
    finally:
        server.stop()


def call(
    server: ServerProcess, token: str | None, method: str, path: str, body: Any = None
) -> tuple[int, Any]:
    """A request as the holder of ``token`` (None: anonymous)."""
    env = dict(server.env)
    if token is None:
        server.env.pop("ARBITER_SERVER_TOKEN", None)
    else:
        server.env["ARBITER_SERVER_TOKEN"] = token
    try:
        return server.request(method, path, body)
    finally:
        server.env.clear()
        server.env.update(env)


def submitted(server: ServerProcess, tokens: dict[str, str], config: dict[str, Any], by: str = "ann") -> int:
    """A new run submitted by ``by`` (a user's runs wait for an approver: none of these plays)."""
    status, answer = call(
        server,
        tokens[by],
        "POST",
        "/api/v1/runs",
        {"kind": "sprt", "config": {**config, "seed": next(_seeds)}},
    )
    assert status == 201, answer
    return int(answer["run"]["id"])


#: Every endpoint that changes a run: (name, method, path with {id}, body).
ACTIONS = (
    ("stop", "POST", "/api/v1/runs/{id}/stop", None),
    ("resume", "POST", "/api/v1/runs/{id}/resume", None),
    ("rerun", "POST", "/api/v1/runs/{id}/rerun", {}),
    ("change", "PATCH", "/api/v1/runs/{id}", {"throughput": 50}),
    ("delete", "DELETE", "/api/v1/runs/{id}", None),
    ("approve", "POST", "/api/v1/runs/{id}/approve", None),
)
OK = {"stop": 202, "resume": 202, "rerun": 201, "change": 200, "delete": 200, "approve": 200}
#: Who may do what to ann's run: True allowed, else the status expected.
MATRIX = {
    None: dict.fromkeys(OK, 401),
    "ann": {**dict.fromkeys(OK, True), "approve": 403},
    "bob": dict.fromkeys(OK, 403),
    "appr": dict.fromkeys(OK, True),
    "adm": dict.fromkeys(OK, True),
    "operator": dict.fromkeys(OK, True),
}


@pytest.mark.parametrize("who", list(MATRIX), ids=lambda w: w or "anonymous")
def test_who_may_act_on_a_users_run(
    served: tuple[ServerProcess, dict[str, str], dict[str, Any]], who: str | None
) -> None:
    server, tokens, config = served
    for action, method, path, body in ACTIONS:
        run_id = submitted(server, tokens, config)
        token = tokens[who] if who is not None else None
        status, answer = call(server, token, method, path.format(id=run_id), body)
        expected = MATRIX[who][action]
        assert status == (OK[action] if expected is True else expected), (who, action, answer)
        if expected is not True:
            assert "error" in answer
            row = server.run(run_id)
            assert row["state"] == "queued" and row["approval"] == "pending" and row["throughput"] == 100


def test_approval_rules(served: tuple[ServerProcess, dict[str, str], dict[str, Any]]) -> None:
    server, tokens, config = served
    mine = submitted(server, tokens, config, by="appr")  # an approver's weight-only run starts at once
    assert server.run(mine)["approval"] == "approved"
    users = submitted(server, tokens, config, by="ann")
    assert server.run(users)["approval"] == "pending" and server.run(users)["owner"] == "ann"
    status, answer = call(server, tokens["ann"], "POST", f"/api/v1/runs/{users}/approve")
    assert status == 403 and "approver" in answer["error"]
    status, answer = call(server, tokens["appr"], "PATCH", f"/api/v1/runs/{users}", {"priority": 2})
    assert status == 200
    status, _ = call(server, tokens["apr2"], "POST", f"/api/v1/runs/{users}/approve")
    assert status == 200 and server.run(users)["approved_by"] == "apr2"
    status, _ = call(server, tokens["ann"], "PATCH", f"/api/v1/runs/{users}", {"throughput": 150})
    assert status == 200 and server.run(users)["approval"] == "pending"  # a user's change un-approves
    status, answer = call(
        server, tokens["ann"], "POST", "/api/v1/runs", {"kind": "sprt", "config": config, "owner": "bob"}
    )
    assert status in (200, 201) and answer["run"]["owner"] != "bob"  # nobody submits in another's name
    trail = server.get(f"/api/v1/audit?run={users}")["audit"]
    assert [(e["actor"], e["action"]) for e in reversed(trail)] == [
        ("ann", "submit"),
        ("appr", "change"),
        ("apr2", "approve"),
        ("ann", "change"),
    ]


def test_accounts_tokens_and_signup(served: tuple[ServerProcess, dict[str, str], dict[str, Any]]) -> None:
    server, tokens, _ = served
    status, answer = call(server, None, "POST", "/api/v1/signup", {"name": "newbie", "password": PASSWORD})
    assert status == 201 and answer["account"]["state"] == "pending"
    status, answer = call(server, None, "POST", "/api/v1/signup", {"name": "newbie", "password": PASSWORD})
    assert status == 409
    status, answer = call(server, None, "POST", "/api/v1/signup", {"name": "x y", "password": "short"})
    assert status == 400 and answer["error"].startswith("name:")
    status, answer = call(server, None, "POST", "/api/v1/tokens", {"name": "newbie", "password": PASSWORD})
    assert status == 403 and "pending" in answer["error"]
    assert call(server, tokens["ann"], "GET", "/api/v1/accounts")[0] == 403
    assert call(server, tokens["ann"], "PATCH", "/api/v1/accounts/newbie", {"state": "active"})[0] == 403
    assert call(server, tokens["appr"], "PATCH", "/api/v1/accounts/newbie", {"state": "active"})[0] == 200
    assert call(server, tokens["appr"], "PATCH", "/api/v1/accounts/newbie", {"state": "disabled"})[0] == 403
    assert call(server, tokens["appr"], "PATCH", "/api/v1/accounts/newbie", {"role": "admin"})[0] == 403
    status, answer = call(server, None, "POST", "/api/v1/tokens", {"name": "newbie", "password": PASSWORD})
    assert status == 201
    newbie = answer["token"]
    assert call(server, newbie, "GET", "/api/v1/me")[1] == {
        "name": "newbie",
        "role": "user",
        "operator": False,
    }
    listed = call(server, newbie, "GET", "/api/v1/tokens")[1]["tokens"]
    assert len(listed) == 1 and "token" not in listed[0] and newbie not in json.dumps(listed)
    assert call(server, tokens["ann"], "DELETE", f"/api/v1/tokens/{listed[0]['id']}")[0] == 404  # not hers
    assert call(server, tokens["adm"], "PATCH", "/api/v1/accounts/newbie", {"state": "disabled"})[0] == 200
    assert call(server, newbie, "GET", "/api/v1/me")[0] == 401  # a disabled account's token is dead
    assert call(server, None, "GET", "/api/v1/me")[0] == 401
    assert call(server, "arbiter_forged", "GET", "/api/v1/me")[0] == 401
    for who in ("ann", "operator"):
        body = json.dumps(call(server, tokens[who], "GET", "/api/v1/accounts")[1])
        assert "password" not in body and "arbiter_" not in body


def test_the_journey_from_the_cli_alone(tmp_path: Path) -> None:
    """Sign up, wait, be enabled by an approver, log in, submit an SPRT of an engine program that
    waits for approval, be approved, see it played to its end, the webhook fired: all by commands,
    on a server that plays (and a store of its own, so that it plays this run only)."""
    store = f"sqlite:///{tmp_path / 'journey.db'}"
    Store(store).close()
    add_account(store, "appr", "approver")
    server = ServerProcess(tmp_path, store, args=("--concurrency", "1")).start()
    try:
        _journey(server, tmp_path)
    finally:
        server.stop()


def _journey(server: ServerProcess, tmp_path: Path) -> None:
    from celery_testkit import wait_until
    from engine_testkit import arbiter_engine_file
    from test_server_local import Hooks

    hooks = Hooks()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARBITER_")}
    homes = {who: tmp_path / who for who in ("dora", "appr")}

    def arbiter(who: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            cli_command(*args),
            input=stdin,
            capture_output=True,
            text=True,
            env=clean | {"XDG_CONFIG_HOME": str(homes[who])},
            timeout=120,
        )

    signed = arbiter(
        "dora", "signup", server.url, "--name", "dora", "--password-stdin", stdin=PASSWORD + "\n"
    )
    assert signed.returncode == 0 and "pending" in signed.stderr, signed.stderr
    early = arbiter("dora", "login", server.url, "--name", "dora", "--password-stdin", stdin=PASSWORD + "\n")
    assert early.returncode == 2 and "pending" in early.stderr, early.stderr
    assert (
        arbiter(
            "appr", "login", server.url, "--name", "appr", "--password-stdin", stdin=PASSWORD + "\n"
        ).returncode
        == 0
    )
    enabled = arbiter("appr", "user", "enable", "dora", "--server", server.url)
    assert enabled.returncode == 0, enabled.stderr
    login = arbiter("dora", "login", server.url, "--name", "dora", "--password-stdin", stdin=PASSWORD + "\n")
    assert login.returncode == 0, login.stderr
    kept = homes["dora"] / "arbiter" / "credentials.json"
    assert kept.stat().st_mode & 0o777 == 0o600 and "arbiter_" in kept.read_text()
    book = write_book(tmp_path / "book.txt", GAME, count=8)
    program = arbiter_engine_file(tmp_path / "dora-engine")
    args = [
        "sprt",
        GAME,
        "--candidate",
        str(program),
        "--book",
        str(book),
        "--nodes",
        "200",
        "--max-games",
        "8",
    ]
    args += ["--batch-pairs", "2", "--server", server.url, "--webhook", hooks.url]
    follower = subprocess.Popen(
        cli_command(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean | {"XDG_CONFIG_HOME": str(homes["dora"])},
    )
    try:
        pending = wait_until(
            lambda: [r for r in server.get("/api/v1/runs?owner=dora")["runs"] if r["approval"] == "pending"],
            RUN_WAIT,
            "dora's run to wait for an approver",
        )
        run_id = pending[0]["id"]
        assert server.run(run_id)["games"] == 0  # nothing is played before it is approved
        mine = arbiter("dora", "approve", str(run_id), "--server", server.url)
        assert mine.returncode == 2 and "only an approver" in mine.stderr, mine.stderr
        approved = arbiter("appr", "approve", str(run_id), "--server", server.url)
        assert approved.returncode == 0, approved.stderr
        out, err = follower.communicate(timeout=RUN_WAIT)
        assert follower.returncode == 0, err
        assert "games: 8" in out and "waits for an approver" in err
    finally:
        follower.kill()
    assert server.run(run_id)["state"] == "finished"
    fired = hooks.next()
    assert fired["arbiter"]["run_id"] == run_id and fired["arbiter"]["owner"] == "dora"


def test_logins_are_rate_limited(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'server.db'}"
    Store(store).close()
    add_account(store, "carl", "user")
    server = ServerProcess(tmp_path, store).start()
    try:
        for _ in range(5):
            status, answer = call(
                server, None, "POST", "/api/v1/tokens", {"name": "carl", "password": "wrong pass"}
            )
            assert status == 401 and answer["error"] == "login: unknown name or wrong password"
        status, answer = call(server, None, "POST", "/api/v1/tokens", {"name": "carl", "password": PASSWORD})
        assert status == 429  # even the right password, once the failures are too many
        status, answer = call(server, None, "POST", "/api/v1/runs", {})
        assert status == 401  # a server with accounts takes no anonymous change
    finally:
        server.stop()


#: Every API endpoint that is not a plain read, and what each caller gets (None: anonymous). A
#: callable builds the request's path and body for a fresh target (a run of ann's, a pending
#: account, one of the caller's tokens).
ROLES = (None, "ann", "bob", "appr", "adm", "operator")


def _fresh_pending(server: ServerProcess) -> str:
    name = f"p{next(_seeds)}"
    status, _ = call(server, None, "POST", "/api/v1/signup", {"name": name, "password": PASSWORD})
    assert status == 201
    return name


def _own_token_id(server: ServerProcess, tokens: dict[str, str], who: str | None) -> int:
    """A token of ``who``'s own (of ann's for callers without an account)."""
    owner = who if who in ACCOUNTS else "ann"
    status, answer = call(
        server, None, "POST", "/api/v1/tokens", {"name": owner, "password": PASSWORD, "label": "x"}
    )
    assert status == 201
    listed = call(server, answer["token"], "GET", "/api/v1/tokens")[1]["tokens"]
    return int(listed[-1]["id"])


def test_every_endpoint_that_changes_something_for_every_role(
    served: tuple[ServerProcess, dict[str, str], dict[str, Any]],
) -> None:
    from coordinator.server import accounts_api, api

    server, tokens, config = served
    archive = _archive()
    # (method, path pattern): {caller: expected status}, and how to make the request
    table: dict[tuple[str, str], tuple[dict[str | None, int], Any]] = {
        ("POST", "/api/v1/runs"): (
            {None: 401, "ann": 201, "bob": 201, "appr": 201, "adm": 201, "operator": 201},
            lambda who: ("/api/v1/runs", {"kind": "sprt", "config": {**config, "seed": next(_seeds)}}, None),
        ),
        ("POST", "/api/v1/programs"): (
            {None: 401, "ann": 201, "bob": 201, "appr": 201, "adm": 201, "operator": 201},
            lambda who: ("/api/v1/programs?name=p", None, archive),
        ),
        ("POST", "/api/v1/signup"): (
            dict.fromkeys(ROLES, 201),
            lambda who: ("/api/v1/signup", {"name": f"s{next(_seeds)}", "password": PASSWORD}, None),
        ),
        ("POST", "/api/v1/tokens"): (
            dict.fromkeys(ROLES, 201),  # a name and a password are the credential here
            lambda who: ("/api/v1/tokens", {"name": "adm", "password": PASSWORD}, None),
        ),
        ("DELETE", "/api/v1/tokens/{token_id:number}"): (
            {None: 401, "ann": 200, "bob": 200, "appr": 200, "adm": 200, "operator": 403},
            lambda who: (f"/api/v1/tokens/{_own_token_id(server, tokens, who)}", None, None),
        ),
        ("PATCH", "/api/v1/accounts/{name}"): (
            {None: 401, "ann": 403, "bob": 403, "appr": 200, "adm": 200, "operator": 200},
            lambda who: (f"/api/v1/accounts/{_fresh_pending(server)}", {"state": "active"}, None),
        ),
    }
    for action, method, path, body in ACTIONS:
        expected = {
            who: (OK[action] if MATRIX[who][action] is True else MATRIX[who][action]) for who in ROLES
        }
        table[(method, path.replace("{id}", "{run_id:number}"))] = (
            expected,
            lambda who, path=path, body=body: (path.format(id=submitted(server, tokens, config)), body, None),
        )
    changing = {
        (method, path)
        for path, _handler, methods in (*api.ROUTES, *accounts_api.ROUTES)
        for method in methods
        if method != "GET"
    }
    assert changing == set(table), f"endpoints without a row of the matrix: {changing ^ set(table)}"
    for (method, _pattern), (expected, make) in sorted(table.items()):
        for who in ROLES:
            path, body, data = make(who)
            token = tokens[who] if who is not None else None
            if data is not None:
                env = {"ARBITER_SERVER_TOKEN": token} if token else {}
                saved, server.env = server.env, env
                try:
                    status, answer = server.request(method, path, data=data)
                finally:
                    server.env = saved
            else:
                status, answer = call(server, token, method, path, body)
            assert status == expected[who], (method, path, who, answer)
    # an approver never approves their own run; an admin neither
    for who in ("appr", "adm"):
        own = (
            submitted(server, tokens, config, by=who)
            if who == "appr"
            else _pending_of(server, tokens, config, who)
        )
        assert call(server, tokens[who], "POST", f"/api/v1/runs/{own}/approve")[0] == 403
    # a --no-play server took every run and played none, approved ones included
    runs = server.get("/api/v1/runs")["runs"]
    assert any(r["approval"] == "approved" for r in runs)
    assert {r["state"] for r in runs} <= {"queued", "stopped"} and not server.run_processes()


def _pending_of(server: ServerProcess, tokens: dict[str, str], config: dict[str, Any], who: str) -> int:
    """A run of ``who`` that waits for an approver (an admin's program run waits too: here, a
    user's run given to ``who`` is enough to test self-approval through the owner check)."""
    status, answer = call(
        server,
        tokens["operator"],
        "POST",
        "/api/v1/runs",
        {"kind": "sprt", "config": {**config, "seed": next(_seeds)}, "owner": who},
    )
    assert status == 201
    return int(answer["run"]["id"])


def _archive() -> bytes:
    """A tiny program archive as ``wire.programs.pack`` makes it."""
    import tempfile

    from wire.programs import pack

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "engine.sh"
        path.write_text("#!/bin/sh\n")
        return pack(Path(folder), [path])
