"""A test-only Celery app whose worker lies, in the way ``$FORGE`` names.

Run by the fault and trust tests as ``celery -A forging_worker worker``; it serves the same task
name as the real worker (``worker.tasks`` is not imported, so the names do not clash). Modes:

- ``extra_pair``: plays the batch, then adds a pair that was never played to the counts;
- ``flip``: plays the batch, then rewrites every game as a candidate win (records and counts);
- ``no_moves``: plays nothing and claims candidate wins by the rules with no moves;
- ``illegal``: plays the batch, then puts an illegal move into the first game;
- ``wrong_types``: plays the batch, then sends ``cpu_seconds: "lots"`` and a string count;
- ``stale``: plays the batch but stamps another engine version on it (a stale build);
- ``other_weights``: plays real games with other weights than the payload's (legal, consistent,
  and wrong: only a deterministic replay shows it);
- ``adaptive``: plays its first batches honestly (so that its first one passes the check), then
  lies as ``other_weights``;
- ``cripple``: plays its first batches honestly (``$HONEST_BATCHES``, 1 by default), then every
  later one against a crippled baseline (every weight the least its range allows): real, legal
  games whose counts favour the candidate; timed batches carry the budgets of the crippled play;
- ``impostor``: plays honestly, but answers in the name of ``$IMPOSTOR_AS`` (sealed with its own
  key: it has no other);
- ``refuse``: refuses every batch, for one same reason;
- ``collude``: one of two (or more) insiders sharing the file ``$COLLUDE_FILE``: after its first
  ``$HONEST_BATCHES`` (1 by default) it plays every batch of its own (or a share ``$LIE_SHARE`` of
  them, drawn by batch) as ``cripple`` does, writing
  down each batch it played and how; asked for a batch a partner wrote down (a spot check of the
  partner's, which comes on its direct queue) it plays it exactly as the partner did, and any
  other check honestly (so that it never disagrees with an honest worker).

Every answer is sealed like a worker's (with the fleet's secret or the worker's own key): these
liars are insiders.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from typing import Any

from celery import Celery

import engine
from wire.celeryconfig import settings
from wire.protocol import BatchPayload

#: Must equal ``wire.protocol.TASK_NAME`` (the tests check it).
from wire.sealing import digest, refusal, seal, worker_keys
from wire.tally import tally
from worker import games
from worker.games import answer_task

TASK_NAME = "arbiter.play_batch"
FORGE_ENV = "FORGE"

app = Celery("forger", set_as_current=False)
app.conf.update(settings())


def candidate_wins(result: dict[str, Any]) -> None:
    """Rewrite every record as a candidate win, and the counts to match."""
    for record in result["games"]:
        record["result"] = "1-0" if record["candidate_color"] == "white" else "0-1"
    result["pentanomial"], result["wdl"] = tally(result["games"])


#: Batches this process has answered (``adaptive`` lies only after its first ones).
ANSWERED = [0]
#: How many batches ``adaptive`` plays honestly before it lies.
HONEST_FIRST = 2
IMPOSTOR_ENV = "IMPOSTOR_AS"
REFUSAL = "this worker refuses every batch"
COLLUDE_ENV = "COLLUDE_FILE"


def crippled(game: str) -> dict[str, int]:
    """The weights of a hopeless engine: every weight at the bottom of its range."""
    return {w.name: w.min for w in engine.weights(game)}


def colluded(payload: BatchPayload, check: bool) -> bool:
    """Whether a colluder lies on ``payload`` (``check``: it came on this worker's direct queue, a
    spot check of another's batch): as a partner wrote down, else, for a batch of its own after
    its first honest ones, always (and it writes that down)."""
    path = os.environ[COLLUDE_ENV]
    batch = f"{payload.run_id}:{payload.batch_index}"
    try:
        with open(path, encoding="utf-8") as shared:
            played = dict(line.split() for line in shared if line.strip())
    except FileNotFoundError:
        played = {}
    if batch in played:
        return played[batch] == "lie"
    if check:
        return False
    share = float(os.environ.get("LIE_SHARE", "1"))
    drawn = int.from_bytes(hashlib.sha256(batch.encode()).digest()[:8], "big") / 2**64
    lie = ANSWERED[0] > int(os.environ.get("HONEST_BATCHES", "1")) and drawn < share
    with open(path, "a", encoding="utf-8") as shared:  # one short append: whole lines
        shared.write(f"{batch} {'lie' if lie else 'honest'}\n")
    return lie


def forge(mode: str, data: dict[str, Any], worker: str, check: bool = False) -> dict[str, Any]:
    """The lie of ``mode`` about the batch ``data``, signed ``worker`` (``check``: the batch came on
    this worker's direct queue, as spot checks do)."""
    payload = BatchPayload.from_json(data)
    ANSWERED[0] += 1
    if mode == "adaptive":
        mode = "other_weights" if ANSWERED[0] > HONEST_FIRST else "honest"
    if mode == "refuse":
        return refusal(REFUSAL, worker)
    if mode == "collude":
        if colluded(payload, check):
            payload = dataclasses.replace(payload, baseline=crippled(payload.game))
        return games.play_batch(payload, worker=worker).to_json()
    if mode == "cripple":
        if ANSWERED[0] > int(os.environ.get("HONEST_BATCHES", "1")):
            payload = dataclasses.replace(payload, baseline=crippled(payload.game))
        return games.play_batch(payload, worker=worker).to_json()
    if mode == "no_moves":
        played = games.play_batch(
            payload,
            play_game=lambda *a, **k: {"moves": [], "result": "1-0", "reason": "lion_captured"},
            worker=worker,
        )
        result = played.to_json()
        candidate_wins(result)
        return result
    if mode == "other_weights":
        other = {**(payload.candidate or {}), "pawn": 60}
        payload = dataclasses.replace(payload, candidate=other)
    result = games.play_batch(payload, worker=worker).to_json()
    if mode == "extra_pair":
        result["pentanomial"][0] += 1
    elif mode == "flip":
        candidate_wins(result)
    elif mode == "illegal":
        result["games"][0]["moves"] = "a1a1 " + result["games"][0]["moves"]
    elif mode == "wrong_types":
        result["cpu_seconds"] = "lots"
        result["wdl"][0] = str(result["wdl"][0])
    elif mode == "stale":
        result["engine_version"] = "0.0.0-stale"
    return result


# Not shared: other apps in a test process keep the real task.
@app.task(name=TASK_NAME, shared=False, bind=True)
def forged_batch(task: Any, message: Any) -> dict[str, Any]:
    """A forged result for the batch of ``message``, sealed like any worker's answer (a liar holds
    its own key, or the fleet's secret)."""
    mode = os.environ.get(FORGE_ENV, "extra_pair")
    if mode == "impostor":
        return impostor(message, task.request.id, task.request.hostname)
    check = (task.request.delivery_info or {}).get("routing_key") == task.request.hostname
    return answer_task(
        message,
        task.request.id,
        task.request.hostname,
        worker_keys(),
        lambda data, node: forge(mode, data, node, check),
    )


def impostor(message: dict[str, Any], task_id: str, node: str) -> dict[str, Any]:
    """An honest answer in another worker's name, sealed with this worker's own key."""
    claimed = os.environ[IMPOSTOR_ENV]
    keys = worker_keys()
    assert keys is not None, "an impostor holds a key of its own"
    text = message["payload"]
    body = games.answer_batch(json.loads(text), claimed)
    return seal(body, task_id, claimed, digest(text), keys.key_for(node))
