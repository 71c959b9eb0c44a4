"""The fleet's keys without a broker: a payload's signature, a worker's seal, credentials, and what
a worker answers for a message it cannot trust (refused unplayed, kind ``unsigned``)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import engine
from wire.sealing import (
    SECRET_ENV,
    FleetKeys,
    addressed,
    addressee,
    digest,
    fleet_keys,
    read_credential,
    refusal_reason,
    seal,
    sealed_by,
    task_message,
    unseal,
    worker_keys,
)
from worker.games import answer_task

MASTER = b"a master secret for tests"
NODE = "w1@host"


def played(data: Any, worker: str) -> dict[str, Any]:
    """A stand-in batch answer: what it was given, and by whom."""
    return {"echo": data, "worker": worker}


class Spy:
    """:func:`played`, keeping what it was given to play."""

    def __init__(self) -> None:
        self.plays: list[Any] = []

    def __call__(self, data: Any, worker: str) -> dict[str, Any]:
        self.plays.append(data)
        return played(data, worker)


def test_an_answer_binds_task_worker_and_payload() -> None:
    keys = FleetKeys(MASTER)
    credential = worker_keys({"ARBITER_WORKER_KEY": keys.credential(NODE)})
    assert credential is not None and credential.node == NODE
    message = task_message('{"batch": 1}', keys, "task-1")
    answer = answer_task(message, "task-1", NODE, credential, answer=played)
    opened = unseal(answer, "task-1", keys)
    assert opened.authenticated and opened.worker == NODE and opened.body["echo"] == {"batch": 1}
    assert opened.payload == digest('{"batch": 1}')
    refused = "not sealed for this task by worker"
    with pytest.raises(ValueError, match=refused):
        unseal(answer, "task-2", keys)  # another task's answer
    forged = dict(answer, worker="w2@host")
    with pytest.raises(ValueError, match=refused):
        unseal(forged, "task-1", keys)  # claimed in another's name
    impostor = seal({"games": []}, "task-1", "w2@host", opened.payload, keys.worker_key(NODE))
    with pytest.raises(ValueError, match=refused):
        unseal(impostor, "task-1", keys)  # w1 answering in w2's name, under its own key
    assert sealed_by(impostor, "task-1", keys, ["w2@host", "w3@host", NODE]) == NODE  # caught by it
    assert sealed_by(forged, "task-1", keys, ["w2@host", "w3@host"]) is None
    for changed in (
        dict(answer, body=json.dumps({"echo": {"batch": 2}, "worker": NODE})),
        dict(answer, payload=digest('{"batch": 2}')),
    ):
        with pytest.raises(ValueError, match=refused):
            unseal(changed, "task-1", keys)
    assert not unseal(answer, "task-1", None).authenticated  # without keys: a claim only


def test_a_payload_not_signed_for_its_task_is_refused_unplayed() -> None:
    keys = FleetKeys(MASTER)
    credential = read_credential(keys.credential(NODE))
    spy = Spy()

    good = task_message('{"batch": 1}', keys, "task-1")
    cases = {
        "rewritten": dict(good, payload='{"batch": 2}'),
        "another task's": task_message('{"batch": 1}', keys, "task-9"),
        "unsigned": dict(good, signature=None),
        "signed by another fleet": task_message('{"batch": 1}', FleetKeys(b"other"), "task-1"),
    }
    for name, message in cases.items():
        answer = answer_task(message, "task-1", NODE, credential, answer=spy)
        opened = unseal(answer, "task-1", keys)
        assert opened.authenticated, name  # the refusal itself is this worker's, sealed
        reason = refusal_reason(opened.body)
        assert reason is not None and reason[1] == "unsigned" and "not signed" in reason[0], name
    assert spy.plays == []
    answer_task(good, "task-1", NODE, credential, answer=spy)
    assert spy.plays == [{"batch": 1}]


def test_a_credential_signs_as_its_node_only() -> None:
    keys = FleetKeys(MASTER)
    credential = read_credential(keys.credential(NODE))
    with pytest.raises(ValueError, match="w1@host, not w2@host"):
        answer_task(task_message("{}", keys, "t"), "t", "w2@host", credential, answer=played)
    single_owner = keys.worker_keys()  # the master itself: any node
    answer = answer_task(task_message("{}", keys, "t"), "t", "w2@host", single_owner, answer=played)
    assert unseal(answer, "t", keys).worker == "w2@host"


def test_a_credential_reads_as_no_worker_number_and_old_ones_still_work() -> None:
    keys = FleetKeys(MASTER)
    text = keys.credential("w2@host")
    assert text.startswith("arbiter-worker-key:") and not re.match(r"arbiter-worker-\d", text)
    old = "arbiter-worker-1:" + text.removeprefix("arbiter-worker-key:")  # as earlier versions printed it
    assert read_credential(old) == read_credential(text)
    assert read_credential(old).node == "w2@host"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "arbiter-worker-key:",
        "arbiter-worker-key:!!!",
        "arbiter-worker-1:",
        "arbiter-worker-1:!!!",
        "arbiter-worker-2:e30=",
        "secret",
        "arbiter-worker-1:e30=",
    ],
)
def test_a_broken_credential_is_one_clear_error_without_the_key(text: str) -> None:
    env = {"ARBITER_WORKER_KEY": text} if text else {"ARBITER_WORKER_KEY": " "}
    if not text:
        assert worker_keys(env) is None  # blank: as if unset
        return
    with pytest.raises(ValueError, match=r"^ARBITER_WORKER_KEY: not a worker credential \(make one with"):
        worker_keys(env)


def test_node_names_a_key_can_be_made_for() -> None:
    keys = FleetKeys(MASTER)
    for bad in ("w1", "w1@%h", "w 1@host", "@host", "w1@", "a" * 101 + "@h", "w1@host\n"):
        with pytest.raises(ValueError):
            keys.credential(bad)
    assert keys.worker_key("w1@a") != keys.worker_key("w1@b")
    assert FleetKeys(MASTER).worker_key(NODE) == keys.worker_key(NODE)  # derived, not random


def test_an_answer_body_is_read_with_its_records_kept_in_the_rules_core() -> None:
    """A result's body reads as JSON does, but its ``games`` stay in Rust (``engine.Records``):
    a sequence of the records as dicts, for the rare readers in Python."""
    record = {"opening": "o w", "moves": "a1a2 é", "result": "1-0", "reason": "r", "extra": [1, None]}
    body = {"games": [record, 3, "x"], "wdl": [1, 0, 0], "nested": {"games": [1]}, "f": 1.5, "t": True}
    opened = unseal(seal(body, "task-1", NODE, "", None), "task-1", None).body
    games = opened.pop("games")
    assert opened == {k: v for k, v in body.items() if k != "games"}  # "games" kept only at the top
    assert isinstance(games, engine.Records) and len(games) == 3
    assert list(games) == body["games"] and games[-3] == record and games[2] == "x"
    with pytest.raises(IndexError):
        games[3]
    assert unseal(seal([1, {"games": [2]}], "t", NODE, "", None), "t", None).body == [1, {"games": [2]}]


@pytest.mark.parametrize(
    "text", ['{"games": [}', '{"a": 1} {}', "[" * 100_000 + "]" * 100_000, '"\\ud800"', ""]
)
def test_a_body_that_is_not_json_is_one_clear_error(text: str) -> None:
    sealed = {"worker": NODE, "payload": "", "body": text, "mac": None}
    with pytest.raises(ValueError, match=r"^sealed answer: the body is not JSON$"):
        unseal(sealed, "task-1", None)


def test_a_master_secret_that_is_not_utf8_is_taken_as_its_bytes() -> None:
    """``$ARBITER_SECRET`` is the variable's bytes (Python holds undecodable ones as surrogates,
    which ``str.encode`` refused: ``arbiter worker-key`` ended in a codec error)."""
    keys = fleet_keys({SECRET_ENV: b"\xff\xfesecret".decode("utf-8", "surrogateescape")})
    assert keys is not None
    assert keys.credential("w@h") == FleetKeys(b"\xff\xfesecret").credential("w@h")
    assert fleet_keys({SECRET_ENV: "plain"}) is not None and fleet_keys({}) is None


def test_a_task_addressed_to_another_worker_is_refused_unplayed() -> None:
    """A spot check's task names the one worker it is for, under the coordinator's signature: a
    copy someone put on another worker's queue is refused there (kind ``address``), unplayed."""
    keys = FleetKeys(MASTER)
    credential = read_credential(keys.credential(NODE))
    spy = Spy()

    for_other, for_me = addressed("task-1", "w2@host"), addressed("task-2", NODE)
    assert addressee(for_other) == "w2@host" and addressee("task-3") is None
    answer = answer_task(task_message("{}", keys, for_other), for_other, NODE, credential, answer=spy)
    reason = refusal_reason(unseal(answer, for_other, keys).body)
    assert reason is not None and reason[1] == "address" and "w2@host" in reason[0] and spy.plays == []
    answer_task(task_message("{}", keys, for_me), for_me, NODE, credential, answer=spy)
    assert spy.plays == [{}]
