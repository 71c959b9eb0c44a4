"""Timed games on workers of different speed, with and without time scaling (worker/speed.py).

Two workers play the same timed batches of arbiter-engine (an engine program) against the built-in
engine with material-only weights (run as arbiter-engine too, through the referee), at the same
time: a fast one pinned alone to one core, and a slow one pinned to the other core beside
``--hogs`` busy processes (a real slowdown: it gets about 1 / (hogs + 1) of its core, its bench
included). Each is a fresh process that benches itself first, as a worker does at start
(``worker.speed.bench_nps``), and plays ``worker.games.play_batch`` with the payload's
``scale_time`` off, then (another repetition) on. Repetitions alternate off and on so that the
machine's load drifts over both alike.

Each move of a timed game records the nodes its engine reported, so the measure of effective
strength is the mean nodes per move: without scaling the slow worker searches less per move; with
scaling its clock is stretched by ``REFERENCE_NPS / its bench`` (the fast one's shrunk alike) and
both should search about the same. The candidate's score on each worker is shown too (few games:
a noisy measure).

    python benchmarks/time_scaling.py                          # quick: Congo at 2+0.02, 2 pairs, 2 reps
    python benchmarks/time_scaling.py --tc 5+0.05 --pairs 4 --reps 3 --hogs 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import engine
from coordinator.openings.book import default_book_path, load_book
from coordinator.sprt.config import BatchPlan, SprtConfig
from worker.games import play_batch
from worker.program_batch import BUILTIN_HASH_MB, builtin_program
from worker.programs import EngineProgram, ProgramCache, files_digest, pack
from worker.protocol import BatchPayload
from worker.speed import REFERENCE_NPS, bench_nps
from worker.tally import candidate_score

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


def play_as_worker(payload_json: str) -> dict[str, Any]:
    """What one worker process does: bench itself, then play the batch with arbiter-engine as the
    candidate program (from a program cache of its own)."""
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


def start_worker(core: int, payload: BatchPayload) -> subprocess.Popen[str]:
    """A worker process pinned to ``core``, given ``payload`` on its input."""
    argv = ["taskset", "-c", str(core), sys.executable, __file__, "--worker"]
    popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert popen.stdin is not None
    popen.stdin.write(json.dumps(payload.to_json()))
    popen.stdin.close()
    return popen


def finish(popen: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = popen.communicate(timeout=WORKER_TIMEOUT)
    if popen.returncode != 0:
        raise SystemExit(f"time_scaling: a worker failed (exit status {popen.returncode})")
    return dict(json.loads(out))


def one_round(payload: BatchPayload, hogs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The fast and the slow worker playing ``payload`` at once: (fast, slow)."""
    hog_procs = [subprocess.Popen(["taskset", "-c", "0", sys.executable, "-c", HOG]) for _ in range(hogs)]
    try:
        slow = start_worker(0, payload)
        fast = start_worker(1, payload)
        return finish(fast), finish(slow)
    finally:
        for hog in hog_procs:
            hog.kill()
            hog.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="congo", choices=engine.GAMES)
    parser.add_argument("--tc", default="2+0.02", help="time control (as --tc of arbiter sprt)")
    parser.add_argument("--pairs", type=int, default=2, help="pairs per worker and repetition")
    parser.add_argument("--reps", type=int, default=2, help="repetitions of each setting (off and on)")
    parser.add_argument("--hogs", type=int, default=1, help="busy processes beside the slow worker")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(play_as_worker(sys.stdin.read())))
        return
    if os.cpu_count() is None or (os.cpu_count() or 0) < 2:
        parser.error("needs two cores (one per worker)")
    if min(args.pairs, args.reps) < 1 or args.hogs < 0:
        parser.error("--pairs and --reps must be positive, --hogs not negative")
    try:
        engine.TimeControl.parse(args.tc)
    except ValueError as e:
        parser.error(f"--tc: {e}")
    print(f"{args.game} at {args.tc}, {args.pairs} pairs per worker, {args.hogs} busy processes by the slow")
    print(f"REFERENCE_NPS {REFERENCE_NPS:,}")
    rows: dict[bool, list[tuple[dict[str, Any], dict[str, Any]]]] = {False: [], True: []}
    for rep in range(args.reps):
        for scale in (False, True) if rep % 2 == 0 else (True, False):
            payload = payload_of(args.game, args.tc, args.pairs, seed=rep, scale=scale)
            fast, slow = one_round(payload, args.hogs)
            rows[scale].append((fast, slow))
            print(f"rep {rep} scaling {'on' if scale else 'off'}: fast {fast} slow {slow}", flush=True)
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
