"""``arbiter status RUN`` flags workers whose results stand out from the rest (fishtest's chi² test
of the per-worker pentanomial counts): a warning shown with the run, never a refusal."""

from __future__ import annotations

import json
from pathlib import Path

from sprt_testkit import batch_result, run_cli

import engine
from coordinator.runs import RunKind
from coordinator.sprt.config import SprtConfig
from coordinator.store import Store
from coordinator.store.results import CheckedResult

#: Three workers that agree (mostly draws and even pairs) and one whose pairs are mostly wins (enough
#: pairs each for the test: it sets aside workers expected to see at most 5 of an outcome).
PER_WORKER = {
    "w1@a": [5, 20, 70, 20, 5],
    "w2@b": [4, 22, 68, 21, 5],
    "w3@c": [6, 19, 71, 19, 5],
    "odd@d": [2, 8, 40, 40, 30],
}


def test_status_flags_the_worker_whose_results_stand_out(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'workers.db'}"
    store = Store(url)
    config = SprtConfig(
        game="congo",
        candidate=engine.validate_weights("congo", None),
        baseline=engine.validate_weights("congo", None),
        openings=[engine.Position.start("congo").fen()],
        engine_version=engine.ENGINE_VERSION,
        batch_pairs=120,
    )
    run_id = store.create_run(RunKind.SPRT, "congo", config.to_json(), config.fingerprint())
    for index, (worker, pentanomial) in enumerate(PER_WORKER.items()):
        store.start_batch(run_id, index, "0" * 64, index)
        assert store.record_result(
            run_id, index, CheckedResult.tallied(batch_result(pentanomial, worker=worker))
        )
    store.update_run(run_id, counted_batches=len(PER_WORKER))

    as_json = run_cli("status", str(run_id), "--json", "--store", url)
    assert as_json.returncode == 0, as_json.stderr
    check = json.loads(as_json.stdout)["worker_check"]
    flagged = {w["worker"] for w in check["workers"] if w["flagged"]}
    assert flagged == {"odd@d"}, check
    assert check["chi2"]["p"] < 0.05
    text = run_cli("status", str(run_id), "--store", url)
    assert text.returncode == 0
    [line] = [line for line in text.stdout.splitlines() if line.startswith("outlier worker")]
    assert line.startswith("outlier worker odd@d: residual +") and "not a proof" in line
