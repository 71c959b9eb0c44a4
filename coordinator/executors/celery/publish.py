"""Batch tasks published through Celery's own message API, without ``send_task``'s per-call layers.

``Celery.send_task`` costs 1.5 to 3 ms a batch on a loaded coordinator: it looks the task up,
routes it, acquires a producer from the pool (and revives it), declares the queue again (binding a
copy of it to the channel), makes an ``AsyncResult``, and has kombu encode the 30 KB payload text
with the standard library's JSON. A :class:`TaskPublisher` does the same publication with the
parts Celery exposes for it: the message is built by ``app.amqp.create_task_message`` (the
standard protocol-2 headers and body a worker reads), its body encoded once with orjson and handed
to kombu as already serialized JSON (``content_type``), and sent by
``app.amqp.send_task_message`` through one producer kept for the publisher's life; each queue is
declared with its first message only. Workers receive the same standard JSON task message.
"""

from __future__ import annotations

from typing import Any

import orjson
from celery import Celery
from kombu.entity import Queue

#: What the message body is, for kombu (already serialized) and for the worker (which decodes it).
CONTENT_TYPE = "application/json"
CONTENT_ENCODING = "utf-8"


class TaskPublisher:
    """Publishes tasks of one Celery app through one producer it keeps until :meth:`close`."""

    def __init__(self, app: Celery) -> None:
        """Publish with ``app``'s broker connection pool and settings."""
        self.app = app
        self._producer: Any = None
        self._declared: set[str] = set()

    def publish(
        self,
        name: str,
        args: list[Any],
        *,
        task_id: str,
        queue: str | Queue,
        priority: int,
        expires: float,
        retry_policy: dict[str, Any],
        argsrepr: str,
    ) -> None:
        """Send task ``name`` with ``args`` as ``task_id`` to ``queue``, at the broker's
        ``priority``, expiring ``expires`` seconds from now, retrying a failed publication as
        ``retry_policy`` says; a connection error is raised once the retries are spent.
        ``queue`` is a queue's name or, for one bound otherwise (a worker's direct queue), the queue
        itself. ``argsrepr`` is what workers log of the arguments."""
        amqp = self.app.amqp
        message = amqp.create_task_message(
            task_id,
            name,
            args,
            {},
            expires=expires,
            reply_to=self.app.thread_oid,
            argsrepr=argsrepr,
            kwargsrepr="{}",
        )
        if self._producer is None:
            self._producer = self.app.producer_pool.acquire(block=True)
        queue_name = queue if isinstance(queue, str) else queue.name
        first = queue_name not in self._declared
        amqp.send_task_message(
            self._producer,
            name,
            message._replace(body=orjson.dumps(message.body)),
            queue=queue,
            declare=None if first else [],  # None: the queue's own declaration
            retry=True,
            retry_policy=retry_policy,
            content_type=CONTENT_TYPE,
            content_encoding=CONTENT_ENCODING,
            priority=priority,
            expiration=expires,
        )
        self._declared.add(queue_name)

    def close(self) -> None:
        """Give the producer back to the app's pool (idempotent)."""
        producer, self._producer = self._producer, None
        if producer is not None:
            producer.release()
