"""Colluding insiders against a real redis-server and real Celery workers: caught, and the run ends.

The coordinator holds the master secret; each insider holds only its own key, minted from it
(``arbiter worker-key``), and plays every batch of its own after its first against a crippled
baseline. Colluders also share a file of the batches they played, so that each plays a spot check
of the other's batch exactly as the other did (and any other check honestly); insiders that share
nothing just lie. Beside them one honest worker. In every case both insiders are quarantined,
nobody honest is, the counts equal an honest run's on the local pool, and the run ends soon after
its last batch is counted (a run whose workers were quarantined once went on waiting forever).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from celery_testkit import RedisDatabase, WorkerPool
from test_celery_faults import RUN_TIMEOUT, Background, counts, make_config, new_run, reference
from test_trust_keys import checking, coordinator_secret, keyed

from coordinator.sprt.runner import Progress, SprtRunner
from coordinator.store import Store

pytestmark = pytest.mark.slow

#: Bound on a collusion run: every batch of a caught insider is played again on one local process,
#: which a suite running beside it on two cores can slow past the fault tests' bound.
COLLUSION_TIMEOUT = 3 * RUN_TIMEOUT
__all__ = ["coordinator_secret"]  # the autouse fixture: this process holds the master secret

#: How long a run may go on after its last batch is counted (the issue's bound).
END_WITHIN = 60.0


@pytest.mark.parametrize("mode", ["collude", "cripple"], ids=["sharing-a-file", "sharing-nothing"])
def test_two_lying_insiders_are_caught_and_the_run_ends(
    mode: str, redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    config = make_config(candidate={}, max_games=320, batch_pairs=4)
    assert config.max_batches is not None
    store = Store(f"sqlite:///{tmp_path / 'colluders.db'}")
    run_id = new_run(store, config)
    shared = tmp_path / "played.txt"
    insiders = [
        workers.start(
            name, app="forging_worker", env={"FORGE": mode, "COLLUDE_FILE": str(shared), **keyed(name)}
        )
        for name in ("insider-a", "insider-b")
    ]
    honest = workers.start("honest", env=keyed("honest"))
    full_at: list[float] = []  # when the counted prefix last became the whole budget

    def note(progress: Progress) -> None:
        if progress.counted_batches == config.max_batches and not full_at:
            full_at.append(time.monotonic())
        elif progress.counted_batches < (config.max_batches or 0):
            full_at.clear()  # a quarantine discarded counted batches: they are played again

    with checking(redis_server.url, fraction=0.1, peers=True) as executor:
        run = Background(lambda: SprtRunner(store, run_id, config, executor, on_progress=note).run())
        progress = run.result(COLLUSION_TIMEOUT)
        ended = time.monotonic()
    assert counts(progress) == reference(config)
    quarantined = {q.worker: q.reason for q in store.quarantines(run_id)}
    assert set(quarantined) == {i.node for i in insiders}, quarantined
    assert honest.node not in executor.quarantined
    assert {batch.worker for batch in store.iter_batch_games(run_id)} == {honest.node}
    run_row = store.get_run(run_id)
    assert run_row is not None and str(run_row.state) == "finished"
    assert full_at and ended - full_at[0] < END_WITHIN, "the run went on after its last counted batch"
    if mode == "collude":  # they did lie, and alike: each wrote down the batches it played
        assert " lie" in shared.read_text()
