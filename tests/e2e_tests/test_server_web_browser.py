"""The journey of issue 35 in a real browser (Debian's Chromium driven by Playwright) against a real
``arbiter server`` playing on two real Celery workers: a person signs up and stays pending, an
approver enables the account on the web, the person logs in and submits an SPRT through the form
with an engine program (its folder uploaded as a .tar.gz), the run waits for approval unplayed, the
approver approves it on its page, and it is played to its end, the person's open page showing it,
and the webhook the form named fires.

No request leaves the server (every request is intercepted) and no page logs a console error.
"""

from __future__ import annotations

import io
import json
import queue
import re
import secrets
import sqlite3
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from celery_testkit import RedisDatabase, WorkerPool
from server_testkit import ServerProcess
from sprt_testkit import cli_command

#: Bound on a wait for the browser to see a change (milliseconds).
SEE = 60_000
PASSWORD = "correct horse battery"


def program_archive(folder: Path) -> Path:
    """The engine program's folder as an author would upload it: ``tar -czf``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.iterdir()):
            tar.add(path, arcname=f"{folder.name}/{path.name}")
    target = folder.parent / f"{folder.name}.tar.gz"
    target.write_bytes(buffer.getvalue())
    return target


@pytest.fixture
def hooks() -> Iterator[tuple[str, queue.Queue[dict[str, Any]]]]:
    """A webhook receiver on a free loopback port: its URL and the JSON bodies posted to it."""
    bodies: queue.Queue[dict[str, Any]] = queue.Queue()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            bodies.put(json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0")))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{http.server_address[1]}/hook", bodies
    finally:
        http.shutdown()
        http.server_close()


@pytest.fixture
def server(tmp_path: Path, redis_server: RedisDatabase, workers: WorkerPool) -> Iterator[ServerProcess]:
    """A server on the fleet: two real Celery workers behind a real redis-server, the fleet's
    secret held by the server and the workers only (engine programs go only to a fleet with keys)."""
    secret = secrets.token_hex(16)
    for name in ("web1", "web2"):
        workers.start(name, env={"ARBITER_SECRET": secret})
    store = f"sqlite:///{tmp_path / 'server.db'}"
    process = ServerProcess(tmp_path, store, redis_server.url, env={"ARBITER_SECRET": secret})
    try:
        process.start()
        done = subprocess.run(
            [*cli_command("user", "add", "ann", "--role", "approver", "--password-stdin"), "--store", store],
            input=PASSWORD.encode(),
            capture_output=True,
            cwd=tmp_path,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr.decode()
        yield process
    finally:
        process.stop()


class People:
    """One browser context per person, each kept to the server, console errors recorded."""

    def __init__(self, chromium: Any, base: str) -> None:
        self.chromium = chromium
        self.base = base
        self.contexts: list[Any] = []
        self.outside: list[str] = []
        self.errors: list[str] = []

    def page(self) -> Any:
        context = self.chromium.new_context(viewport={"width": 1280, "height": 1000})
        context.set_default_timeout(SEE)

        def route(route: Any) -> None:
            if route.request.url.startswith(f"{self.base}/"):
                route.continue_()
            else:
                self.outside.append(route.request.url)
                route.abort()

        context.route("**/*", route)
        context.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.contexts.append(context)
        return context.new_page()

    def close(self) -> None:
        for context in self.contexts:
            context.close()


def log_in(page: Any, base: str, name: str) -> None:
    page.goto(f"{base}/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")


def test_sign_up_approve_submit_an_engine_program_approve_and_play(
    server: ServerProcess, chromium: Any, tmp_path: Path, hooks: tuple[str, queue.Queue[dict[str, Any]]]
) -> None:
    from engine_testkit import arbiter_engine_file

    upload = program_archive(arbiter_engine_file(tmp_path / "my-engine", name="my-engine").parent)
    people = People(chromium, server.url)
    try:
        bob = people.page()
        bob.goto(f"{server.url}/signup")
        bob.fill("input[name=name]", "bob")
        bob.fill("input[name=password]", PASSWORD)
        bob.click("button[type=submit]")
        bob.wait_for_selector("text=is pending")
        log_in(bob, server.url, "bob")
        assert "waits for an approver" in bob.inner_text("p.error")
        assert [e for e in people.errors if "403" in e] == people.errors != []  # the refused login's 403
        people.errors.clear()

        ann = people.page()
        log_in(ann, server.url, "ann")
        ann.goto(f"{server.url}/accounts")
        ann.click("tr:has-text('bob') button:has-text('enable')")
        ann.wait_for_selector("tr:has-text('bob') >> text=active")

        log_in(bob, server.url, "bob")
        bob.wait_for_selector("header.bar .who >> text=bob")
        bob.click("header.bar >> text=submit")
        bob.select_option("select[name=game]", "congo")
        bob.select_option("select[name=preset]", "stc")  # the preset fills its bounds and limits
        assert bob.input_value("input[name=elo1]") == "2" and bob.input_value("input[name=nodes]") == "4000"
        bob.set_input_files("input[name=candidate_file]", str(upload))
        for name, value in (("nodes", "200"), ("batch_pairs", "2"), ("max_games", "4"), ("seed", "11")):
            bob.fill(f"input[name={name}]", value)
        bob.fill("input[name=webhook]", hooks[0])
        bob.click("#submit")
        bob.wait_for_url(re.compile(r"/runs/\d+$"))
        run_id = int(bob.url.rsplit("/", 1)[1])
        assert bob.inner_text("[data-field=approval]") == "pending"
        row = server.run(run_id)
        assert row["owner"] == "bob" and row["approval"] == "pending"
        assert row["config"]["candidate_program"]["name"] == "my-engine" and row["games"] == 0
        assert row["state"] == "queued" and (row["config"]["elo0"], row["config"]["elo1"]) == (0, 2)
        assert bob.locator(f"form[action='/runs/{run_id}/approve']").count() == 0

        ann.goto(f"{server.url}/runs/{run_id}")
        ann.click(f"form[action='/runs/{run_id}/approve'] button")
        ann.wait_for_selector("[data-field=approval]:has-text('approved')")
        assert "by ann" in ann.inner_text("#people")

        # bob's page, open all along, follows the run to its end by itself
        bob.wait_for_selector("#live [data-field=state]:text-is('finished')", timeout=SEE * 2)
        row = server.run(run_id)
        assert row["state"] == "finished" and row["games"] == 4 and row["approved_by"] == "ann"
        with sqlite3.connect(server.store.removeprefix("sqlite:///")) as db:
            played_by = {w for (w,) in db.execute("SELECT worker FROM results WHERE run_id = ?", (run_id,))}
        assert played_by and all(w and w.split("@")[0] in ("web1", "web2") for w in played_by), played_by
        fired = hooks[1].get(timeout=SEE / 1000)
        assert fired["arbiter"]["run_id"] == run_id and fired["arbiter"]["state"] == "finished"
        bob.goto(f"{server.url}/audit?run={run_id}")
        actions = bob.inner_text("table")
        assert "submit" in actions and "approve" in actions
        assert people.outside == [] and people.errors == []
    finally:
        people.close()
