"""Refs as sides of a match: a branch, tag or commit of arbiter's repository, resolved to its SHA
and bench signature, and played by the ``arbiter-engine`` each worker builds from it.

The coordinator keeps a bare mirror of each repository it is given (fetched again at each run's
start) to resolve refs and read commit messages. A commit's signature is the last ``Bench: N`` of
its message, as fishtest reads it; a commit without one is built here first and its own bench
taken (which also proves it compiles before any worker tries).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wire.masking import mask_url
from wire.programs import SHA, BuildSpec, EngineProgram
from worker.builds import FETCH_TIMEOUT, BuildCache

#: Where the coordinator keeps its mirrors of repositories (default: ~/.cache/arbiter/repos).
MIRRORS_ENV = "ARBITER_REPO_CACHE"
#: The default baseline of a commit under test, as fishtest's.
DEFAULT_BASE = "main"
#: The table size of a built engine's games (MiB).
BUILT_HASH_MB = 16
#: fishtest's reading of a commit message's signature: the last "Bench: N" (or "bench N").
BENCH_LINE = re.compile(r"\b[Bb]ench[ :]+([0-9]+)")


def bench_of_message(message: str) -> int | None:
    """The signature a commit message states (its last ``Bench: N``), as fishtest reads it."""
    found = BENCH_LINE.findall(message)
    return int(found[-1]) if found else None


def this_repository() -> str:
    """The repository arbiter itself was installed from (its checkout), the default ``--repo``."""
    here = Path(__file__).resolve().parent
    try:
        done = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except OSError:
        raise ValueError("--repo: git is not installed here") from None
    if done.returncode != 0:
        raise ValueError("--repo: arbiter is not installed from a git checkout here; name a repository")
    return done.stdout.strip()


#: Hex digits of a short SHA, as git abbreviates them.
SHORT_SHA = 7


def short_name(repo: str, sha: str) -> str:
    """``repository@sha`` as runs name a commit's engine everywhere (``arbiter@1a2b3c4``): the
    repository's last path word (of its URL with any password masked) and the short SHA."""
    name = mask_url(repo).rstrip("/").rsplit("/", 1)[-1].removesuffix(".git") or "repository"
    return f"{name}@{sha[:SHORT_SHA]}"


@dataclass(frozen=True)
class Commit:
    """A resolved ref: its repository, full SHA, the first line of its message, its bench
    signature (None when the message states none), and where it stands in the history: its
    commit time (Unix seconds) and how many commits it has, itself included (its depth)."""

    repo: str
    sha: str
    subject: str
    bench: int | None
    committed_at: int = 0
    depth: int = 0

    @property
    def short(self) -> str:
        """``repository@sha`` as runs name their engines."""
        return short_name(self.repo, self.sha)

    def record(self, ref: str) -> dict[str, Any]:
        """What a run keeps of the commit (JSON): the order of the commits it tested (the
        dashboard's regressions view) comes from these, with no repository at hand."""
        return {
            "ref": ref,
            "sha": self.sha,
            "subject": self.subject,
            "committed_at": self.committed_at,
            "depth": self.depth,
        }


def _git(mirror: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "--git-dir", str(mirror), *args],
            capture_output=True,
            text=True,
            timeout=FETCH_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ValueError(f"git {args[0]}: took longer than {FETCH_TIMEOUT} s") from None


def mirror_of(repo: str) -> Path:
    """This machine's bare mirror of ``repo``, fetched now."""
    root = Path(os.environ.get(MIRRORS_ENV) or Path.home() / ".cache" / "arbiter" / "repos")
    mirror = root / (hashlib.sha256(repo.encode()).hexdigest()[:24] + ".git")
    if not mirror.is_dir():
        root.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "init", "-q", "--bare", str(mirror)], capture_output=True, timeout=60, check=True
        )
    fetched = _git(
        mirror, "fetch", "-q", "--prune", "--", repo, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"
    )
    if fetched.returncode != 0:
        why = " ".join(fetched.stderr.split())[:300]
        raise ValueError(f"the repository {repo} cannot be fetched ({why})")
    return mirror


def resolve(repo: str, ref: str) -> Commit:
    """``ref`` of ``repo`` as a commit; ValueError when it is not one."""
    if ref.startswith("-") or not ref.strip():
        raise ValueError(f"expected a branch, tag or commit, got {ref!r}")
    mirror = mirror_of(repo)
    found = _git(mirror, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    sha = found.stdout.strip()
    if found.returncode != 0 or not SHA.match(sha):
        raise ValueError(f"{ref!r} is no branch, tag or commit of {repo}")
    message = _git(mirror, "log", "-1", "--format=%B", sha).stdout
    subject = message.strip().splitlines()[0] if message.strip() else ""
    stamp = _git(mirror, "log", "-1", "--format=%ct", sha).stdout.strip()
    depth = _git(mirror, "rev-list", "--count", sha).stdout.strip()
    return Commit(
        repo=repo,
        sha=sha,
        subject=subject[:200],
        bench=bench_of_message(message),
        committed_at=int(stamp) if stamp.isdigit() else 0,
        depth=int(depth) if depth.isdigit() else 0,
    )


def program_of(commit: Commit, game: str) -> EngineProgram:
    """The side a commit plays: arbiter-engine built from it on every worker, with its bench
    signature (its message's, else this machine's build's: which proves it compiles)."""
    signature = commit.bench
    if signature is None:
        _, signature = BuildCache().built(BuildSpec(commit.repo, commit.sha, 1))
    spec = BuildSpec(commit.repo, commit.sha, signature)
    return EngineProgram(
        name=commit.short,
        digest=spec.digest,
        command=("./arbiter-engine", "--variant", game),
        options={"Hash": BUILT_HASH_MB},
        build=spec,
    )
