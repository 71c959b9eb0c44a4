"""A worker's log names the batch each answer was for, never its body."""

from __future__ import annotations

import orjson

from worker.tasks import answer_line


def test_an_answer_is_logged_by_its_run_and_batch() -> None:
    body = orjson.dumps({"run_id": 7, "batch_index": 12, "games": [{"moves": "a1a2 " * 500}]}).decode()
    answer = {"worker": "w1@host", "payload": "ab" * 32, "body": body, "mac": "00"}
    assert answer_line(answer) == "answer stored (run 7, batch 12)"
    assert answer_line(repr(answer)[:400]) == "answer stored (run 7, batch 12)"  # as Celery logs it


def test_an_answer_without_a_readable_body_is_logged_plainly() -> None:
    assert answer_line({"status": "refused"}) == "answer stored"
    assert answer_line("{'worker': 'w1@host', 'body': 'not JSON'}") == "answer stored"
    assert answer_line({"body": 3}) == "answer stored"
