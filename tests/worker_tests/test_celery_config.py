"""wire.celeryconfig / celery_app / tasks: settings from the environment, JSON only, the task body."""

from __future__ import annotations

from typing import Any

import pytest
from sprt_testkit import book_positions

import engine
from wire import celeryconfig
from wire.celeryconfig import create_app
from wire.connectivity import safe_url
from wire.protocol import TASK_NAME
from worker.games import run_batch

GAME = "congo"


def test_json_only_and_delivery_guarantees() -> None:
    conf = celeryconfig.settings(environ={})
    assert conf["task_serializer"] == conf["result_serializer"] == conf["event_serializer"] == "json"
    assert conf["accept_content"] == conf["result_accept_content"] == ["json"]
    assert "pickle" not in repr(conf)
    assert conf["task_acks_late"] is True
    assert conf["task_reject_on_worker_lost"] is True
    assert conf["worker_prefetch_multiplier"] == 1


def test_defaults_without_environment() -> None:
    conf = celeryconfig.settings(environ={})
    assert conf["broker_url"] == conf["result_backend"] == "redis://localhost:6379/0"
    queue = celeryconfig.versioned_queue("arbiter", engine.ENGINE_VERSION)
    assert conf["task_default_queue"] == queue and queue.startswith("arbiter.v")
    assert [q.name for q in conf["task_queues"]] == [queue]
    assert conf["task_time_limit"] == celeryconfig.DEFAULT_BATCH_SECONDS


def test_environment_and_overrides() -> None:
    env = {
        "ARBITER_BROKER": "rediss://:pw@redis.example:6380/1",
        "ARBITER_QUEUES": " fast, slow ,",
        "ARBITER_BATCH_SECONDS": "600",
    }
    conf = celeryconfig.settings(environ=env, engine_version="1.2.3+abc")
    assert conf["broker_url"] == conf["result_backend"] == env["ARBITER_BROKER"]
    assert [q.name for q in conf["task_queues"]] == ["fast.v1.2.3-abc", "slow.v1.2.3-abc"]
    assert conf["task_default_queue"] == "fast.v1.2.3-abc"
    assert conf["task_time_limit"] == 600 and conf["task_soft_time_limit"] == 540
    assert conf["broker_transport_options"]["visibility_timeout"] > conf["task_time_limit"]

    env["ARBITER_RESULT_BACKEND"] = "redis://results:6379/2"
    conf = celeryconfig.settings(environ=env)
    assert conf["result_backend"] == "redis://results:6379/2"
    conf = celeryconfig.settings(broker="redis://other:6379/0", result_backend="redis://r:1/0", environ=env)
    assert conf["broker_url"] == "redis://other:6379/0" and conf["result_backend"] == "redis://r:1/0"


@pytest.mark.parametrize("value", ["0", "-5", "soon", "1.5"])
def test_bad_batch_seconds_names_the_variable(value: str) -> None:
    with pytest.raises(ValueError, match="ARBITER_BATCH_SECONDS"):
        celeryconfig.settings(environ={"ARBITER_BATCH_SECONDS": value})


def test_bad_queue_name() -> None:
    with pytest.raises(ValueError, match="not a queue name"):
        celeryconfig.queue_names("ok,not ok")
    assert celeryconfig.queue_names("a,b") == ["a", "b"]
    assert celeryconfig.queue_names("", environ={}) == ["arbiter"]


def test_every_variable_read_is_listed() -> None:
    assert set(celeryconfig.ENVIRONMENT) == {
        "ARBITER_BROKER",
        "ARBITER_RESULT_BACKEND",
        "ARBITER_QUEUES",
        "ARBITER_BATCH_SECONDS",
    }


def test_app_has_the_task_and_the_settings() -> None:
    import worker.tasks  # noqa: F401 - registers the shared task on every app

    app = create_app(broker="redis://example:6379/3")
    assert app.conf.broker_url == "redis://example:6379/3"
    assert app.conf.accept_content == ["json"]
    assert app.tasks[TASK_NAME].run.__module__ == "worker.tasks"


def test_safe_url_masks_passwords() -> None:
    assert safe_url("redis://:secret@host:6379/0") == "redis://:***@host:6379/0"
    assert safe_url("rediss://user:secret@host:6380/0") == "rediss://user:***@host:6380/0"
    assert safe_url("pkg.mod:Backend+redis://:secret@h:1/0") == "redis://:***@h:1/0"
    assert safe_url("redis://h:1/0?password=secret") == "redis://h:1/0?password=***"


def payload(**overrides: Any) -> dict[str, Any]:
    """One pair at 200 nodes."""
    values = {
        "run_id": 1,
        "batch_index": 0,
        "game": GAME,
        "candidate": {"pawn": 140},
        "baseline": None,
        "openings": book_positions(GAME, 1, seed=2),
        "limits": {"nodes": 200},
        "adjudication": {"max_plies": 120},
        "seed": 5,
        "engine_version": engine.ENGINE_VERSION,
    }
    values.update(overrides)
    return values


def test_task_body_plays_the_batch() -> None:
    result = run_batch(payload())
    assert result["engine_version"] == engine.ENGINE_VERSION
    assert sum(result["pentanomial"]) == 1 and len(result["games"]) == 2


def test_task_body_refuses_bad_payloads() -> None:
    with pytest.raises(ValueError, match="expected a JSON object"):
        run_batch(["not", "a", "payload"])
    with pytest.raises(ValueError, match="missing seed"):
        run_batch({k: v for k, v in payload().items() if k != "seed"})
    with pytest.raises(ValueError, match=r"engine version '9\.9\.9' was requested"):
        run_batch(payload(engine_version="9.9.9"))


def test_queues_per_engine_version_and_priorities() -> None:
    assert celeryconfig.versioned_queue("arbiter", "0.1.0+1a2b") == "arbiter.v0.1.0-1a2b"
    names = {celeryconfig.versioned_queue("arbiter", v) for v in ("0.1.0+1a2b", "0.1.0+ffff")}
    assert len(names) == 2  # another build, another queue
    assert all(celeryconfig.queue_names(name) == [name] for name in names)  # valid queue names
    assert [celeryconfig.message_priority(p) for p in (0, 5, 9)] == [9, 4, 0]  # Redis serves 0 first
    for bad in (-1, 10):
        with pytest.raises(ValueError, match="priority"):
            celeryconfig.message_priority(bad)
    options = celeryconfig.settings(environ={})["broker_transport_options"]
    assert options["queue_order_strategy"] == "priority" and options["priority_steps"] == list(range(10))


def test_exposure_warnings_name_what_is_open() -> None:
    from wire.connectivity import exposure_warning

    assert exposure_warning("redis://127.0.0.1:6379/0", sealed=False) is None  # loopback
    open_broker = exposure_warning("redis://10.0.0.5:6379/0", sealed=True)
    assert open_broker is not None and "neither a password nor TLS" in open_broker
    unsealed = exposure_warning("redis://:pw@10.0.0.5:6379/0", sealed=False)
    assert unsealed is not None and "ARBITER_SECRET" in unsealed and "pw" not in unsealed
    assert exposure_warning("redis://:pw@10.0.0.5:6379/0", sealed=True) is None
    assert exposure_warning("rediss://10.0.0.5:6380/0", sealed=True) is None
