"""The fleet's keys: payloads signed by the coordinator, answers sealed by each worker under a key
of its own, so that nobody without a key can change what is played or counted, and no worker can
answer in another's name.

- A coordinator holds the fleet's master secret (``$ARBITER_SECRET``). From it come the key that
  signs every payload it sends (Ed25519: workers verify with the public half and cannot sign
  themselves) and, for each worker, that worker's own key, ``HMAC(master, node name)``.
- A worker holds only its own credential (``$ARBITER_WORKER_KEY``, printed by ``arbiter
  worker-key NODE``): its node name, its key and the coordinator's public key. It plays a payload
  only when the coordinator's signature over the payload and the task id verifies, and seals its
  answer (result or refusal) with its key, binding the task id, its name and a digest of the
  payload it played. An insider can then sign only as itself.
- A single-owner fleet may instead give every worker the master secret itself (the simpler mode):
  each worker derives its own key from it and its name, the same way the coordinator does; any
  worker could then sign as any other.

Without any secret nothing is signed or sealed, and a name in an answer is only a claim.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

import engine
from wire.fields import check_object, check_str
from wire.secrecy import key_environment

#: The fleet's master secret (any text; on coordinators, and on the workers of a single-owner
#: fleet; never printed).
SECRET_ENV = "ARBITER_SECRET"
#: A worker's own credential (see :func:`FleetKeys.credential`).
WORKER_KEY_ENV = "ARBITER_WORKER_KEY"
#: The longest sealed body (a batch of the largest size, with long games, fits many times over).
MAX_SEALED_BODY = 200_000_000
#: The longest reason of a worker's refusal kept.
MAX_REASON_TEXT = 300
#: The prefix of a worker credential's text (no number in it: a credential's text must not read
#: as the key of a worker numbered so).
CREDENTIAL_PREFIX = "arbiter-worker-key:"
#: The prefix credentials printed by earlier versions have, still read.
OLD_CREDENTIAL_PREFIXES = ("arbiter-worker-1:",)
#: A node name a key can be made for: Celery's ``name@host``, nothing expanded later (matched
#: whole: ``$`` would let a final newline pass).
NODE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}@[A-Za-z0-9_.-]{1,150}")

_SIGNING_LABEL = b"arbiter payload signing key 1"
_WORKER_LABEL = b"arbiter worker key 1\n"


def digest(text: str) -> str:
    """The SHA-256 of a payload's JSON text, as an answer binds it."""
    return hashlib.sha256(text.encode()).hexdigest()


def _worker_key(master: bytes, node: str) -> bytes:
    return hmac.new(master, _WORKER_LABEL + node.encode(), hashlib.sha256).digest()


def _mac(key: bytes, task_id: str, worker: str, payload: str, body: str) -> str:
    message = "\n".join((task_id, worker, payload, body)).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def check_node_name(node: str) -> str:
    """``node`` if a key can be made for it; ValueError saying what a node name looks like."""
    if not NODE_NAME.fullmatch(node):
        raise ValueError(
            f"worker name {node!r}: expected a Celery node name like w1@host (letters, digits, '_.-', "
            "one '@', nothing to expand such as %h)"
        )
    return node


class FleetKeys:
    """What a coordinator holds: the master secret, and all that comes from it."""

    def __init__(self, master: bytes) -> None:
        self._master = master
        seed = hmac.new(master, _SIGNING_LABEL, hashlib.sha256).digest()
        self._signer = Ed25519PrivateKey.from_private_bytes(seed)
        self.public_key = self._signer.public_key().public_bytes_raw()

    def worker_key(self, node: str) -> bytes:
        """The key of worker ``node``."""
        return _worker_key(self._master, node)

    def sign(self, task_id: str, payload: str) -> str:
        """The coordinator's signature of ``payload`` (its JSON text) sent as task ``task_id``."""
        return self._signer.sign(f"{task_id}\n{payload}".encode()).hex()

    def credential(self, node: str) -> str:
        """What worker ``node`` needs and nothing more: its name, its key, and the coordinator's
        public key, as one line for ``$ARBITER_WORKER_KEY``."""
        check_node_name(node)
        data = {"node": node, "key": self.worker_key(node).hex(), "coordinator": self.public_key.hex()}
        return CREDENTIAL_PREFIX + base64.urlsafe_b64encode(orjson.dumps(data)).decode()

    def worker_keys(self) -> WorkerKeys:
        """A worker's keys in the single-owner mode (the master itself, any node name)."""
        return WorkerKeys(public_key=self.public_key, node=None, master=self._master)


@dataclass(frozen=True)
class WorkerKeys:
    """What a worker holds: the coordinator's public key, and its own key (for ``node``), or in
    the single-owner mode the master secret (any node)."""

    public_key: bytes
    node: str | None
    key: bytes | None = None
    master: bytes | None = None

    def key_for(self, node: str) -> bytes:
        """This worker's key when it runs as ``node``; ValueError for another name."""
        if self.master is not None:
            return _worker_key(self.master, node)
        if node != self.node or self.key is None:
            raise ValueError(f"this worker's key is for {self.node}, not {node}")
        return self.key

    def verify(self, task_id: str, payload: str, signature: Any) -> bool:
        """True when ``signature`` is the coordinator's for ``payload`` sent as ``task_id``."""
        if not isinstance(signature, str):
            return False
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(
                bytes.fromhex(signature), f"{task_id}\n{payload}".encode()
            )
        except (ValueError, InvalidSignature):
            return False
        return True


def fleet_keys(environ: Mapping[str, str] | None = None) -> FleetKeys | None:
    """The coordinator's keys from ``$ARBITER_SECRET``, or None without one."""
    text = key_environment(environ).get(SECRET_ENV, "")
    return FleetKeys(os.fsencode(text)) if text else None  # the variable's own bytes, UTF-8 or not


def worker_keys(environ: Mapping[str, str] | None = None) -> WorkerKeys | None:
    """A worker's keys: from its credential (``$ARBITER_WORKER_KEY``), else from the master secret
    (the single-owner mode), else None; ValueError for a credential that does not read."""
    env = key_environment(environ)
    credential = env.get(WORKER_KEY_ENV, "").strip()
    if credential:
        return read_credential(credential)
    fleet = fleet_keys(env)
    return None if fleet is None else fleet.worker_keys()


def read_credential(text: str) -> WorkerKeys:
    """A worker's keys from its credential line; ValueError naming what is wrong (never the key)."""
    bad = ValueError(f"{WORKER_KEY_ENV}: not a worker credential (make one with: arbiter worker-key NODE)")
    prefix = next((p for p in (CREDENTIAL_PREFIX, *OLD_CREDENTIAL_PREFIXES) if text.startswith(p)), None)
    if prefix is None:
        raise bad
    try:
        data = orjson.loads(base64.urlsafe_b64decode(text[len(prefix) :].encode()))
        d = check_object(data, "credential", ("node", "key", "coordinator"))
        node = check_node_name(check_str(d["node"], "node", max_length=300))
        key, public = bytes.fromhex(d["key"]), bytes.fromhex(d["coordinator"])
    except (ValueError, TypeError, orjson.JSONDecodeError):
        raise bad from None
    if len(key) != 32 or len(public) != 32:
        raise bad
    return WorkerKeys(public_key=public, node=node, key=key)


# what crosses the broker ----------------------------------------------------------------------


#: What joins a task id to the one worker it is addressed to (a spot check sent to that worker's
#: direct queue). The id is signed with the payload, so nobody can change the address; a worker
#: refuses a task addressed to another (a copy someone put on its queue), and any other worker's
#: result for it is a worker's that took what was not sent to it.
ADDRESS_SEP = "/"


def addressed(task_id: str, node: str | None) -> str:
    """``task_id`` addressed to worker ``node`` (unchanged for None: any worker may play it)."""
    return task_id if node is None else f"{task_id}{ADDRESS_SEP}{node}"


def addressee(task_id: str) -> str | None:
    """The worker a task id is addressed to, or None."""
    _, sep, node = task_id.partition(ADDRESS_SEP)
    return node if sep else None


def task_message(payload: str, keys: FleetKeys | None, task_id: str) -> dict[str, Any]:
    """The argument of a batch's task: the payload's JSON text and the coordinator's signature of
    it for this task (None without keys)."""
    return {"payload": payload, "signature": keys.sign(task_id, payload) if keys else None}


def seal(
    body: Mapping[str, Any], task_id: str, worker: str, payload: str, key: bytes | None
) -> dict[str, Any]:
    """A worker's answer for task ``task_id``: its body (a result, or the reason it refused the
    batch) as one JSON text, its name, the digest of the payload it played (``payload``: the hex
    digest, or "" when it could not read one), and an HMAC of all of them under its key (None
    without one)."""
    text = orjson.dumps(body).decode()
    mac = _mac(key, task_id, worker, payload, text) if key is not None else None
    return {"worker": worker, "payload": payload, "body": text, "mac": mac}


@dataclass(frozen=True)
class Answer:
    """An answer as the coordinator reads it: the body, the worker it names, the digest of the
    payload it was played from, and whether its seal proves that worker sent it."""

    body: Any
    worker: str | None
    payload: str
    authenticated: bool


def unseal(value: Any, task_id: str, keys: FleetKeys | None) -> Answer:
    """The answer inside a sealed value of task ``task_id``; with keys, ValueError unless it was
    sealed for that task under the key of the worker it names (checked before the body is even
    parsed). Without keys nothing can be proved: the body is taken, as a claim."""
    d = check_object(value, "sealed answer", ("worker", "payload", "body", "mac"))
    worker = check_str(d["worker"], "sealed answer: worker", max_length=300)
    payload = check_str(d["payload"], "sealed answer: payload", max_length=64)
    text = check_str(d["body"], "sealed answer: body", max_length=MAX_SEALED_BODY)
    authenticated = False
    if keys is not None:
        mac = d["mac"]
        expected = _mac(keys.worker_key(worker), task_id, worker, payload, text)
        if not isinstance(mac, str) or not hmac.compare_digest(mac, expected):
            raise ValueError(f"sealed answer: not sealed for this task by worker {worker!r} under its key")
        authenticated = True
    try:
        body = engine.read_answer(text)  # a result's records stay in the rules core
    except ValueError:
        raise ValueError("sealed answer: the body is not JSON") from None
    return Answer(body, worker, payload, authenticated)


def sealed_by(value: Any, task_id: str, keys: FleetKeys, candidates: Iterable[str]) -> str | None:
    """Which of the ``candidates`` (workers) sealed ``value`` for task ``task_id`` under its own key
    although the value names another worker: an insider answering in someone else's name is
    caught by its own key. None when no candidate's key fits."""
    try:
        d = check_object(value, "sealed answer", ("worker", "payload", "body", "mac"))
        claimed = check_str(d["worker"], "worker", max_length=300)
        payload = check_str(d["payload"], "payload", max_length=64)
        text = check_str(d["body"], "body", max_length=MAX_SEALED_BODY)
    except ValueError:
        return None
    mac = d["mac"]
    if not isinstance(mac, str):
        return None
    for node in candidates:
        if node != claimed and hmac.compare_digest(
            mac, _mac(keys.worker_key(node), task_id, claimed, payload, text)
        ):
            return node
    return None


def refusal(reason: str, worker: str | None, kind: str = "payload") -> dict[str, Any]:
    """A worker's answer for a batch it will not play, and why: ``kind`` says whose doing that is
    (``unsigned``: the payload's signature did not verify, nobody's fault but a forger's;
    ``address``: the task is addressed to another worker, a copier's doing; ``version``: another
    engine; ``payload``: a payload it cannot read; ``program``: it cannot
    run an engine the payload names)."""
    return {"refused": " ".join(reason.split())[:MAX_REASON_TEXT], "kind": kind, "worker": worker}


def refusal_reason(body: Any) -> tuple[str, str] | None:
    """The (reason, kind) of a refusal answer (see :func:`refusal`), or None for any other answer."""
    if isinstance(body, dict) and "refused" in body:
        kind = body.get("kind")
        return str(body["refused"])[:MAX_REASON_TEXT], kind if isinstance(kind, str) else "payload"
    return None
