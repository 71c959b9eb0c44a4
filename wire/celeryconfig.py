"""Celery settings of arbiter, read from the environment.

Workers and coordinators build their Celery app with :func:`create_app` from :func:`settings`, so
both sides agree on the serializer, the queues and the delivery guarantees. Tasks and results are
JSON only (never pickle: a worker must not run code that arrives over the network). A task is
acknowledged only after it ran (``task_acks_late``), a worker reserves one task per process
(prefetch 1), and a task whose worker process dies goes back to the queue
(``task_reject_on_worker_lost``). Credentials come only from the URLs (``redis://:PASSWORD@host:6379/0``,
``rediss://`` for TLS), never from files here.

Environment:

``ARBITER_BROKER``
    Broker URL (default ``redis://localhost:6379/0``).
``ARBITER_RESULT_BACKEND``
    Result backend URL (default: the broker URL).
``ARBITER_QUEUES``
    Comma-separated queue names a worker takes batches from; coordinators send to the first one
    (default ``arbiter``). Each name is used per engine version (``arbiter.v0.1.0-1a2b3c4d``, see
    :func:`versioned_queue`): a worker takes only the batches of runs that its own engine can
    play, so a machine left on an old build never takes, slows or fails a run.

Priorities: a batch carries its run's ``--priority`` (0 to 9, higher first; see
:func:`message_priority`); workers take the waiting batches of higher priority first, and batches
of equal priority in the order they were sent, so runs of equal priority share the fleet.
``ARBITER_BATCH_SECONDS``
    The longest one batch may take (default 1800): a task's hard time limit; its soft limit is 90%
    of it and the broker's visibility timeout (after which an unacknowledged task is delivered
    again) is that plus :data:`VISIBILITY_MARGIN`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from celery import Celery

BROKER_ENV = "ARBITER_BROKER"
RESULT_BACKEND_ENV = "ARBITER_RESULT_BACKEND"
QUEUES_ENV = "ARBITER_QUEUES"
BATCH_SECONDS_ENV = "ARBITER_BATCH_SECONDS"
#: Every variable this module reads (the deploy files may only use these and a few others).
ENVIRONMENT = (BROKER_ENV, RESULT_BACKEND_ENV, QUEUES_ENV, BATCH_SECONDS_ENV)

DEFAULT_BROKER = "redis://localhost:6379/0"
#: The URL schemes of a broker: arbiter's fleet is Redis (heartbeats, results and queues).
REDIS_SCHEMES = ("redis", "rediss", "unix")
#: What a broker URL must be, as messages say it.
REDIS_URL = "a Redis URL (redis://, rediss:// or unix://)"
DEFAULT_QUEUE = "arbiter"
DEFAULT_BATCH_SECONDS = 1800
#: Seconds the broker waits beyond the hard time limit before it redelivers an unacknowledged task.
VISIBILITY_MARGIN = 300
#: Seconds a result nobody collected stays in the result backend.
RESULT_EXPIRES = 600
#: Seconds to wait for a TCP connection to the broker or the result backend.
CONNECT_TIMEOUT = 3.0

_QUEUE_NAME = re.compile(r"^[A-Za-z0-9_.:-]+$")


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    """``environ``, or the process environment."""
    return os.environ if environ is None else environ


def is_redis_url(url: str) -> bool:
    """Whether ``url`` names a Redis server by its scheme (see :data:`REDIS_SCHEMES`)."""
    scheme, sep, _ = url.partition("://")
    return bool(sep) and scheme.lower() in REDIS_SCHEMES


def broker_url(environ: Mapping[str, str] | None = None) -> str:
    """``$ARBITER_BROKER``, or ``redis://localhost:6379/0``."""
    return _environ(environ).get(BROKER_ENV, "").strip() or DEFAULT_BROKER


def queue_names(value: str | None = None, environ: Mapping[str, str] | None = None) -> list[str]:
    """Queue names from ``value`` (comma-separated) or ``$ARBITER_QUEUES``; ValueError on a bad name."""
    text = value if value is not None else _environ(environ).get(QUEUES_ENV, "")
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if not _QUEUE_NAME.match(name):
            raise ValueError(f"queues: {name!r} is not a queue name (letters, digits, '_.:-')")
    return names or [DEFAULT_QUEUE]


def versioned_queue(queue: str, engine_version: str) -> str:
    """The queue ``queue`` stands for under ``engine_version``: only workers of that version
    consume it."""
    return f"{queue}.v{re.sub(r'[^A-Za-z0-9_.:-]', '-', engine_version)}"


#: Run priorities, as ``--priority`` takes them: higher is taken first.
PRIORITIES = range(10)
DEFAULT_PRIORITY = 0


def message_priority(priority: int) -> int:
    """The broker's priority of a run's batches: Redis lists serve 0 first, so it is reversed."""
    if priority not in PRIORITIES:
        raise ValueError(f"priority: expected a whole number from 0 to 9, got {priority}")
    return max(PRIORITIES) - priority


def batch_seconds(environ: Mapping[str, str] | None = None) -> int:
    """``$ARBITER_BATCH_SECONDS`` (a positive whole number of seconds), or 1800."""
    text = _environ(environ).get(BATCH_SECONDS_ENV, "").strip()
    if not text:
        return DEFAULT_BATCH_SECONDS
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{BATCH_SECONDS_ENV}: expected a positive number of seconds, got {text!r}")
    return value


def settings(
    broker: str | None = None,
    result_backend: str | None = None,
    environ: Mapping[str, str] | None = None,
    engine_version: str | None = None,
) -> dict[str, Any]:
    """The Celery configuration: ``broker`` / ``result_backend`` override the environment; the
    queues are those of ``engine_version`` (default: this machine's engine)."""
    env = _environ(environ)
    broker = broker or broker_url(env)
    backend = result_backend or env.get(RESULT_BACKEND_ENV, "").strip() or broker
    limit = batch_seconds(env)
    if engine_version is None:
        import engine

        engine_version = engine.ENGINE_VERSION
    queues = [versioned_queue(name, engine_version) for name in queue_names(environ=env)]
    from kombu.entity import Queue  # only where the settings are built: the CLI reads the names above

    return {
        "broker_url": broker,
        "result_backend": backend,
        # JSON only, both ways.
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        "result_accept_content": ["json"],
        "event_serializer": "json",
        # Queues: workers consume all of them; coordinators send to the first.
        "task_queues": [Queue(name, routing_key=name) for name in queues],  # type: ignore[no-untyped-call]
        "task_default_queue": queues[0],
        # Delivery: acknowledged after the run, one task per process, requeued if the process dies.
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_track_started": True,
        "task_time_limit": limit,
        "task_soft_time_limit": max(1, limit * 9 // 10),
        # Priorities: one Redis list per level, the lowest level served first (see PRIORITIES).
        "broker_transport_options": {
            "visibility_timeout": limit + VISIBILITY_MARGIN,
            "priority_steps": list(PRIORITIES),
            "sep": ":",
            "queue_order_strategy": "priority",
        },
        "task_default_priority": message_priority(DEFAULT_PRIORITY),
        # Each worker also takes batches sent to it alone (a spot check of another worker's).
        "worker_direct": True,
        # Results the coordinator collects are deleted at once (it reads each within a second of its
        # writing); the others, of a coordinator that went away, expire soon after.
        "result_expires": RESULT_EXPIRES,
        # The meta names the worker, so that refusals and spot checks can say who sent what.
        "result_extended": True,
        # Connections: short connect timeouts; workers keep retrying through broker restarts.
        "broker_connection_timeout": CONNECT_TIMEOUT,
        "broker_connection_retry_on_startup": True,
        "broker_connection_max_retries": None,
        "redis_socket_connect_timeout": CONNECT_TIMEOUT,
        "redis_backend_health_check_interval": 30,
        "result_backend_always_retry": True,
        "result_backend_max_retries": 30,
        # A batch that is playing when the broker connection drops finishes and stores its result.
        "worker_cancel_long_running_tasks_on_connection_loss": False,
        "enable_utc": True,
        "timezone": "UTC",
    }


def create_app(broker: str | None = None, result_backend: str | None = None) -> Celery:
    """A Celery app with arbiter's settings; ``broker`` / ``result_backend`` override the
    environment. A worker's app registers the task of ``worker.tasks`` (named, imported only where
    a worker starts); a coordinator's sends batches by task name."""
    from celery import Celery  # only where an app is made: the CLI reads the names above

    app = Celery("arbiter", include=["worker.tasks"], set_as_current=False)
    app.conf.update(settings(broker=broker, result_backend=result_backend))
    return app
