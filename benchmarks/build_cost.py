"""What testing commits costs before the games: builds of arbiter-engine from a repository.

A bare clone of this checkout serves as ``--repo``. Two commits are made in it with the trees of
HEAD and HEAD~1 and a ``Bench:`` line each (the signature of the installed arbiter-engine, which
both trees must print: the coordinator then builds nothing itself, and every build is a worker's).
Then:

1. **Build time**: each ``--profiles`` profile (``ARBITER_BUILD_PROFILE``) builds the candidate
   commit into an empty build cache (``worker.builds.BuildCache``: fetch, cargo build, two benches
   at once), and the built program's own bench speed is taken.
2. **A run, cold and warm**: ``arbiter sprt --candidate-ref --baseline-ref --repo`` on the local
   pool, first with empty build and mirror caches, then again (a new store) with the caches it
   left. The time from starting the command to the first counted game (batch 0's result in the
   store, polled) and to the end; the builds and the cache's hits over the run, from the worker
   processes' own log lines (``worker.builds`` logs each build and each hit).

    python benchmarks/build_cost.py                              # release, a 32-game run
    python benchmarks/build_cost.py --profiles release,PROFILE --max-games 64   # PROFILE: one of Cargo.toml
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from coordinator.sides.refs import MIRRORS_ENV
from wire.programs import BuildSpec
from worker.builds import BUILD_CACHE_ENV, BUILD_PROFILE_ENV, BuildCache, bench
from worker.program_batch import builtin_program

ROOT = Path(__file__).resolve().parent.parent
#: Set for the command's processes (the local pool's children run this file again as their main
#: module, so they log too): where ``worker.builds`` writes its lines.
LOG_ENV = "ARBITER_BUILD_COST_LOG"
if os.environ.get(LOG_ENV):
    logging.basicConfig(
        filename=os.environ[LOG_ENV], level=logging.INFO, format="%(process)d %(name)s %(message)s"
    )
#: Bounds on the run and its first game (seconds): bounds, never synchronisation.
RUN_TIMEOUT = 3600
#: How often the store is looked at for the first result.
POLL_S = 0.05
BUILT = re.compile(r"build ([0-9a-f]+): fetched and built in ([0-9.]+) s, benched in ([0-9.]+) s")


def git(*args: str, cwd: Path | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost"}
    env |= {"GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"build_cost: git {args[0]} failed: {done.stderr.strip()[:300]}")
    return done.stdout.strip()


def make_repo(folder: Path, signature: int) -> tuple[str, str]:
    """A bare clone of this checkout with two commits (HEAD's and HEAD~1's trees) carrying
    ``signature``, as branches build-cost-candidate and build-cost-baseline: (repository path,
    the candidate's SHA)."""
    repo = folder / "repo.git"
    git("clone", "-q", "--bare", str(ROOT), str(repo))
    shas = []
    for name, ref in (("candidate", "HEAD"), ("baseline", "HEAD~1")):
        message = f"build_cost: the tree of {ref}, as the {name}\n\nBench: {signature}"
        sha = git("--git-dir", str(repo), "commit-tree", f"{ref}^{{tree}}", "-p", ref, "-m", message)
        git("--git-dir", str(repo), "update-ref", f"refs/heads/build-cost-{name}", sha)
        shas.append(sha)
    return str(repo), shas[0]


def build_times(repo: str, sha: str, signature: int, profiles: list[str], folder: Path) -> None:
    """Per profile: a build of ``sha`` into an empty cache (seconds), and its program's bench."""
    print("| profile | fetch + build s | two benches s | total s | bench nodes/s of the build |")
    print("|---|---|---|---|---|")
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger = logging.getLogger("worker.builds")
    logger.addHandler(handler := Keep())
    logger.setLevel(logging.INFO)
    try:
        for profile in profiles:
            os.environ[BUILD_PROFILE_ENV] = profile
            started = time.monotonic()
            built, _ = BuildCache(folder / f"builds-{profile}").built(BuildSpec(repo, sha, signature))
            total = time.monotonic() - started
            found = BUILT.search(records[-1]) if records else None
            build_s, bench_s = (float(found.group(2)), float(found.group(3))) if found else (total, 0.0)
            output = subprocess.run(
                [str(built / "arbiter-engine"), "bench"], capture_output=True, text=True, check=False
            ).stdout
            nps = re.search(r"^Bench: [0-9]+ nodes ([0-9]+) nps", output, re.MULTILINE)
            speed = f"{int(nps.group(1)):,}" if nps else "?"
            print(f"| {profile} | {build_s:.1f} | {bench_s:.1f} | {total:.1f} | {speed} |", flush=True)
    finally:
        logger.removeHandler(handler)
        os.environ.pop(BUILD_PROFILE_ENV, None)


def first_result(db: Path, popen: subprocess.Popen[bytes], started: float) -> float | None:
    """Seconds from ``started`` until batch 0's result is in the store (None: the command ended
    without one)."""
    deadline = started + RUN_TIMEOUT
    while time.monotonic() < deadline:
        if db.exists():
            try:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as c:
                    row = c.execute("SELECT 1 FROM results WHERE batch_index = 0").fetchone()
                if row is not None:
                    return time.monotonic() - started
            except sqlite3.OperationalError:
                pass  # the store is being created
        if popen.poll() is not None:
            return None
        time.sleep(POLL_S)
    raise SystemExit("build_cost: no counted game within the bound")


def run(label: str, argv: list[str], db: Path, log: Path, env: dict[str, str]) -> None:
    """One ``arbiter sprt`` run: time to the first counted game and to the end, builds and hits."""
    log.write_text("")
    started = time.monotonic()
    popen = subprocess.Popen([*argv, "--store", f"sqlite:///{db}"], env={**env, LOG_ENV: str(log)})
    first = first_result(db, popen, started)
    code = popen.wait(timeout=RUN_TIMEOUT)
    total = time.monotonic() - started
    if code != 0 or first is None:
        raise SystemExit(f"build_cost: the {label} run failed (exit status {code})")
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        (batches,) = c.execute("SELECT COUNT(*) FROM results").fetchone()
    lines = log.read_text().splitlines()
    builds = sum("fetched and built" in line for line in lines)
    hits = sum("from the cache" in line for line in lines)
    rate = hits / (hits + builds) if hits + builds else 0.0
    print(f"| {label} | {first:.1f} | {total:.1f} | {batches} | {builds} | {hits} | {rate:.1%} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--profiles", default="release", help="comma-separated cargo profiles to build with")
    parser.add_argument("--max-games", type=int, default=32, help="games of each run")
    parser.add_argument("--batch-pairs", type=int, default=2)
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=2, help="local pool processes")
    parser.add_argument("--no-runs", action="store_true", help="only the build times")
    args = parser.parse_args()
    if min(args.max_games, args.batch_pairs, args.nodes, args.concurrency) < 1:
        parser.error("--max-games, --batch-pairs, --nodes and --concurrency must be positive")
    if shutil.which("cargo") is None or shutil.which("git") is None:
        parser.error("needs cargo and git")
    signature = bench(Path(builtin_program()))
    print(f"signature {signature} (the installed arbiter-engine's bench); load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        repo, candidate = make_repo(folder, signature)
        build_times(repo, candidate, signature, [p for p in args.profiles.split(",") if p], folder)
        if args.no_runs:
            return
        argv = [
            sys.executable, __file__, "--cli",
            "sprt", "congo", "--candidate-ref", "build-cost-candidate", "--baseline-ref",
            "build-cost-baseline", "--repo", repo, "--nodes", str(args.nodes), "--max-games",
            str(args.max_games), "--batch-pairs", str(args.batch_pairs), "--concurrency",
            str(args.concurrency), "--seed", "1", "--elo0", "-50", "--elo1", "50", "--alpha", "0.001",
            "--beta", "0.001",
        ]  # fmt: skip
        env = {**os.environ, BUILD_CACHE_ENV: str(folder / "run-builds"), MIRRORS_ENV: str(folder / "repos")}
        print()
        print(
            "| run | s to the first counted game | s to the end | batches | builds | cache hits | hit rate |"
        )
        print("|---|---|---|---|---|---|---|")
        run("cold caches", argv, folder / "cold.db", folder / "cold.log", env)
        run("warm caches", argv, folder / "warm.db", folder / "warm.log", env)


def cli() -> None:
    """``arbiter`` itself, in a process whose log lines go to ``LOG_ENV``'s file."""
    from coordinator.cli.main import main as arbiter

    arbiter.main(sys.argv[2:], prog_name="arbiter")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--cli"]:
        cli()
    else:
        main()
