"""Commits as sides on a fleet (issue 21): a bare repository made from this project's tracked files,
served by ``git daemon`` in the hub namespace to two Celery workers in other namespaces, each with
its own empty build cache.

Commit A (main) states no bench, so the coordinator's own build defines its signature; commit B
(feature) differs in one search constant and states the bench the test measured by building it.
Both build on both workers (benches checked there), and an SPRT between them over Celery counts
exactly what the same run on the local pool counts. A commit whose ``Bench:`` line is wrong is
refused with "wrong bench" by every worker and the run fails saying so, with no game counted; a
commit that does not compile fails its run with the compiler's first error lines; and the
workers go on serving a normal run after both.

Builds use the cheap ``refbuild`` profile, and each machine's cache keeps one checkout and one
cargo target (its workspace), so each machine builds from scratch once and the other commits
only rebuild what they change; B signed and B signed wrong have B's files, and take its build.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from celery_testkit import START_TIMEOUT, redis_server_path, wait_until
from netns_testkit import HostWorker, Network, log_text
from sprt_testkit import cli_command, run_cli, status_json

from wire.programs import BuildSpec
from wire.sealing import FleetKeys
from worker.builds import BINARY, BuildCache

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PARAMS = Path("engine/rust/core/src/params.rs")
#: Commit B's one change: futility pruning at the horizon off (its margin 0), which changes moves
#: at a few hundred nodes (late-move reductions, say, would not: they need more depth).
CONSTANT = ('futility_margin = (74, 0, 2000, "', 'futility_margin = (0, 0, 2000, "')
BROKEN = Path("engine/rust/uci/src/main.rs")
#: At 1,000 nodes the two commits play decisive games (at a few hundred, mostly repetitions).
RUN_ARGS = ("--seed", "9", "--nodes", "1000", "--batch-pairs", "2", "--max-games", "16")
SPRT_ARGS = ("--elo0", "-50", "--elo1", "50", "--alpha", "0.001", "--beta", "0.001")
PROFILE = "refbuild"
REDIS_PORT = 6379
GIT_PORT = 9418
#: Bound on one command, builds included (seconds).
RUN_TIMEOUT = 600.0


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip()


def commit(work: Path, message: str, *options: str) -> str:
    """Commit everything in ``work`` (with ``options``, e.g. ``--amend``); the new SHA."""
    git(work, "add", "-A")
    git(
        work,
        "-c",
        "user.name=test",
        "-c",
        "user.email=t@example.org",
        "commit",
        "-q",
        *options,
        "-m",
        message,
    )
    return git(work, "rev-parse", "HEAD")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path} no longer has {old!r}"
    path.write_text(text.replace(old, new, 1))


def make_repository(tmp_path: Path, coordinator_cache: Path) -> tuple[Path, dict[str, str], int]:
    """The bare repository (in ``tmp_path/git``), its commits by branch, and the bench of B that
    the test measured (building B without a signature in the coordinator's cache first)."""
    work = tmp_path / "work"
    tracked = git(ROOT, "ls-files", "-z").split("\0")
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, work / name)
    git(work, "init", "-q", "-b", "main")
    shas = {"main": commit(work, "A: the engine as it is")}
    git(work, "checkout", "-q", "-b", "feature")
    edit(work / PARAMS, *CONSTANT)
    unsigned = commit(work, "B: no futility pruning")
    _, bench_b = BuildCache(coordinator_cache).built(BuildSpec(str(work), unsigned, 1))
    shas["feature"] = commit(work, f"B: no futility pruning\n\nBench: {bench_b}", "--amend")
    git(work, "checkout", "-q", "-b", "wrong")
    shas["wrong"] = commit(work, "B again, signed wrong\n\nBench: 12345", "--allow-empty")
    git(work, "checkout", "-q", "-b", "broken", "main")
    with (work / BROKEN).open("a") as source:
        source.write('\nfn broken() -> u32 {\n    "not a number"\n}\n')
    shas["broken"] = commit(work, "does not compile\n\nBench: 1")
    bare = tmp_path / "git" / "arbiter.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    for branch in shas:
        assert git(bare, "rev-parse", branch) == shas[branch]
    return bare.parent, shas, bench_b


def status(db: Path) -> dict[str, Any]:
    return status_json(f"sqlite:///{db}", 1)


def sprt(
    net: Network, tmp_path: Path, env: Mapping[str, str], name: str, *args: str
) -> tuple[int, str, Path]:
    """Run ``arbiter sprt congo ARGS`` in the hub with a store of its own, ``NAME.db`` (bounded):
    its exit status, its output and its store."""
    db = tmp_path / f"{name}.db"
    log = tmp_path / f"{name}.log"
    process = net.popen(None, cli_command("sprt", "congo", *args, "--store", f"sqlite:///{db}"), log, env=env)
    process.wait(timeout=RUN_TIMEOUT)
    return process.returncode, log_text(log), db


def plays_differently(db: Path) -> bool:
    """Whether a pair of games of a run differs in its moves: the same engine on both sides
    plays a pair's second game as the first, colours reversed."""
    done = run_cli("games", "1", "--format", "jsonl", "--store", f"sqlite:///{db}")
    assert done.returncode == 0, done.stderr
    moves = [json.loads(line)["record"]["moves"] for line in done.stdout.splitlines()]
    return any(first != second for first, second in zip(moves[::2], moves[1::2], strict=True))


def refusers(db: Path) -> set[str]:
    """The workers with an answer refused in a run, from its refusal log (a batch's own record keeps
    only its last refusal, so two workers refusing one batch would show as one)."""
    done = run_cli("report", "1", "--json", "--store", f"sqlite:///{db}")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["workers"]["workers"]
    return {row["worker"] for row in rows if row["refused"] > 0}


def built_benches(cache: Path) -> dict[str, int]:
    """The commits a build cache holds, with their benches."""
    return {
        p.name[:40]: int((p / "bench").read_text())
        for p in cache.iterdir()
        if p.is_dir() and (p / BINARY).is_file() and (p / "bench").is_file()
    }


def test_commits_built_and_checked_on_every_worker(
    network: Network, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert redis_server_path() is not None
    net = network
    coordinator_cache = tmp_path / "builds-coordinator"
    with monkeypatch.context() as patched:
        patched.setenv("ARBITER_BUILD_PROFILE", PROFILE)  # the test's own build of B
        served, shas, bench_b = make_repository(tmp_path, coordinator_cache)

    password = secrets.token_hex(8)
    broker = f"redis://:{password}@{net.hub_address}:{REDIS_PORT}/0"
    redis_argv = [str(redis_server_path()), "--bind", net.hub_address, "--port", str(REDIS_PORT)]
    redis_argv += ["--requirepass", password, "--save", "", "--appendonly", "no", "--dir", str(tmp_path)]
    net.popen(None, redis_argv, tmp_path / "redis.log")
    daemon = ["git", "daemon", "--export-all", "--reuseaddr", f"--base-path={served}"]
    daemon += [f"--listen={net.hub_address}", f"--port={GIT_PORT}", str(served)]
    net.popen(None, daemon, tmp_path / "git-daemon.log")
    repo = f"git://{net.hub_address}:{GIT_PORT}/arbiter.git"
    cli = ["redis-cli", "-h", net.hub_address, "-p", str(REDIS_PORT), "--no-auth-warning", "-a", password]
    wait_until(lambda: net.run(None, [*cli, "ping"]).strip() == "PONG", START_TIMEOUT, "redis-server")
    wait_until(lambda: shas["main"] in net.run(None, ["git", "ls-remote", repo]), START_TIMEOUT, "git daemon")

    master = secrets.token_hex(32)
    keys = FleetKeys(master.encode())
    caches = {host: tmp_path / f"builds-{host}" for host in ("h1", "h2")}
    workers = []
    for number, host in enumerate(caches, 1):
        net.add_host(host, number)
        env = {
            "ARBITER_WORKER_KEY": keys.credential(f"worker@{host}"),
            "ARBITER_BUILD_CACHE": str(caches[host]),
            "ARBITER_BUILD_PROFILE": PROFILE,
        }
        workers.append(HostWorker(net, host, broker, tmp_path, extra_env=env))
    for worker in workers:
        worker.wait_ready()
    assert not any(cache.exists() for cache in caches.values()), "the workers start with no build"

    env = {k: v for k, v in os.environ.items() if not k.startswith("ARBITER_")}
    env |= {
        "ARBITER_BUILD_CACHE": str(coordinator_cache),
        "ARBITER_BUILD_PROFILE": PROFILE,
        "ARBITER_REPO_CACHE": str(tmp_path / "mirrors"),
    }
    fleet_env = env | {"ARBITER_SECRET": master}
    on_fleet = ("--broker", broker)

    def refs(candidate: str) -> tuple[str, ...]:
        return ("--repo", repo, "--candidate-ref", candidate, "--baseline-ref", "main", *SPRT_ARGS)

    code, out, local = sprt(net, tmp_path, env, "local", *refs("feature"), *RUN_ARGS)
    assert code == 0, out[-3000:]
    expected = status(local)
    assert expected["games"] == 16 and expected["state"] == "finished"
    benches = built_benches(coordinator_cache)
    bench_a = benches[shas["main"]]  # the coordinator's own build defined A's signature
    assert benches[shas["feature"]] == bench_b != bench_a, "the constant changes the search"
    assert plays_differently(local), "B plays other moves than A"
    assert expected["wdl"][1] < expected["games"], "decisive games: equal counts below mean something"

    code, out, fleet = sprt(net, tmp_path, fleet_env, "fleet", *refs("feature"), *RUN_ARGS, *on_fleet)
    assert code == 0, out[-3000:]
    final = status(fleet)
    for key in ("state", "pentanomial", "wdl", "games", "counted_batches", "decision"):
        assert final[key] == expected[key], (key, final[key], expected[key])
    name = f"arbiter@{shas['feature'][:7]} (feature)"
    assert final["candidate"] == {"name": name, "repo": repo, "sha": shas["feature"]}
    assert final["baseline"]["sha"] == shas["main"]
    shown = run_cli("status", "1", "--store", f"sqlite:///{fleet}").stdout
    assert f"candidate: {name} from {repo}" in shown, shown
    played = {w.host for w in workers if "succeeded" in w.output()}
    assert played == {"h1", "h2"}, [w.output()[-2000:] for w in workers]
    for host, cache in caches.items():
        built = built_benches(cache)
        assert built == {shas["main"]: bench_a, shas["feature"]: bench_b}, (host, built)

    code, out, wrong = sprt(net, tmp_path, fleet_env, "wrong", *refs("wrong"), *RUN_ARGS, *on_fleet)
    assert code == 1 and f"wrong bench: expected 12345 nodes, got {bench_b}" in out, out[-3000:]
    refused = status(wrong)
    assert refused["state"] == "failed" and refused["games"] == 0, refused
    assert "wrong bench" in refused["error"], refused["error"]
    assert refusers(wrong) == {"worker@h1", "worker@h2"}, refused["refused"]

    code, out, broken = sprt(net, tmp_path, fleet_env, "broken", *refs("broken"), *RUN_ARGS, *on_fleet)
    assert code == 1, out[-3000:]
    failed = status(broken)
    assert failed["state"] == "failed" and failed["games"] == 0, failed
    first_error = r"error\[E0308\]: mismatched types .*engine/rust/uci/src/main\.rs"
    assert re.search(first_error, failed["error"]), failed["error"]

    few = ("--seed", "10", "--nodes", "1000", "--batch-pairs", "2", "--max-games", "8")
    code, out, again = sprt(net, tmp_path, fleet_env, "again", *refs("feature"), *few, *on_fleet)
    assert code == 0, out[-3000:]
    assert status(again)["games"] == 8
    for worker in workers:
        assert worker.process.poll() is None, worker.output()[-2000:]
        wait_until(lambda w=worker: not w.playing(), START_TIMEOUT, f"the worker on {worker.host} to be idle")
    for log in tmp_path.glob("*.log"):
        assert password not in log_text(log) and master not in log_text(log), log
