"""Colluding insiders, run after run: are they caught every time, and are the counts honest?

Each run (one seed) starts a fresh redis-server database, two colluding insiders with their own
keys (``tests/e2e_tests/forging_worker.py``, mode ``collude``: sharing a file of the batches they
played, each playing a check of the other's batch as the other did, lying on a share of their own)
and one honest worker, plays a Congo SPRT of the tests' candidate (a bigger pawn) at 300 nodes
with the production spot-check rule (the fraction given, peers on), and compares the
counts with an honest run of the same seed on the local pool. One line per run, then a summary;
exit status 1 if any run let a colluder escape, blamed an honest worker, miscounted, or did not
end within a minute of its last counted batch.

    python benchmarks/collusion_runs.py --runs 10 --games 320 --lie-share 0.5
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "e2e_tests")]

from celery_testkit import RedisDatabase, RedisServer, WorkerPool, redis_server_path  # noqa: E402
from test_celery_faults import counts, make_config, new_run, reference  # noqa: E402
from test_trust_keys import SECRET, checking, keyed  # noqa: E402

from coordinator.sprt.runner import Progress, SprtRunner  # noqa: E402
from coordinator.store import Store  # noqa: E402

#: A run must end within this many seconds of its last counted batch.
END_WITHIN = 60.0


def one_run(server: RedisServer, folder: Path, seed: int, args: argparse.Namespace) -> tuple[bool, str]:
    """Play one seed; (all well, its line)."""
    database = RedisDatabase(server, seed % 4000 + 1)
    pool = WorkerPool(database.url, folder)
    sides = {"candidate": {}} if args.against_itself else {}  # else the tests' bigger pawn
    config = make_config(max_games=args.games, batch_pairs=4, seed=seed, **sides)
    store = Store(f"sqlite:///{folder / 'run.db'}")
    run_id = new_run(store, config)
    colluders = [
        pool.start(
            name,
            app="forging_worker",
            env={
                "FORGE": "collude",
                "COLLUDE_FILE": str(folder / "played.txt"),
                "LIE_SHARE": str(args.lie_share),
                **keyed(name),
            },
        )
        for name in ("colluder-a", "colluder-b")
    ]
    honest = pool.start("honest", env=keyed("honest"))
    full_at: list[float] = []

    def note(progress: Progress) -> None:
        if progress.counted_batches == config.max_batches and not full_at:
            full_at.append(time.monotonic())
        elif progress.counted_batches < (config.max_batches or 0):
            full_at.clear()

    try:
        with checking(database.url, fraction=args.fraction, peers=True) as executor:
            progress = SprtRunner(store, run_id, config, executor, on_progress=note).run()
            ended = time.monotonic()
    finally:
        pool.stop_all()
        database.release()
    reasons = {q.worker: q.reason for q in store.quarantines(run_id)}
    quarantined = set(reasons)
    how = sorted({"audit" if "once it was suspect" in r else r.split(" of ")[0] for r in reasons.values()})
    lies = sum(line.endswith(" lie") for line in (folder / "played.txt").read_text().splitlines())
    honest_counts = counts(progress) == reference(config)
    caught = quarantined == {c.node for c in colluders}
    tail = ended - full_at[0] if full_at else float("inf")
    ok = honest_counts and caught and honest.node not in quarantined and tail < END_WITHIN
    line = (
        f"seed {seed}: {lies} lying batches, quarantined {sorted(q.split('@')[0] for q in quarantined)}, "
        f"counts {'honest' if honest_counts else 'WRONG'} {progress.pentanomial}, "
        f"ended {tail:.1f} s after its last counted batch; caught by {', '.join(how) or 'nothing'}"
    )
    return ok, line


def main() -> int:
    """Run the seeds; 0 if every run went well."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=101)
    parser.add_argument("--games", type=int, default=320)
    parser.add_argument("--fraction", type=float, default=0.02)
    parser.add_argument("--lie-share", type=float, default=0.5)
    parser.add_argument("--against-itself", action="store_true", help="the engine against itself")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers and workers on the way
    executable = redis_server_path()
    if executable is None:
        print("collusion_runs: redis-server is not installed (scripts/ensure-redis.sh)", file=sys.stderr)
        return 2
    os.environ["ARBITER_SECRET"] = SECRET  # this process is the coordinator
    good = 0
    with tempfile.TemporaryDirectory(prefix="arbiter-collusion-") as tmp:
        server = RedisServer(Path(tmp), executable)
        server.start()
        try:
            for seed in range(args.first_seed, args.first_seed + args.runs):
                folder = Path(tmp) / f"seed-{seed}"
                folder.mkdir()
                ok, line = one_run(server, folder, seed, args)
                good += ok
                print(("ok    " if ok else "FAIL  ") + line, flush=True)
        finally:
            server.kill()
    print(f"{good} of {args.runs} runs: both colluders caught, nobody honest blamed, counts honest, ended")
    return 0 if good == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
