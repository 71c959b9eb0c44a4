"""Engines built from a commit, on the machine that plays them (fishtest's and OpenBench's unit of
work: a commit tested against its base).

A payload may name a side as a commit of arbiter's repository (:class:`BuildSpec`: the repository
URL the operator gave, the commit's SHA, and its bench signature). The worker fetches the
repository at that commit, builds ``arbiter-engine`` with cargo, and runs its ``bench`` twice at
once: both node counts must equal each other (a build whose search depends on timing or threads is
refused, as OpenBench refuses it) and the signature ("wrong bench" otherwise). Builds are cached
by commit and toolchain (a commit of a tree built before, one whose message alone changed, takes
that build and its bench), built once per machine (concurrent batches wait for the one build) in
one workspace (a checkout and a cargo target directory, so that the next commit rebuilds only the
crates it changes), and the cache is bounded on disk, least recently used first out (the
workspace too). A build or bench that fails is
remembered too: the worker refuses that commit's batches at once, and keeps serving other runs.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import logging
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from wire.programs import BUILD_TIMEOUT, BuildSpec
from worker.caches import cache_folder

#: Where a machine keeps its builds (default: ~/.cache/arbiter/builds), and how large the cache may
#: grow (MiB) before the least recently used builds go.
BUILD_CACHE_ENV = "ARBITER_BUILD_CACHE"
BUILD_CACHE_MB_ENV = "ARBITER_BUILD_CACHE_MB"
DEFAULT_CACHE_MB = 2048
#: The cargo profile builds use (release: what arbiter ships).
BUILD_PROFILE_ENV = "ARBITER_BUILD_PROFILE"
#: Bounds on fetching and benching (seconds; building: wire.programs.BUILD_TIMEOUT).
FETCH_TIMEOUT = 300
BENCH_TIMEOUT = 300
#: Compiler output quoted when a build fails.
ERROR_LINES = 8
#: The program a build makes.
BINARY = "arbiter-engine"
#: The folder of the cache where commits are checked out and built (see ``BuildCache._build``).
WORKSPACE = "workspace"
GIT = ("git", "-c", "advice.detachedHead=false")
#: ``arbiter-engine bench``'s own line.
BENCH_OUTPUT = re.compile(r"^Bench: ([0-9]+) nodes", re.MULTILINE)


log = logging.getLogger(__name__)


class BuildError(ValueError):
    """A commit that cannot be fetched or built here (the compiler's first error lines); like a
    program that cannot run here, nobody's lie."""


class WrongBench(BuildError):
    """A build whose bench is not the commit's signature, or not the same twice."""


class FetchError(BuildError):
    """A commit that could not be fetched: unlike a build's failure, not remembered (the
    repository may answer the next time)."""


@functools.cache
def toolchain() -> str:
    """This machine's Rust compiler (``rustc -V``): builds are cached per commit and toolchain."""
    try:
        done = subprocess.run(["rustc", "-V"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        raise BuildError("no Rust toolchain on this machine (rustc not found)") from None
    if done.returncode != 0:
        raise BuildError(f"rustc -V failed: {done.stderr.strip()[:200]}")
    return done.stdout.strip()


def default_build_root() -> Path:
    """Where this machine keeps builds."""
    return cache_folder(BUILD_CACHE_ENV, "builds")


def _run(argv: list[str], cwd: Path, timeout: float, what: str, env: dict[str, str] | None = None) -> str:
    """Run a step of a build; BuildError with its first error lines when it fails."""
    try:
        done = subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        raise BuildError(f"{what}: took longer than {timeout:.0f} s") from None
    except OSError as e:
        raise BuildError(f"{what}: {argv[0]} cannot run ({e.strerror})") from None
    if done.returncode != 0:
        raise BuildError(f"{what} failed: {first_errors(done.stderr or done.stdout)}")
    return done.stdout


def first_errors(output: str) -> str:
    """The compiler's first error lines (or the output's last lines), in one line."""
    lines = [line.rstrip() for line in output.splitlines() if line.strip(" |")]  # no bare gutters
    fallback = max(0, len(lines) - ERROR_LINES)
    start = next((i for i, line in enumerate(lines) if line.startswith("error")), fallback)
    return " | ".join(lines[start : start + ERROR_LINES])[:1500]


class BuildCache:
    """This machine's builds of arbiter-engine, one folder per commit and toolchain."""

    def __init__(self, root: Path | None = None, max_bytes: int | None = None) -> None:
        self.root = root or default_build_root()
        mb = int(os.environ.get(BUILD_CACHE_MB_ENV, DEFAULT_CACHE_MB))
        self.max_bytes = max_bytes if max_bytes is not None else mb << 20

    def _key(self, spec: BuildSpec) -> str:
        return f"{spec.sha}-{_toolchain_key()}"

    @contextmanager
    def _locked(self, name: str, wait: bool = True) -> Iterator[bool]:
        """Hold this machine's lock called ``name`` (one build of a commit at a time, one user of
        the workspace): the others wait for it, or, without ``wait``, go on at once with False."""
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / f"{name}.lock").open("w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def ready(self, spec: BuildSpec) -> Path:
        """The folder holding ``spec``'s built ``arbiter-engine``, its bench checked against the
        signature: built now if this machine has not built it yet. BuildError or WrongBench."""
        folder, measured = self.built(spec)
        if measured != spec.bench:
            raise WrongBench(f"wrong bench: expected {spec.bench} nodes, got {measured}")
        return folder

    def built(self, spec: BuildSpec) -> tuple[Path, int]:
        """The folder of ``spec``'s commit built here, and its bench (two at once, which must
        agree): built and benched once per machine, failures remembered (asked again, the same
        error at once)."""
        key = self._key(spec)
        folder = self.root / key
        failed = self.root / f"{key}.failed"
        with self._locked(key):
            if failed.is_file():
                self._refuse(failed.read_text())
            fresh = not (folder / "bench").is_file()
            if not fresh:
                log.info("build %s: from the cache", spec.sha[:12])
            else:
                try:
                    started = time.monotonic()
                    same = self._build(spec, folder)
                    built = time.monotonic()
                    if same is not None:
                        log.info("build %s: the tree of %s, built and benched then", spec.sha[:12], same[:12])
                    else:
                        (folder / "bench").write_text(str(agreed_bench(folder / BINARY)))
                        log.info(
                            "build %s: fetched and built in %.1f s, benched in %.1f s",
                            spec.sha[:12],
                            built - started,
                            time.monotonic() - built,
                        )
                except BuildError as e:
                    shutil.rmtree(folder, ignore_errors=True)
                    if not isinstance(e, FetchError):
                        failed.write_text(f"{type(e).__name__}\n{e}")
                    raise
            os.utime(folder)  # most recently used
            measured = int((folder / "bench").read_text())
        if fresh:  # only a build makes the cache grow
            self._evict(keep=folder)
        return folder, measured

    @staticmethod
    def _refuse(text: str) -> None:
        kind, _, message = text.partition("\n")
        raise (WrongBench if kind == "WrongBench" else BuildError)(message)

    def _build(self, spec: BuildSpec, folder: Path) -> str | None:
        """Fetch the commit into this machine's workspace and build arbiter-engine into ``folder``;
        or, when this machine has built and benched another commit of the same tree (the same
        files: a commit whose message alone was amended, to add its ``Bench:`` line say), copy
        that build and its bench into ``folder`` and return that commit's folder name.

        The workspace (one checkout and one cargo target directory, shared by every build here,
        one build at a time) is what makes a second commit cheap: checking it out rewrites only
        the files it changes, so cargo rebuilds only the crates they belong to."""
        workspace = self.root / WORKSPACE
        with self._locked(WORKSPACE):
            source = workspace / "src"
            if not (source / ".git").is_dir():
                shutil.rmtree(workspace, ignore_errors=True)
                source.mkdir(parents=True)
                _run([*GIT, "init", "-q"], source, FETCH_TIMEOUT, "git init")
            for stale in ("index.lock", "shallow.lock"):  # left by a git killed with its worker
                (source / ".git" / stale).unlink(missing_ok=True)
            try:
                self._fetch(spec, source)
            except BuildError as e:
                raise FetchError(str(e)) from None
            _run([*GIT, "clean", "-q", "-d", "-x", "--force"], source, FETCH_TIMEOUT, "git clean")
            profile = os.environ.get(BUILD_PROFILE_ENV, "release")
            tree = _run([*GIT, "rev-parse", f"{spec.sha}^{{tree}}"], source, FETCH_TIMEOUT, "git rev-parse")
            link = self.root / f"tree-{tree.strip()}-{_toolchain_key()}-{profile}"
            if (same := self._same_tree(link, folder)) is not None:
                return same
            env = {**os.environ, "CARGO_TARGET_DIR": str(workspace / "target")}
            command = ["cargo", "build", "--quiet", "--locked", "--profile", profile, "-p", BINARY]
            _run(command, source, BUILD_TIMEOUT, f"building {spec.sha[:12]}", env=env)
            folder.mkdir(parents=True, exist_ok=True)
            built = workspace / "target" / ("debug" if profile == "dev" else profile) / BINARY
            shutil.copy2(built, folder / BINARY)
            link.write_text(folder.name)  # whose bench built() takes next (a failed one is removed)
            os.utime(workspace)  # most recently used
        return None

    def _same_tree(self, link: Path, folder: Path) -> str | None:
        """Copy the build and bench that ``link`` names (a build of the same tree) into
        ``folder``: the name of its folder, or None where there is none (never built, evicted,
        its bench failed)."""
        try:
            same = self.root / link.read_text()
            if not (same / "bench").is_file():
                return None
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copy2(same / BINARY, folder / BINARY)
            shutil.copy2(same / "bench", folder / "bench")
        except OSError:
            shutil.rmtree(folder, ignore_errors=True)
            return None
        return same.name

    @staticmethod
    def _fetch(spec: BuildSpec, source: Path) -> None:
        """Check ``spec``'s commit out in ``source``, rewriting only the files it changes."""
        try:
            fetch = [*GIT, "fetch", "-q", "--depth", "1", "--", spec.repo, spec.sha]
            _run(fetch, source, FETCH_TIMEOUT, "git fetch")
        except BuildError:  # a server that serves no commit by its SHA: all of it, then the commit
            every = [*GIT, "fetch", "-q", "--", spec.repo, "+refs/*:refs/remotes/origin/*"]
            _run(every, source, FETCH_TIMEOUT, "git fetch")
        checkout = [*GIT, "checkout", "-q", "--force", "--detach", spec.sha]
        _run(checkout, source, FETCH_TIMEOUT, f"git checkout {spec.sha[:12]}")

    def _evict(self, keep: Path) -> None:
        """The least recently used go until the cache fits its bound: builds, and the workspace
        when no build is using it (the next build then starts from scratch)."""
        entries = [p for p in self.root.iterdir() if p.is_dir()]
        sizes = {p: sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) for p in entries}
        total = sum(sizes.values())
        for path in sorted(entries, key=lambda p: p.stat().st_mtime):
            if total <= self.max_bytes:
                break
            if path == keep:
                continue
            if path.name == WORKSPACE:
                with self._locked(WORKSPACE, wait=False) as free:
                    if not free:
                        continue
                    shutil.rmtree(path, ignore_errors=True)
            else:
                shutil.rmtree(path, ignore_errors=True)
            total -= sizes[path]


def _toolchain_key() -> str:
    return hashlib.sha256(toolchain().encode()).hexdigest()[:12]


def bench(binary: Path) -> int:
    """The node count ``binary bench`` prints; WrongBench when it prints none."""
    try:
        argv = [str(binary), "bench"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=BENCH_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise WrongBench(f"bench did not run: {e}") from None
    found = BENCH_OUTPUT.search(done.stdout)
    if done.returncode != 0 or found is None:
        raise WrongBench(f"bench printed no signature (exit status {done.returncode})")
    return int(found.group(1))


def agreed_bench(binary: Path) -> int:
    """The bench of two runs at once, which must agree (else the build is non-deterministic)."""
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(bench, [binary, binary])
    if first != second:
        raise WrongBench(f"non-deterministic build: two benches gave {first} and {second} nodes")
    return first
