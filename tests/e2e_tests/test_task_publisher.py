"""TaskPublisher against a real redis-server: the message it puts on a queue is the one
``Celery.send_task`` puts there (what a worker reads: headers, properties, the JSON body), and
each queue is declared with its first message only."""

from __future__ import annotations

import base64
import json
from typing import Any

from celery.utils.nodenames import worker_direct
from celery_testkit import RedisDatabase

from coordinator.executors.celery.executor import PUBLISH_RETRY
from coordinator.executors.celery.publish import TaskPublisher
from wire.celeryconfig import create_app
from wire.protocol import TASK_NAME

#: A payload's text with what JSON must escape and a character beyond ASCII.
ARGS = [{"payload": '{"openings": ["a\\"b"], "name": "é"}', "signature": None}]
#: Header and property values that differ from one message to the next.
PER_MESSAGE = ("expires", "delivery_tag", "delivery_info")


def waiting(redis_server: RedisDatabase, queue: str) -> list[dict[str, Any]]:
    """The messages waiting in ``queue`` (priority level 9), their bodies decoded."""
    messages = [json.loads(raw) for raw in redis_server.client().lrange(f"{queue}:9", 0, -1)]
    for message in messages:
        assert message["content-type"] == "application/json"
        message["body"] = json.loads(base64.b64decode(message["body"]).decode(message["content-encoding"]))
    return messages


def comparable(message: dict[str, Any]) -> dict[str, Any]:
    """What a worker reads of a message, without the values that differ per message."""
    headers = {k: v for k, v in message["headers"].items() if k not in PER_MESSAGE}
    properties = {k: v for k, v in message["properties"].items() if k not in PER_MESSAGE}
    properties.pop("argsrepr", None), properties.pop("kwargsrepr", None)  # send_task leaks them here
    headers["ignore_result"] = bool(headers["ignore_result"])  # send_task's None, the protocol's False
    return {"body": message["body"], "headers": headers, "properties": properties}


def test_a_published_task_is_the_message_send_task_makes(redis_server: RedisDatabase) -> None:
    app = create_app(redis_server.url, redis_server.url)
    publisher = TaskPublisher(app)
    try:
        options: dict[str, Any] = {"task_id": "t1", "priority": 9, "expires": 600.0, "argsrepr": "(run 1)"}
        app.send_task(TASK_NAME, args=ARGS, queue="sent", retry=True, retry_policy=PUBLISH_RETRY, **options)
        publisher.publish(TASK_NAME, ARGS, queue="published", retry_policy=PUBLISH_RETRY, **options)
        client = redis_server.client()
        assert client.exists("_kombu.binding.published")  # declared with its first message
        client.delete("_kombu.binding.published")
        publisher.publish(TASK_NAME, ARGS, queue="published", retry_policy=PUBLISH_RETRY, **options)
        assert not client.exists("_kombu.binding.published")  # and not again
        direct = worker_direct("w1@host")
        publisher.publish(TASK_NAME, ARGS, queue=direct, retry_policy=PUBLISH_RETRY, **options)
        (sent,) = waiting(redis_server, "sent")
        first, second = waiting(redis_server, "published")
        assert comparable(first) == comparable(second) == comparable(sent)
        assert first["body"][0] == ARGS and first["headers"]["task"] == TASK_NAME
        assert [comparable(m) for m in waiting(redis_server, direct.name)] == [comparable(sent)]
    finally:
        publisher.close()
        app.close()
