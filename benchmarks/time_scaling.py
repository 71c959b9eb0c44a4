"""Timed games on workers of different speed, with and without time scaling (worker/speed.py).

Two workers play the same timed batches of arbiter-engine (an engine program) against the built-in
engine with material-only weights (run as arbiter-engine too, through the referee), at the same
time: a fast one pinned alone to one core, and a slow one pinned to the other core in a cgroup with
a CPU quota of ``--slow-share`` of a core (a real slowdown, its bench included), or, where no
cgroup can be made, beside ``--hogs`` busy processes. Each is a fresh process that benches itself
first, as a worker does at start (``worker.speed.bench_nps``), and plays
``worker.games.play_batch`` with the payload's ``scale_time`` off, then (another repetition) on.
Repetitions alternate off and on so that the machine's load drifts over both alike. First, the
self-bench's speed is compared with the signature bench's (``--calibrate``), the figure that ties
``REFERENCE_NPS`` to the reference machine's recorded bench.

Each move of a timed game records the nodes its engine reported, so the measure of effective
strength is the mean nodes per move: without scaling the slow worker searches less per move; with
scaling its clock is stretched by ``REFERENCE_NPS / its bench`` (the fast one's shrunk alike) and
both should search about the same. The candidate's score on each worker is shown too (few games:
a noisy measure).

    python benchmarks/time_scaling.py                          # quick: Congo at 2+0.02, 2 pairs, 2 reps
    python benchmarks/time_scaling.py --tc 1+0.01 --slow-share 0.08 --reference-nps 300000
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import engine
from coordinator.openings.book import default_book_path, load_book
from coordinator.sprt.config import BatchPlan, SprtConfig
from wire.programs import EngineProgram, files_digest, pack
from wire.protocol import BatchPayload
from wire.speed import REFERENCE_NPS
from wire.tally import candidate_score
from worker import speed
from worker.games import play_batch
from worker.program_batch import BUILTIN_HASH_MB, builtin_program
from worker.programs import ProgramCache
from worker.speed import BENCH_DEPTH, bench_nps

#: A busy process: what slows the slow worker's core.
HOG = "while True: pass"
ROOT = Path(__file__).resolve().parent.parent
#: The longest a worker may take (seconds): a bound, never a synchronisation.
WORKER_TIMEOUT = 1800


def payload_of(game: str, tc: str, pairs: int, seed: int, scale: bool) -> BatchPayload:
    """One timed batch of the defaults against material-only weights."""
    material = json.loads((ROOT / "examples" / f"{game}-material.json").read_text())
    config = SprtConfig(
        game=game,
        candidate=dict(engine.validate_weights(game, None)),
        baseline=dict(engine.validate_weights(game, material)),
        openings=load_book(default_book_path(game), game),
        engine_version=engine.ENGINE_VERSION,
        limits=engine.Limits(time_control=engine.TimeControl.parse(tc)),
        batch_pairs=pairs,
        seed=seed,
        scale_time=scale,
    )
    return BatchPlan(config).payload(1, 0)


def play_as_worker(payload_json: str, reference_nps: int | None) -> dict[str, Any]:
    """What one worker process does: bench itself, then play the batch with arbiter-engine as the
    candidate program (from a program cache of its own), its speed measured against
    ``reference_nps`` (None: worker.speed's)."""
    if reference_nps is not None:
        speed.REFERENCE_NPS = reference_nps
    nps = bench_nps()
    payload = BatchPayload.from_json(json.loads(payload_json))
    with tempfile.TemporaryDirectory() as root:
        cache = ProgramCache(Path(root) / "cache")
        source = Path(root) / "program"
        source.mkdir()
        binary = source / "arbiter-engine"
        binary.write_bytes(Path(builtin_program()).read_bytes())
        binary.chmod(0o755)
        digest = files_digest(source, [binary])
        cache.install(digest, pack(source, [binary]))
        program = EngineProgram("arbiter-engine", digest, ("./arbiter-engine",), {"Hash": BUILTIN_HASH_MB})
        result = play_batch(replace(payload, candidate_program=program), worker="bench", cache=cache)
    nodes = [int(n) for g in result.games for n in g.budgets.split()]
    score = sum(candidate_score(g.result, g.candidate_color) for g in result.games)
    return {
        "bench_nps": nps,
        "factor": result.time_factor,
        "moves": len(nodes),
        "mean_nodes": statistics.fmean(nodes) if nodes else 0.0,
        "score": score / max(1, len(result.games)),
        "faults": len(result.faults),
    }


def start_worker(
    core: int, payload_file: Path, group: Path | None, reference_nps: int | None
) -> subprocess.Popen[str]:
    """A worker process pinned to ``core`` (and in the cgroup ``group``: it enters it before it
    execs), playing the payload in ``payload_file``."""
    argv = ["taskset", "-c", str(core), sys.executable, __file__, "--worker", str(payload_file)]
    if reference_nps is not None:
        argv += ["--reference-nps", str(reference_nps)]
    if group is not None:
        argv = ["sh", "-c", f'echo $$ > "{group}/cgroup.procs" && exec "$@"', "sh", *argv]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)


def finish(popen: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = popen.communicate(timeout=WORKER_TIMEOUT)
    if popen.returncode != 0:
        raise SystemExit(f"time_scaling: a worker failed (exit status {popen.returncode})")
    return dict(json.loads(out))


def cgroup_slowdown(share: float) -> Path | None:
    """A cgroup (v1 ``cpu`` or v2) whose processes get ``share`` of one core, or None where this
    machine lets nobody make one (then busy processes slow the slow worker instead)."""
    name = f"arbiter-time-scaling-{os.getpid()}"
    period = 100_000
    quota = max(1000, round(share * period))
    for root, quota_file, value in (
        (Path("/sys/fs/cgroup/cpu"), "cpu.cfs_quota_us", f"{quota}"),
        (Path("/sys/fs/cgroup"), "cpu.max", f"{quota} {period}"),
    ):
        group = root / name
        try:
            group.mkdir()
        except OSError:
            continue
        try:
            if quota_file == "cpu.cfs_quota_us":
                (group / "cpu.cfs_period_us").write_text(str(period))
            (group / quota_file).write_text(value)
            return group
        except OSError:
            group.rmdir()
    return None


def one_round(
    payload: BatchPayload, hogs: int, group: Path | None, reference_nps: int | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The fast and the slow worker playing ``payload`` at once: (fast, slow). The slow one runs
    in ``group`` (a CPU quota), else beside ``hogs`` busy processes on its core."""
    hog_procs = []
    if group is None:
        hog_procs = [subprocess.Popen(["taskset", "-c", "0", sys.executable, "-c", HOG]) for _ in range(hogs)]
    try:
        with tempfile.TemporaryDirectory() as folder:
            payload_file = Path(folder) / "payload.json"
            payload_file.write_text(json.dumps(payload.to_json()))
            slow = start_worker(0, payload_file, group, reference_nps)
            fast = start_worker(1, payload_file, None, reference_nps)
            return finish(fast), finish(slow)
    finally:
        for hog in hog_procs:
            hog.kill()
            hog.wait(timeout=10)


def calibration(reps: int) -> list[float]:
    """The worker's self-bench speed (``bench_nps``: depth BENCH_DEPTH) over the speed of the
    signature bench (depth 9) that docs/performance.md records for the idle reference machine,
    measured interleaved, once per repetition."""
    ratios = []
    for _ in range(reps):
        bench_nps.cache_clear()
        shallow = bench_nps()
        nodes, seconds = 0, 0.0
        for game in engine.GAMES:
            started = time.perf_counter()
            counted, _ = engine.bench(game)
            seconds += time.perf_counter() - started
            nodes += counted
        ratios.append(shallow / (nodes / seconds))
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="congo", choices=engine.GAMES)
    parser.add_argument("--tc", default="2+0.02", help="time control (as --tc of arbiter sprt)")
    parser.add_argument("--pairs", type=int, default=2, help="pairs per worker and repetition")
    parser.add_argument("--reps", type=int, default=2, help="repetitions of each setting (off and on)")
    parser.add_argument(
        "--slow-share", type=float, default=0.05, help="CPU quota of the slow worker (share of one core)"
    )
    parser.add_argument("--hogs", type=int, default=1, help="busy processes by the slow worker (no cgroup)")
    parser.add_argument(
        "--calibrate", type=int, default=3, metavar="N", help="repetitions of the self-bench calibration"
    )
    parser.add_argument(
        "--reference-nps",
        type=int,
        help="the reference speed the workers scale to (default: worker.speed's REFERENCE_NPS); "
        "a shared machine far below it clamps every factor at the top of FACTOR_RANGE",
    )
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        print(json.dumps(play_as_worker(args.worker.read_text(), args.reference_nps)))
        return
    if os.cpu_count() is None or (os.cpu_count() or 0) < 2:
        parser.error("needs two cores (one per worker)")
    if min(args.pairs, args.reps) < 1 or args.hogs < 0:
        parser.error("--pairs and --reps must be positive, --hogs not negative")
    try:
        engine.TimeControl.parse(args.tc)
    except ValueError as e:
        parser.error(f"--tc: {e}")
    if args.calibrate > 0:
        found = calibration(args.calibrate)
        print(
            f"self-bench (depth {BENCH_DEPTH}) / signature bench (depth 9) nps: median "
            f"{statistics.median(found):.3f}, range {min(found):.3f} to {max(found):.3f} ({len(found)} runs)"
        )
    group = cgroup_slowdown(args.slow_share)
    slowdown = f"a CPU quota of {args.slow_share:.0%} of a core" if group else f"{args.hogs} busy processes"
    print(f"{args.game} at {args.tc}, {args.pairs} pairs per worker, the slow worker under {slowdown}")
    print(f"reference speed {args.reference_nps or REFERENCE_NPS:,} nodes/s")
    rows: dict[bool, list[tuple[dict[str, Any], dict[str, Any]]]] = {False: [], True: []}
    try:
        for rep in range(args.reps):
            for scale in (False, True) if rep % 2 == 0 else (True, False):
                payload = payload_of(args.game, args.tc, args.pairs, seed=rep, scale=scale)
                fast, slow = one_round(payload, args.hogs, group, args.reference_nps)
                rows[scale].append((fast, slow))
                print(f"rep {rep} scaling {'on' if scale else 'off'}: fast {fast} slow {slow}", flush=True)
    finally:
        if group is not None:
            group.rmdir()
    print()
    print(
        "| scaling | fast bench nps | slow bench nps | fast factor | slow factor | fast nodes/move | "
        "slow nodes/move | slow / fast nodes per move (each rep) | fast score | slow score |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for scale in (False, True):
        pairs = rows[scale]

        def mean(side: int, key: str, pairs: list[tuple[dict[str, Any], dict[str, Any]]] = pairs) -> float:
            return statistics.fmean(p[side][key] for p in pairs)

        each = ", ".join(f"{s['mean_nodes'] / f['mean_nodes']:.2f}" for f, s in pairs)
        print(
            f"| {'on' if scale else 'off'} | {mean(0, 'bench_nps'):,.0f} | {mean(1, 'bench_nps'):,.0f} | "
            f"{mean(0, 'factor'):.2f} | {mean(1, 'factor'):.2f} | {mean(0, 'mean_nodes'):,.0f} | "
            f"{mean(1, 'mean_nodes'):,.0f} | {mean(1, 'mean_nodes') / mean(0, 'mean_nodes'):.2f} ({each}) | "
            f"{mean(0, 'score'):.0%} | {mean(1, 'score'):.0%} |"
        )


if __name__ == "__main__":
    main()
