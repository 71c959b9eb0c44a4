"""No password of a store or broker URL appears in any output, file or page: a real SPRT on a
real PostgreSQL server whose URL carries the password in its userinfo (and, for the reading
commands, in a ``password`` query parameter), then every command and page that shows a run, and
the rows of the store itself; an unreachable broker whose URL has a password."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from celery_testkit import free_port
from pg_testkit import PostgresServer
from process_testkit import read_line
from report_testkit import CANDIDATE
from sprt_testkit import cli_command, run_cli
from sqlalchemy import MetaData, select
from starlette.testclient import TestClient

from coordinator.store import Store
from coordinator.web.app import create_app

#: Bound on the dashboard's start (seconds).
WAIT = 60.0


def outputs(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


def test_no_password_in_any_output(pg_server: PostgresServer, tmp_path: Path) -> None:
    secret = pg_server.password
    database = pg_server.database("secrets")
    in_userinfo = pg_server.url(database)
    in_query = f"postgresql+psycopg://arbiter@127.0.0.1:{pg_server.port}/{database}?password={secret}"
    assert secret in in_userinfo and secret in in_query
    seen: dict[str, str] = {}

    done = run_cli(
        "sprt", "congo", "--candidate", str(CANDIDATE["congo"]), "--nodes", "300", "--max-games", "8",
        "--batch-pairs", "2", "--concurrency", "2", "--store", in_userinfo,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen["sprt"] = outputs(done)
    assert "***" in seen["sprt"], "the start line names the store, masked"
    report = tmp_path / "report.html"
    for url in (in_userinfo, in_query):
        for name, args in {
            "status": ["status", "--store", url],
            "status 1": ["status", "1", "--store", url],
            "report": ["report", "1", "--store", url, "--output", str(report)],
            "report json": ["report", "1", "--store", url, "--json"],
            "games": ["games", "1", "--store", url],
        }.items():
            done = run_cli(*args)
            assert done.returncode == 0, (name, done.stderr)
            seen[f"{name} ({(url == in_query and 'query') or 'userinfo'})"] = outputs(done)
        seen[f"report file ({url == in_query})"] = report.read_text()

    store = Store(in_userinfo, read_only=True)
    with TestClient(create_app(store)) as client:
        for path in ("/", "/runs/1", "/runs/1/report.html", "/api/runs", "/api/runs/1", "/runs/1/games",
                     "/workers"):  # fmt: skip
            answer = client.get(path)
            assert answer.status_code == 200, path
            seen[f"page {path}"] = answer.text
    tables = MetaData()
    tables.reflect(store.engine)
    with store.engine.connect() as connection:
        rows = [
            json.dumps([str(v) for v in row])
            for table in tables.sorted_tables
            for row in connection.execute(select(table))
        ]
    seen["store rows"] = "\n".join(rows)
    assert '"sprt", "congo"' in seen["store rows"] and len(rows) > 4, "the run and its results are read"
    store.close()

    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "ARBITER_STORE"}
    server = subprocess.Popen(
        cli_command("serve", "--store", in_query, "--port", str(port)),
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert server.stderr is not None
        seen["serve banner"] = read_line(server.stderr, WAIT, "arbiter serve's first line")
        assert seen["serve banner"].startswith("arbiter: dashboard on")
    finally:
        server.terminate()
        server.wait(WAIT)

    for name, text in seen.items():
        assert secret not in text, f"the password shows in {name}"


def test_no_broker_password_when_unreachable() -> None:
    secret = "Br0kerSecret"
    broker = f"redis://:{secret}@127.0.0.1:{free_port()}/0"
    for args in (
        [
            "sprt",
            "congo",
            "--candidate",
            "default",
            "--nodes",
            "300",
            "--max-games",
            "4",
            "--broker",
            broker,
            "--store",
            "sqlite://",
        ],
        ["worker", "--broker", broker],
    ):
        done = run_cli(*args)
        assert done.returncode != 0 and "127.0.0.1" in done.stderr, done.stderr
        assert secret not in outputs(done), outputs(done)
        assert "Traceback" not in done.stderr
