"""Webhook deliveries against a real HTTP server on a loopback port: retries until accepted,
Retry-After honoured within its cap, 4xx not retried, a dead URL logged once (masked) without
holding up deliveries to other URLs. Every wait is on an event with a timeout; the deliverer's
delays are made short through its constructor."""

from __future__ import annotations

import base64
import json
import logging
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from coordinator.notify.delivery import Deliverer
from coordinator.notify.message import RunEnd, message_for
from coordinator.notify.notifier import Notifier

#: The longest any test waits for something to happen.
WAIT = 15.0
#: The token part of every test webhook's path: never to appear in a log line.
TOKEN = "Sup3rSecretToken"


class Watched:
    """Items appended from any thread, and a bounded wait for a condition on them."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._cond = threading.Condition()

    def add(self, item: Any) -> None:
        with self._cond:
            self.items.append(item)
            self._cond.notify_all()

    def wait_for(self, predicate: Callable[[list[Any]], bool], what: str) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: predicate(self.items), timeout=WAIT):
                raise AssertionError(f"not within {WAIT} s: {what}; got {self.items}")


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Hooks:
    """A webhook receiver: each path answers its scripted statuses in turn (then the last one
    again); ``/hang...`` paths answer only once ``release`` is set."""

    base: str
    script: dict[str, list[tuple[int, dict[str, str]]]] = field(default_factory=dict)
    requests: Watched = field(default_factory=Watched)
    #: The ``/hang`` requests come in (answered or not).
    hanging: Watched = field(default_factory=Watched)
    release: threading.Event = field(default_factory=threading.Event)

    def url(self, path: str) -> str:
        return f"{self.base}{path}/{TOKEN}"

    def answered(self, path: str) -> list[Request]:
        return [r for r in self.requests.items if r.path == f"{path}/{TOKEN}"]


def serve(hooks: Hooks) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            path = self.path.removesuffix(f"/{TOKEN}")
            if path.startswith("/hang"):
                hooks.hanging.add(path)
                hooks.release.wait(WAIT)
            hooks.requests.add(Request(self.path, dict(self.headers), body))
            steps = hooks.script.get(path, [(204, {})])
            status, headers = steps.pop(0) if len(steps) > 1 else steps[0]
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def hooks(monkeypatch: pytest.MonkeyPatch) -> Iterator[Hooks]:
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    hooks = Hooks(base="")
    server = ThreadingHTTPServer(("127.0.0.1", 0), serve(hooks))
    server.daemon_threads = True
    hooks.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield hooks
    hooks.release.set()
    server.shutdown()
    server.server_close()
    thread.join(WAIT)


@pytest.fixture
def failures() -> Iterator[Watched]:
    """The warnings of the ``arbiter.notify`` logger, as their messages."""
    watched = Watched()

    class Handler(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                watched.add(record.getMessage())

    handler = Handler()
    logger = logging.getLogger("arbiter.notify")
    logger.addHandler(handler)
    yield watched
    logger.removeHandler(handler)


def closed_port_url() -> str:
    """A loopback URL on a port that nothing listens on (connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/api/webhooks/1/{TOKEN}"


END = RunEnd(
    run_id=7,
    kind="sprt",
    noun="SPRT",
    state="finished",
    headline="H1 accepted: Elo +12.3 ± 4.1 after 5,120 games",
    game="congo",
    owner="alice",
    page_url="https://arbiter.example/runs/7",
)


def test_a_webhook_that_fails_twice_gets_the_body_once_accepted(hooks: Hooks, failures: Watched) -> None:
    hooks.script["/flaky"] = [(500, {}), (503, {}), (200, {})]
    deliverer = Deliverer(attempts=4, base_delay=0.01, max_delay=0.05)
    Notifier([hooks.url("/flaky")], deliverer).run_ended(END, [hooks.url("/flaky")])
    hooks.requests.wait_for(lambda r: len(r) == 3, "three attempts at /flaky")
    assert deliverer.close(WAIT)
    requests = hooks.answered("/flaky")
    assert len(requests) == 3  # once for the operator's and the run's URL alike
    assert all(json.loads(r.body) == message_for(END) for r in requests)
    assert requests[-1].headers["Content-Type"].startswith("application/json")
    assert failures.items == []


def test_retry_after_is_honoured_up_to_the_cap(hooks: Hooks, failures: Watched) -> None:
    hooks.script["/busy"] = [(429, {"Retry-After": "3600"}), (204, {})]
    deliverer = Deliverer(attempts=2, base_delay=0.01, max_delay=0.05)
    deliverer.send(hooks.url("/busy"), {"text": "hi"})
    hooks.requests.wait_for(lambda r: len(r) == 2, "the attempt after a 429 asking for an hour")
    assert deliverer.close(WAIT)
    assert failures.items == []


def test_a_client_error_is_not_retried_and_is_logged_once_masked(hooks: Hooks, failures: Watched) -> None:
    hooks.script["/gone"] = [(404, {})]
    deliverer = Deliverer(attempts=5, base_delay=0.01, max_delay=0.05)
    deliverer.send(hooks.url("/gone"), message_for(END))
    failures.wait_for(lambda f: len(f) == 1, "the 404 logged")
    assert deliverer.close(WAIT)
    assert len(hooks.answered("/gone")) == 1
    (line,) = failures.items
    assert line == f"webhook {hooks.base}/… not delivered (1 attempt): HTTP 404 Not Found"


def test_a_dead_or_hanging_url_holds_up_no_other_delivery(hooks: Hooks, failures: Watched) -> None:
    dead = closed_port_url()
    deliverer = Deliverer(attempts=3, base_delay=0.01, max_delay=0.05, timeout=WAIT * 2)
    deliverer.send(hooks.url("/hang"), {"text": "first"})
    hooks.hanging.wait_for(lambda h: len(h) == 1, "the hanging attempt under way")
    deliverer.send(dead, {"text": "second"})
    deliverer.send(hooks.url("/ok"), {"text": "third"})

    hooks.requests.wait_for(lambda r: any(x.path == f"/ok/{TOKEN}" for x in r), "the good URL's body")
    assert json.loads(hooks.answered("/ok")[0].body) == {"text": "third"}
    assert not hooks.release.is_set() and hooks.answered("/hang") == []  # still held

    failures.wait_for(lambda f: len(f) == 1, "the dead URL's failure logged")
    port = dead.split("/")[2]
    (line,) = failures.items
    assert line.startswith(f"webhook http://{port}/… not delivered (3 attempts): ")
    assert "refused" in line.lower()
    assert TOKEN not in line

    hooks.release.set()
    assert deliverer.close(WAIT)
    assert len(hooks.answered("/hang")) == 1
    assert len(failures.items) == 1


def test_close_gives_up_after_its_timeout_and_logs_what_it_dropped(hooks: Hooks, failures: Watched) -> None:
    hooks.script["/down"] = [(500, {})]
    deliverer = Deliverer(attempts=3, base_delay=WAIT * 4, max_delay=WAIT * 4)
    deliverer.send(hooks.url("/down"), {"text": "x"})
    hooks.requests.wait_for(lambda r: len(r) == 1, "the first attempt")
    assert not deliverer.close(0.05)
    failures.wait_for(lambda f: len(f) == 1, "the dropped delivery logged")
    assert failures.items[0] == (
        f"webhook {hooks.base}/… not delivered (1 attempt): notifications closed before its next attempt"
    )
    deliverer.send(hooks.url("/down"), {"text": "late"})
    failures.wait_for(lambda f: len(f) == 2, "the send after close logged")
    assert failures.items[1] == f"webhook {hooks.base}/… not sent: notifications are closed"
    assert len(hooks.answered("/down")) == 1


def test_userinfo_is_sent_as_basic_authentication(hooks: Hooks, failures: Watched) -> None:
    deliverer = Deliverer(attempts=1)
    deliverer.send(hooks.url("/auth").replace("://", "://bot:p%40ss@"), {"text": "hi"})
    hooks.requests.wait_for(lambda r: len(r) == 1, "the authenticated request")
    assert deliverer.close(WAIT)
    (request,) = hooks.answered("/auth")
    assert request.headers["Authorization"] == "Basic " + base64.b64encode(b"bot:p@ss").decode()
    assert failures.items == []


def test_what_cannot_be_sent_is_logged_not_raised(failures: Watched) -> None:
    deliverer = Deliverer(attempts=1)
    deliverer.send(f"ftp://files.example/{TOKEN}", {"text": "hi"})
    deliverer.send(f"http://127.0.0.1:9/{TOKEN}", {"value": float("nan")})
    deliverer.send(f"http://127.0.0.1:9/{TOKEN}", {"value": object()})
    assert deliverer.close(WAIT)
    assert len(failures.items) == 3
    assert failures.items[0] == (
        "webhook 'ftp://files.example/…': scheme 'ftp'; expected an http:// or https:// URL with a host "
        "and no whitespace; not sent"
    )
    for line in failures.items[1:]:  # (the reasons are json's own words, which vary by version)
        assert line.startswith("webhook http://127.0.0.1:9/… not sent: its body is not JSON (")
