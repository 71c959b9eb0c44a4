"""Webhook deliveries in the background: JSON POSTs, retried with backoff, never in anyone's way.

:meth:`Deliverer.send` only queues and returns. A dispatcher thread starts each attempt, when it is
due, on a short-lived thread of its own, with at most ``concurrency`` attempts at once and at most
one per URL: a URL that hangs or refuses holds one slot for one attempt at a time (each bounded by
``timeout``), and deliveries to other URLs go on beside it. Retries wait in the queue, not on a
thread (``coordinator.notify.backoff`` says which failures are retried and how long each waits).
A delivery that fails for good is logged once, on the ``arbiter.notify`` logger, with its URL
masked. A URL's userinfo is sent as HTTP basic authentication. Redirects are not followed (a
webhook that moved is a failure to fix, not a body to resend).
"""

from __future__ import annotations

import base64
import http.client
import itertools
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import Message
from typing import IO, Any
from urllib.parse import unquote, urlsplit, urlunsplit

from coordinator.escape import terminal
from coordinator.notify.backoff import next_delay, retry_after, retryable
from coordinator.notify.urls import HIDDEN, check_webhook, mask_webhook, webhook_secrets

log = logging.getLogger("arbiter.notify")

#: The most bytes of an answer read (and ignored): enough to end the exchange cleanly.
MAX_ANSWER = 64 * 1024


@dataclass
class _Delivery:
    """One body for one URL, with its failed attempts so far and when it is next due."""

    url: str
    data: bytes
    due: float
    failures: int = 0


@dataclass(frozen=True)
class _Outcome:
    """What one attempt got: success, or the HTTP status (None: no answer) and a reason."""

    delivered: bool
    status: int | None = None
    reason: str = ""
    #: Seconds the receiver asked to wait (Retry-After), if it did.
    asked: float | None = None
    #: False for an error that no retry can mend (a bug, not the network).
    retry: bool = True


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects end the attempt (as an HTTP error with the 3xx status)."""

    def redirect_request(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str, headers: Message, newurl: str
    ) -> urllib.request.Request | None:
        return None


class Deliverer:
    """Sends JSON POSTs to webhooks in the background, retrying failures (see the module)."""

    def __init__(
        self,
        attempts: int = 6,
        base_delay: float = 2.0,
        max_delay: float = 60.0,
        timeout: float = 10.0,
        concurrency: int = 4,
    ) -> None:
        """``attempts`` per delivery; waits double from ``base_delay`` up to ``max_delay`` seconds
        (also the most a Retry-After is honoured); ``timeout`` seconds per attempt's connection and
        each read; at most ``concurrency`` attempts at once."""
        if attempts < 1 or concurrency < 1 or base_delay < 0 or max_delay < 0 or timeout <= 0:
            raise ValueError(
                "Deliverer: expected attempts >= 1, concurrency >= 1, delays >= 0 and timeout > 0"
            )
        self._attempts = attempts
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._timeout = timeout
        self._concurrency = concurrency
        self._opener = urllib.request.build_opener(_NoRedirect)
        self._cond = threading.Condition(threading.RLock())  # _finish runs under it too
        self._pending: list[_Delivery] = []
        self._busy: set[str] = set()
        self._closed = False
        self._stopped = False
        self._names = itertools.count(1)
        self._dispatcher = threading.Thread(target=self._dispatch, name="arbiter-notify", daemon=True)
        self._dispatcher.start()

    def send(self, url: str, body: Mapping[str, Any]) -> None:
        """Queue a POST of ``body`` (as JSON) to ``url`` and return at once; never raises. A URL or
        body that cannot be sent is logged, as is a send after :meth:`close`."""
        try:
            check_webhook(url)
        except ValueError as error:
            log.warning("%s; not sent", error)
            return
        try:
            data = json.dumps(body, ensure_ascii=False, allow_nan=False).encode()
        except (TypeError, ValueError) as error:
            log.warning("webhook %s not sent: its body is not JSON (%s)", mask_webhook(url), terminal(error))
            return
        with self._cond:
            if self._closed:
                log.warning("webhook %s not sent: notifications are closed", mask_webhook(url))
                return
            self._pending.append(_Delivery(url, data, due=time.monotonic()))
            self._cond.notify_all()

    def close(self, timeout: float) -> bool:
        """Take no more sends, and wait at most ``timeout`` seconds for the queued deliveries to
        end (retries included). Then give up: what is still queued is dropped and logged (an
        attempt in flight ends on its own, logged if it fails). True if everything ended."""
        deadline = time.monotonic() + timeout
        with self._cond:
            self._closed = True
            while self._pending or self._busy:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
            dropped, self._pending = self._pending, []
            drained = not dropped and not self._busy
            self._stopped = True
            self._cond.notify_all()
        for delivery in dropped:
            when = "its next attempt" if delivery.failures else "it was sent"
            self._log_failure(delivery, f"notifications closed before {when}")
        return drained

    def _dispatch(self) -> None:
        """Start each due delivery's attempt, within the limits (see the module)."""
        with self._cond:
            while not self._stopped:
                now = time.monotonic()
                ready = self._ready(now)
                if ready is None:
                    self._cond.wait(self._idle(now))
                    continue
                self._pending.remove(ready)
                self._busy.add(ready.url)
                name = f"arbiter-notify-{next(self._names)}"
                try:
                    threading.Thread(target=self._attempt, args=(ready,), name=name, daemon=True).start()
                except RuntimeError as error:  # no thread to be had: a failed attempt, retried later
                    self._finish(ready, _Outcome(False, reason=f"no thread for the attempt ({error})"))

    def _ready(self, now: float) -> _Delivery | None:
        """The delivery to start now: the earliest due of a URL with no attempt in flight."""
        if len(self._busy) >= self._concurrency:
            return None
        due = [d for d in self._pending if d.due <= now and d.url not in self._busy]
        return min(due, key=lambda d: d.due, default=None)

    def _idle(self, now: float) -> float | None:
        """How long the dispatcher may sleep: until the next delivery it could start is due
        (None: until something changes)."""
        if len(self._busy) >= self._concurrency:
            return None
        waiting = [d.due for d in self._pending if d.url not in self._busy]
        return max(0.0, min(waiting) - now) if waiting else None

    def _attempt(self, delivery: _Delivery) -> None:
        """One attempt, on its own thread."""
        outcome = _Outcome(False, reason="the attempt ended unexpectedly", retry=False)
        try:
            outcome = self._post(delivery)
        finally:
            self._finish(delivery, outcome)

    def _finish(self, delivery: _Delivery, outcome: _Outcome) -> None:
        """Free the delivery's URL; then the delivery is done, queued again or failed (logged)."""
        with self._cond:
            self._busy.discard(delivery.url)
            again = False
            if not outcome.delivered:
                delivery.failures += 1
                again = (
                    outcome.retry
                    and retryable(outcome.status)
                    and delivery.failures < self._attempts
                    and not self._stopped
                )
            if again:
                wait = next_delay(delivery.failures, self._base_delay, self._max_delay, outcome.asked)
                delivery.due = time.monotonic() + wait
                self._pending.append(delivery)
            self._cond.notify_all()
        if again:
            log.debug(
                "webhook %s: attempt %d failed (%s), retrying",
                mask_webhook(delivery.url),
                delivery.failures,
                outcome.reason,
            )
        elif not outcome.delivered:
            self._log_failure(delivery, outcome.reason)

    def _post(self, delivery: _Delivery) -> _Outcome:
        """POST the delivery's body once."""
        url, headers = _without_userinfo(delivery.url)
        headers |= {"Content-Type": "application/json; charset=utf-8", "User-Agent": "arbiter"}
        request = urllib.request.Request(url, data=delivery.data, method="POST", headers=headers)
        try:
            with self._opener.open(request, timeout=self._timeout) as response:
                response.read(MAX_ANSWER)
            return _Outcome(True)
        except urllib.error.HTTPError as error:
            with error:
                asked = retry_after(error.headers.get("Retry-After"), datetime.now(UTC))
                reason = f"HTTP {error.code} {error.reason}"
            return _Outcome(False, error.code, _scrubbed(reason, delivery.url), asked)
        except (OSError, http.client.HTTPException) as error:  # refused, reset, timed out, DNS
            return _Outcome(False, None, _scrubbed(_reason(error), delivery.url))
        except Exception as error:  # never lose the thread's slot to a surprise; never retry one
            return _Outcome(False, None, _scrubbed(_reason(error), delivery.url), retry=False)

    def _log_failure(self, delivery: _Delivery, reason: str) -> None:
        tries = f"{delivery.failures} attempt{'s' if delivery.failures != 1 else ''}"
        log.warning("webhook %s not delivered (%s): %s", mask_webhook(delivery.url), tries, reason)


def _without_userinfo(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its userinfo, and the headers that send it instead (HTTP basic
    authentication, which urllib does not take from the URL itself)."""
    parts = urlsplit(url)
    if parts.username is None:
        return url, {}
    credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
    netloc = parts.netloc.rpartition("@")[2]
    bare = urlunsplit(parts._replace(netloc=netloc))
    return bare, {"Authorization": "Basic " + base64.b64encode(credentials).decode("ascii")}


def _reason(error: BaseException) -> str:
    """One line saying why an attempt got no answer."""
    cause = getattr(error, "reason", None) or error
    return terminal(cause) or type(error).__name__


def _scrubbed(text: str, url: str) -> str:
    """``text`` (an error's message) with the secret parts of ``url`` hidden."""
    for secret in webhook_secrets(url):
        text = text.replace(secret, HIDDEN)
    return terminal(text)
