"""The CLI's side of the server's API: submit a run, follow it, stop, resume and rerun it.

A following CLI only reads: Ctrl-C detaches from the run and leaves it going on the server.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from coordinator.console import say, show
from coordinator.console.progress import ProgressPrinter
from wire.masking import mask_url

#: The server a command talks to when ``--server`` is not given.
SERVER_ENV = "ARBITER_SERVER"
#: The server's token (``Authorization: Bearer``), when it has one.
TOKEN_ENV = "ARBITER_SERVER_TOKEN"
#: Seconds between two looks at a followed run.
FOLLOW_INTERVAL = 1.0
#: Seconds a request may take.
REQUEST_TIMEOUT = 60.0
#: Seconds a follower waits for a server that stopped answering before it gives up.
LOST_SECONDS = 120.0
#: The states in which a run moves on.
MOVING = ("queued", "running", "interrupted")
FAILED_EXIT = 1
DETACHED_EXIT = 130


class ServerError(ValueError):
    """The server could not be reached, or refused the request (its one-line reason)."""


class Unreachable(ServerError):
    """The server did not answer, or answered that it is in trouble (a 5xx)."""


@dataclass(frozen=True)
class ServerClient:
    """Requests to the server at ``url`` (with ``token`` when it needs one)."""

    url: str
    token: str | None = None

    @classmethod
    def of(cls, url: str) -> ServerClient:
        """A client of ``url`` (``http://host:port``), with ``$ARBITER_SERVER_TOKEN`` or the token
        ``arbiter login`` kept for it."""
        try:  # urlsplit refuses a broken IPv6 host, .port a port that is not one
            parsed = urllib.parse.urlsplit(url.strip())
            usable = parsed.scheme in ("http", "https") and bool(parsed.hostname) and parsed.port != 0
        except ValueError:
            usable = False
        if not usable:
            raise ServerError(f"--server: expected the server's http(s)://HOST:PORT URL, got {url!r}")
        from coordinator.server.credentials import token_for

        base = url.strip().rstrip("/")
        return cls(base, os.environ.get(TOKEN_ENV) or token_for(base))

    def request(self, method: str, path: str, body: Any = None, data: bytes | None = None) -> Any:
        """The JSON answer to ``method path``; a ServerError with the server's reason."""
        headers = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        elif data is not None:
            headers["Content-Type"] = "application/octet-stream"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as answer:
                return json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as e:
            failure = Unreachable if e.code >= 500 else ServerError  # a 5xx: a server in trouble, for now
            raise failure(f"server {mask_url(self.url)}: {reason(e)}") from None
        except (urllib.error.URLError, OSError, ValueError, RecursionError) as e:  # RecursionError: JSON
            why = getattr(e, "reason", None) or e  # nested deeper than Python recurses
            raise Unreachable(f"server {mask_url(self.url)}: cannot be reached ({why})") from None

    def upload_program(self, name: str, archive: bytes) -> str:
        """Upload an engine program's archive; its digest as the server computed it."""
        answer = self.request("POST", f"/api/v1/programs?name={urllib.parse.quote(name)}", data=archive)
        return str(answer["digest"])

    def submit(
        self,
        kind: str,
        config: dict[str, Any],
        priority: int,
        throughput: int,
        webhooks: Sequence[str],
        owner: str | None = None,
    ) -> tuple[dict[str, Any], bool]:
        """Submit a run: its row, and whether it is new."""
        body: dict[str, Any] = {
            "kind": kind,
            "config": config,
            "priority": priority,
            "throughput": throughput,
        }
        if webhooks:
            body["webhooks"] = list(webhooks)
        if owner:
            body["owner"] = owner
        answer = self.request("POST", "/api/v1/runs", body)
        return answer["run"], bool(answer.get("created"))

    def run(self, run_id: int) -> dict[str, Any]:
        """The run's row, configuration and status."""
        found: dict[str, Any] = self.request("GET", f"/api/v1/runs/{run_id}")["run"]
        return found

    def action(self, run_id: int, what: str, body: Any = None) -> dict[str, Any]:
        """``stop``, ``resume`` or ``rerun`` a run: the run's (or the new run's) row."""
        found: dict[str, Any] = self.request("POST", f"/api/v1/runs/{run_id}/{what}", body or {})["run"]
        return found


def reason(e: urllib.error.HTTPError) -> str:
    """The one-line reason of an error answer."""
    try:
        return str(json.loads(e.read())["error"])
    except (ValueError, KeyError, TypeError, OSError, RecursionError):
        return f"HTTP {e.code} {e.reason}"


def follow(client: ServerClient, run_id: int) -> None:
    """Show the run's progress until it ends, then its status on stdout; Ctrl-C detaches (the run
    goes on). Exits 1 when the run failed."""
    printer = ProgressPrinter()
    waiting = threading.Event()
    lost_since: float | None = None
    # Ctrl-C detaches, as it stops a local run, even in a process started with SIGINT ignored (a
    # script's background job): Python raises KeyboardInterrupt only where SIGINT was left alone.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        while True:
            try:
                row = client.run(run_id)
            except Unreachable as e:  # a server restarting: its runs go on; wait for it, within bounds
                lost_since = lost_since if lost_since is not None else time.monotonic()
                if time.monotonic() - lost_since > LOST_SECONDS:
                    raise
                printer.show(f"{e}; trying again")
                waiting.wait(FOLLOW_INTERVAL)
                continue
            lost_since = None
            if row["state"] not in MOVING:
                break
            share = f"  share {row['share']:.0%}" if row.get("share") is not None else ""
            rate = f"  {row['games_per_second']:.1f} games/s" if row.get("games_per_second") else ""
            state = "waits for an approver" if row.get("approval") == "pending" else row["state"]
            printer.show(f"{state}: {row['line'].strip()}{share}{rate}")
            waiting.wait(FOLLOW_INTERVAL)
    except KeyboardInterrupt:
        printer.finish()
        say(
            f"arbiter: detached from run {run_id}, which goes on; follow it again with: "
            f"{watch_hint(client, run_id)}"
        )
        sys.exit(DETACHED_EXIT)
    finally:
        signal.signal(signal.SIGINT, previous)
    printer.finish()
    show(row.get("text") or row["line"])
    if row["state"] == "failed":
        say(f"arbiter: run {run_id} failed: {row.get('error') or 'see the server log'}")
        sys.exit(FAILED_EXIT)
    if row["state"] == "stopped":
        say(
            f"arbiter: run {run_id} was stopped; continue it with: "
            f"arbiter resume {run_id} --server {mask_url(client.url)}"
        )


def watch_hint(client: ServerClient, run_id: int) -> str:
    """``arbiter watch N`` with the server (when the environment does not name it)."""
    given = os.environ.get(SERVER_ENV, "").strip().rstrip("/")
    return f"arbiter watch {run_id}" + ("" if given == client.url else f" --server {mask_url(client.url)}")
