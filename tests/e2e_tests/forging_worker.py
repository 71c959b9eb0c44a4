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
  lies as ``other_weights``.

Every answer is sealed with the fleet's secret, as a worker's: these liars are insiders.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from celery import Celery

from worker import games
from worker.celeryconfig import settings
from worker.protocol import BatchPayload, fleet_secret, seal, tally

#: Must equal ``worker.protocol.TASK_NAME`` (the tests check it).
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


def forge(mode: str, data: dict[str, Any], worker: str) -> dict[str, Any]:
    """The lie of ``mode`` about the batch ``data``, signed ``worker``."""
    payload = BatchPayload.from_json(data)
    ANSWERED[0] += 1
    if mode == "adaptive":
        mode = "other_weights" if ANSWERED[0] > HONEST_FIRST else "honest"
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
def forged_batch(task: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """A forged result for ``payload``, sealed like any worker's (a liar holds the fleet's secret)."""
    node = task.request.hostname
    return seal(
        forge(os.environ.get(FORGE_ENV, "extra_pair"), payload, node), task.request.id, fleet_secret()
    )
