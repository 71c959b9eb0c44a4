"""A worker's builds of commits (worker/builds.py), with a tiny stand-in for arbiter-engine: a crate
of that name whose ``bench`` prints the node count its source states. Real git, real cargo."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from wire.programs import BuildSpec
from worker.builds import BINARY, BUILD_PROFILE_ENV, WORKSPACE, BuildCache, BuildError, FetchError, WrongBench

MAIN = """fn main() {{
    if std::env::args().nth(1).as_deref() == Some("bench") {{
        println!("Bench: {nodes} nodes 1 nps");
    }}
}}
"""
MANIFEST = '[package]\nname = "arbiter-engine"\nversion = "0.1.0"\nedition = "2021"\n'

pytestmark = pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip()


def commit(repo: Path, main: str) -> str:
    """Commit ``main`` as the stand-in's source; the new SHA."""
    (repo / "src" / "main.rs").write_text(main)
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "x")
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(autouse=True)
def release_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in's manifest has only cargo's own profiles (CI sets another for real commits)."""
    monkeypatch.setenv(BUILD_PROFILE_ENV, "release")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository of the stand-in with its lock file (builds are ``--locked``), no commit yet."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "Cargo.toml").write_text(MANIFEST)
    (repo / "README").write_text("unchanged by every commit\n")
    (repo / "src" / "main.rs").write_text(MAIN.format(nodes=1))
    git(repo, "init", "-q")
    subprocess.run(["cargo", "generate-lockfile", "--offline"], cwd=repo, check=True, timeout=60)
    return repo


def test_commits_share_one_workspace_and_each_is_checked(repo: Path, tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    first = commit(repo, MAIN.format(nodes=42))
    second = commit(repo, MAIN.format(nodes=43))
    folder = cache.ready(BuildSpec(str(repo), first, 42))
    unchanged = tmp_path / "cache" / WORKSPACE / "src" / "README"
    written = unchanged.stat().st_mtime_ns
    assert cache.ready(BuildSpec(str(repo), second, 43)) != folder
    assert unchanged.stat().st_mtime_ns == written, "a checkout rewrites only what a commit changes"
    done = subprocess.run([str(folder / BINARY), "bench"], capture_output=True, text=True, timeout=30)
    assert done.stdout.startswith("Bench: 42 nodes"), "each commit keeps its own build"

    with pytest.raises(WrongBench, match=r"^wrong bench: expected 44 nodes, got 43$"):
        cache.ready(BuildSpec(str(repo), second, 44))


def test_a_commit_of_a_tree_built_before_takes_that_build_and_its_bench(repo: Path, tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    first = commit(repo, MAIN.format(nodes=42))
    first_folder = cache.ready(BuildSpec(str(repo), first, 42))
    git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.org",
        "commit",
        "-q",
        "--amend",
        "-m",
        "Bench: 42",
    )
    amended = git(repo, "rev-parse", "HEAD")
    assert amended != first
    shutil.rmtree(tmp_path / "cache" / WORKSPACE / "target")  # a build would have to make it again
    folder = cache.ready(BuildSpec(str(repo), amended, 42))
    assert folder != first_folder and (folder / BINARY).is_file()
    assert not (tmp_path / "cache" / WORKSPACE / "target").exists(), "nothing was built"
    with pytest.raises(WrongBench, match=r"^wrong bench: expected 7 nodes, got 42$"):
        cache.ready(BuildSpec(str(repo), amended, 7))


def test_a_commit_that_does_not_compile_is_refused_with_its_error_and_remembered(
    repo: Path, tmp_path: Path
) -> None:
    cache = BuildCache(tmp_path / "cache")
    broken = commit(repo, 'fn main() {\n    let _n: u32 = "no";\n}\n')
    with pytest.raises(BuildError, match=r"failed: error\[E0308\]: mismatched types \| +--> src/main\.rs"):
        cache.ready(BuildSpec(str(repo), broken, 1))
    shutil.rmtree(repo)  # asked again: the same error at once, nothing fetched
    with pytest.raises(BuildError, match=r"error\[E0308\]"):
        cache.ready(BuildSpec(str(repo), broken, 1))


def test_the_least_recently_used_builds_and_the_workspace_go_first(repo: Path, tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache", max_bytes=1)
    first = commit(repo, MAIN.format(nodes=42))
    second = commit(repo, MAIN.format(nodes=43))
    old = cache.ready(BuildSpec(str(repo), first, 42))
    new = cache.ready(BuildSpec(str(repo), second, 43))
    assert not old.exists() and not (tmp_path / "cache" / WORKSPACE).exists()
    assert (new / BINARY).is_file(), "the build just made stays"
    assert (cache.ready(BuildSpec(str(repo), first, 42)) / BINARY).is_file(), "and is made again"


def test_a_repository_out_of_reach_is_not_remembered(repo: Path, tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    spec = BuildSpec(str(repo), commit(repo, MAIN.format(nodes=42)), 42)
    away = repo.rename(tmp_path / "away")
    with pytest.raises(FetchError, match="git fetch failed"):
        cache.ready(spec)
    away.rename(repo)
    assert (cache.ready(spec) / BINARY).is_file(), "fetched and built once it answers"
