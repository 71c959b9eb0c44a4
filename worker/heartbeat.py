"""A worker's heartbeats published (their format, key and seal: ``wire.heartbeat``).

Publishing never disturbs a batch: it runs in a thread of the main process (the batches play in
the pool's processes), and a publish that fails is logged and tried again at the next interval.
"""

from __future__ import annotations

import logging
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from wire.heartbeat import (
    MAX_BATCHES,
    TTL_INTERVALS,
    Heartbeat,
    heartbeat_key,
    heartbeat_seconds,
    redis_client,
    sealed,
)
from wire.masking import mask_url, scrub
from wire.sealing import MAX_REASON_TEXT

#: A batch payload's run and batch, read from its first characters (its first fields).
BATCH_OF = re.compile(r'"run_id":\s*(\d+),\s*"batch_index":\s*(\d+)')


log = logging.getLogger(__name__)


def batches_of(arguments: Iterable[Any]) -> tuple[tuple[int, int], ...]:
    """The (run id, batch index) of each batch message in ``arguments`` (the first argument of
    each active task: ``{"payload": JSON text, ...}``), read from the payload's first fields;
    messages that name none are left out."""
    found = []
    for message in arguments:
        payload = message.get("payload") if isinstance(message, dict) else None
        match = BATCH_OF.search(payload[:200]) if isinstance(payload, str) else None
        if match:
            found.append((int(match[1]), int(match[2])))
    return tuple(sorted(found))[:MAX_BATCHES]


def programs_mode() -> tuple[str, bool]:
    """How this worker runs engine programs, and whether it refuses them (``arbiter worker``
    prints the same at start)."""
    from worker.referee.sandbox import this_machine, unsandboxed_allowed

    box = this_machine()
    if box.ready:
        return ("bubblewrap, seccomp" if box.seccomp else "bubblewrap, no seccomp"), False
    if unsandboxed_allowed():
        return "unsandboxed (allowed)", False
    return f"none: {box.reason}"[:MAX_REASON_TEXT], True


class Publisher:
    """The thread that publishes one worker's heartbeat every ``interval`` seconds to ``client``
    (a redis-py client of the broker): ``beat()`` makes each heartbeat, ``key`` seals it.
    :meth:`stop` ends the thread and deletes the key."""

    def __init__(
        self,
        client: Any,
        node: str,
        beat: Callable[[], Heartbeat],
        key: bytes | None,
        interval: float,
        url: str,
    ) -> None:
        self.client = client
        self.node = node
        self.beat = beat
        self.key = key
        self.interval = interval
        self.url = url
        self.failing = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arbiter-heartbeat", daemon=True)

    def start(self) -> None:
        """Start publishing."""
        self._thread.start()

    def publish(self) -> bool:
        """One heartbeat written; False (and a log line the first time of a series) when it could
        not be. Never raises."""
        try:
            beat = self.beat()
            self.client.set(
                heartbeat_key(self.node), sealed(beat, self.key), px=max(1, round(beat.ttl * 1000))
            )
        except Exception as e:  # redis-py, the socket layer or a bench that failed: all wait for the next
            if not self.failing:
                log.warning(
                    "heartbeat to %s failed (retried every %gs): %s",
                    mask_url(self.url),
                    self.interval,
                    scrub(str(e), self.url),
                )
            self.failing = True
            return False
        if self.failing:
            log.info("heartbeat to %s published again", mask_url(self.url))
        self.failing = False
        return True

    def _run(self) -> None:
        while not self._stop.is_set():
            self.publish()
            self._stop.wait(self.interval)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop publishing and delete the key (best effort: else it expires)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        try:
            self.client.delete(heartbeat_key(self.node))
        except Exception as e:
            log.info("heartbeat key not deleted (it expires): %s", e)


def this_host() -> str:
    """This machine's host name."""
    return socket.gethostname()[:300]


# --- the worker's side: started when Celery's consumer is ready, stopped at shutdown ---------------

_publisher: Publisher | None = None


def active_batches() -> tuple[tuple[int, int], ...]:
    """The batches this worker's pool plays now (Celery's record of its accepted tasks)."""
    from celery.worker.state import active_requests

    return batches_of(request.args[0] for request in list(active_requests) if request.args)


def start_publishing(consumer: Any, keys: Any) -> None:
    """Publish this worker's heartbeats (Celery's ``worker_ready``: ``consumer`` is the worker's
    consumer, ``keys`` its :class:`wire.sealing.WorkerKeys` or None). Never raises: a worker
    whose heartbeats cannot be published still plays."""
    global _publisher
    if _publisher is not None:
        return
    try:
        import engine
        from worker.speed import bench_nps

        node = str(consumer.hostname)
        cores = int(getattr(consumer.controller, "concurrency", None) or 1)
        url = str(consumer.app.conf.broker_url)
        interval = heartbeat_seconds()
        key = None
        if keys is not None:
            try:
                key = keys.key_for(node)
            except ValueError as e:
                log.warning("heartbeats unsealed: %s", e)
        started, host, beats = time.time(), this_host(), [0]

        def beat() -> Heartbeat:
            beats[0] += 1
            sandbox, refuses = programs_mode()
            return Heartbeat(
                name=node,
                cores=cores,
                nps=None if beats[0] == 1 else bench_nps(),  # the first one at once, unmeasured
                engine=engine.ENGINE_VERSION,
                host=host,
                started=started,
                sent=time.time(),
                ttl=interval * TTL_INTERVALS,
                batches=active_batches(),
                sandbox=sandbox,
                refuses_programs=refuses,
            )

        _publisher = Publisher(redis_client(url), node, beat, key, interval, url)
    except Exception as e:
        log.error("no heartbeats: %s", e)
        return
    _publisher.start()


def stop_publishing() -> None:
    """Stop this worker's heartbeats and delete its key (Celery's ``worker_shutdown``)."""
    global _publisher
    if _publisher is not None:
        _publisher.stop()
        _publisher = None
