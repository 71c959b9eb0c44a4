"""How long a worker takes to make a commit ready to play (fetch, cargo build, two benches at once):
the ``release`` profile against ``refbuild``, for a first commit in an empty build cache and for a
second commit (one search constant changed) built after it in the same workspace; and how long the
two benches alone take (run again on the second build).

    python benchmarks/builds.py        # four builds of arbiter-engine: minutes on 2 cores

The repository is made of this checkout's tracked files, as the fleet test makes it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from wire.programs import BuildSpec
from worker.builds import BINARY, BUILD_PROFILE_ENV, BuildCache, agreed_bench

ROOT = Path(__file__).resolve().parents[1]
PARAMS = Path("engine/rust/core/src/params.rs")
#: Commit B's one change: the futility margin (the row's columns: default, min, max).
CHANGE = ('futility_margin = (74, 0, 2000, "', 'futility_margin = (100, 0, 2000, "')
PROFILES = ("release", "refbuild")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip()


def commit(work: Path, message: str) -> str:
    git(work, "add", "-A")
    git(work, "-c", "user.name=bench", "-c", "user.email=bench@example.org", "commit", "-q", "-m", message)
    return git(work, "rev-parse", "HEAD")


def repository(work: Path) -> tuple[str, str]:
    """A repository of the tracked files in ``work``: commit A as they are, B with one change."""
    for name in filter(None, git(ROOT, "ls-files", "-z").split("\0")):
        if (ROOT / name).is_file():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, work / name)
    git(work, "init", "-q")
    first = commit(work, "A")
    text = (work / PARAMS).read_text()
    if CHANGE[0] not in text:
        raise SystemExit(f"{PARAMS} no longer has {CHANGE[0]!r}: update CHANGE")
    (work / PARAMS).write_text(text.replace(*CHANGE, 1))
    return first, commit(work, "B")


def seconds_to_ready(cache: BuildCache, spec: BuildSpec) -> tuple[float, Path]:
    started = time.perf_counter()
    folder, _ = cache.built(spec)
    return time.perf_counter() - started, folder


def seconds_to_bench(folder: Path) -> float:
    started = time.perf_counter()
    agreed_bench(folder / BINARY)
    return time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "repo"
        first, second = repository(work)
        rows = []
        for profile in PROFILES:
            os.environ[BUILD_PROFILE_ENV] = profile
            cache = BuildCache(Path(tmp) / profile)
            a, _ = seconds_to_ready(cache, BuildSpec(str(work), first, 1))
            b, folder = seconds_to_ready(cache, BuildSpec(str(work), second, 1))
            rows.append((profile, a, b, seconds_to_bench(folder)))
    base = rows[0][1]
    print("| profile | first commit, empty cache | second commit, same workspace | of which two benches |")
    print("|---|---|---|---|")
    for profile, a, b, benches in rows:
        print(f"| {profile} | {a:.0f} s ({a / base:.2f}) | {b:.0f} s ({b / base:.2f}) | {benches:.0f} s |")


if __name__ == "__main__":
    main()
