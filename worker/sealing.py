"""Sealing answers: a worker's answer for a task (its result, or the reason it refuses the batch)
as one JSON text with an HMAC of the task id and that text, so that a coordinator can tell its
workers' answers from anything else written into the result backend."""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping
from typing import Any

import orjson

from worker.fields import check_object, check_str

#: The longest reason of a worker's refusal kept.
MAX_REASON_TEXT = 300


#: The fleet's shared secret (any text; set on the coordinator and on every worker, never printed).
SECRET_ENV = "ARBITER_SECRET"
#: The longest sealed body (a batch of the largest size, with long games, fits many times over).
MAX_SEALED_BODY = 200_000_000


def fleet_secret(environ: Mapping[str, str] | None = None) -> bytes | None:
    """``$ARBITER_SECRET`` as the key that seals results, or None when it is not set."""
    text = (os.environ if environ is None else environ).get(SECRET_ENV, "")
    return text.encode() if text else None


def seal(body: Mapping[str, Any], task_id: str, secret: bytes | None) -> dict[str, Any]:
    """What a Celery worker returns for task ``task_id``: its answer (a result, or the reason it
    refused the batch) as one JSON text, and an HMAC-SHA256 of the task id and that text under the
    fleet's secret (None without one). Whoever can write to the result backend but has no secret
    cannot make a sealed answer, nor move one to another task."""
    text = orjson.dumps(body).decode()
    mac = hmac.new(secret, f"{task_id}\n{text}".encode(), hashlib.sha256).hexdigest() if secret else None
    return {"body": text, "mac": mac}


def unseal(value: Any, task_id: str, secret: bytes | None) -> Any:
    """The answer inside a sealed value of task ``task_id``; with a secret, ValueError unless it was
    sealed with that secret for that task. (Without one nothing can be proved: the body is taken.)"""
    d = check_object(value, "sealed result", ("body", "mac"))
    text = check_str(d["body"], "sealed result: body", max_length=MAX_SEALED_BODY)
    if secret is not None:
        expected = hmac.new(secret, f"{task_id}\n{text}".encode(), hashlib.sha256).hexdigest()
        if not isinstance(d["mac"], str) or not hmac.compare_digest(d["mac"], expected):
            raise ValueError(f"sealed result: not sealed with this fleet's {SECRET_ENV} for this task")
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ValueError("sealed result: the body is not JSON") from None


def refusal(reason: str, worker: str | None) -> dict[str, Any]:
    """A worker's answer for a batch it will not play (another engine version, a bad payload)."""
    return {"refused": " ".join(reason.split())[:MAX_REASON_TEXT], "worker": worker}


def refusal_reason(body: Any) -> str | None:
    """The reason of a refusal answer (see :func:`refusal`), or None for any other answer."""
    if isinstance(body, dict) and "refused" in body:
        return str(body["refused"])[:MAX_REASON_TEXT]
    return None
