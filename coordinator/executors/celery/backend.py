"""The Redis result backend as the Celery executor reads it: polled, never subscribed.

Results are read with one ``MGET`` over the keys of every task in flight, and each value is
decoded on its own, so that one undecodable or malicious value (a FAILURE naming a class that is
not an exception, bad JSON) becomes the refusal of that one batch instead of an exception in the
coordinator.
"""

from __future__ import annotations

from typing import Any

import orjson
from celery.backends.base import Backend
from celery.backends.redis import RedisBackend

from coordinator.escape import terminal

#: The status of a stored value that could not be decoded.
UNDECODABLE = "UNDECODABLE"
#: Longest text kept of a worker's error message or name.
MAX_TEXT = 300
#: The largest stored answer fetched and decoded: a batch of the largest size (1,000 pairs) at the
#: default ply limit takes about 6 MB (timed games, with per-move budgets and times, about 12 MB).
MAX_META_BYTES = 32_000_000
#: The most stored answers one poll fetches (bytes): what a poll holds in memory at most, however
#: many answers are waiting and whoever wrote them (the others wait for the next polls).
MAX_POLL_BYTES = 64_000_000


class PolledRedisBackend(RedisBackend):  # type: ignore[misc]  # celery ships no type hints
    """Celery's Redis result backend without the pub/sub subscription it makes for each task sent.

    The executor polls every in-flight result with one ``MGET`` instead, so no subscription (and no
    unread message) piles up over a long run. Keys, encoding and expiry are the stock backend's.
    """

    def on_task_call(self, producer: Any, task_id: str) -> None:
        """Subscribe to nothing."""


def polled_backend_url(url: str) -> str:
    """``url`` selecting :class:`PolledRedisBackend` for a Redis URL (others are left as they are)."""
    scheme = url.partition("://")[0]
    if scheme in ("redis", "rediss"):
        return f"{PolledRedisBackend.__module__}:{PolledRedisBackend.__qualname__}+{url}"
    return url


def _one_line(value: Any) -> str:
    """``value`` as one line of at most :data:`MAX_TEXT` characters: a string or a number as it
    is, anything else by its type alone (a value from outside may nest deeper than ``str`` can
    recurse)."""
    shown = value if isinstance(value, str | int | float) else f"({type(value).__name__})"
    text = terminal(shown)  # no control character of anyone's reaches a terminal or a log
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def value_sizes(backend: Backend, keys: list[str]) -> list[int] | None:
    """The stored size of each key's value (0: none), asked in one round trip before anything is
    fetched; None for a backend that cannot say (then every value is fetched)."""
    client = getattr(backend, "client", None) if isinstance(backend, RedisBackend) else None
    if client is None:
        return None
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.strlen(key)
    return [int(n) for n in pipe.execute()]


def too_large(size: int) -> dict[str, Any]:
    """The meta of a value larger than any answer can be: refused without being fetched."""
    return {"status": UNDECODABLE, "result": f"result of {size:,} bytes, more than any answer"}


def decode_meta(backend: Backend, value: Any) -> dict[str, Any]:
    """A task's stored meta as plain JSON data; a value that is not a JSON object with a string
    status, or is larger than any answer can be (:data:`MAX_META_BYTES`: decoding it would cost the
    coordinator many times its size in memory), becomes ``{"status": UNDECODABLE, "result": why}``."""
    if isinstance(value, bytes | str) and len(value) > MAX_META_BYTES:
        return too_large(len(value))
    try:
        # The backend's serializer is JSON (wire/celeryconfig.py); orjson reads it several times
        # faster than the standard library, which matters at tens of thousands of games a second.
        meta = orjson.loads(value) if isinstance(value, bytes | str) else backend.decode(value)
    except Exception as e:  # any decoder error: the value came from outside
        return {"status": UNDECODABLE, "result": f"undecodable result ({type(e).__name__})"}
    if not isinstance(meta, dict) or not isinstance(meta.get("status"), str):
        return {"status": UNDECODABLE, "result": f"malformed result meta ({type(meta).__name__})"}
    return meta


def describe_failure(value: Any) -> str:
    """One line for a failed task's stored exception (a dict, never instantiated)."""
    if isinstance(value, dict):
        kind = _one_line(value.get("exc_type") or "error")
        message = value.get("exc_message")
        if isinstance(message, list | tuple):
            message = " ".join(_one_line(m) for m in message[:MAX_TEXT])
        text = _one_line(message or "")
        return f"{kind}: {text}" if text else kind
    return _one_line(value) or "task failed"


def reported_worker(meta: dict[str, Any] | None) -> str | None:
    """The worker a meta names (Celery's extended results), if it is a string."""
    worker = (meta or {}).get("worker")
    return _one_line(worker) if isinstance(worker, str) else None
