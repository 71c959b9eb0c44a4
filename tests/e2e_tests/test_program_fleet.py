"""An engine program on a fleet: an SPRT of an engine file (arbiter-engine, from a folder only the
coordinator has) against the built-in engine, over Celery, on workers in other network namespaces
whose program caches start empty. Each worker fetches the program from the result backend, checks
its digest and plays; the run ends with exactly the counts of the same run on the local pool, and
the workers hold it, by digest, in their caches afterwards. The fleet has keys: the coordinator
signs the payloads that name the program, each worker holds only its own credential."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from celery_testkit import START_TIMEOUT, redis_server_path, wait_until
from engine_testkit import arbiter_engine_file
from netns_testkit import HostWorker, Network, log_text
from sprt_testkit import cli_command, run_cli, status_json

from coordinator.sides.files import read_program
from wire.sealing import FleetKeys

RUN_ARGS = ("--seed", "9", "--nodes", "400", "--batch-pairs", "2", "--max-games", "32")
SPRT_ARGS = ("--elo0", "-50", "--elo1", "50", "--alpha", "0.001", "--beta", "0.001")
RUN_TIMEOUT = 240.0
REDIS_PORT = 6379


def status(db: Path) -> dict[str, Any]:
    return status_json(f"sqlite:///{db}", 1)


def test_a_program_shipped_to_workers_that_never_had_it(network: Network, tmp_path: Path) -> None:
    assert redis_server_path() is not None
    net = network
    candidate = arbiter_engine_file(tmp_path / "only-here", options="congo_pawn = 150\n")
    program, _ = read_program(str(candidate))
    files = ("--candidate", str(candidate))
    local = tmp_path / "local.db"
    done = run_cli("sprt", "congo", *files, *RUN_ARGS, *SPRT_ARGS, "--store", f"sqlite:///{local}")
    assert done.returncode == 0, done.stderr
    expected = status(local)

    password = secrets.token_hex(8)
    broker = f"redis://:{password}@{net.hub_address}:{REDIS_PORT}/0"
    redis_argv = [str(redis_server_path()), "--bind", net.hub_address, "--port", str(REDIS_PORT)]
    redis_argv += ["--requirepass", password, "--save", "", "--appendonly", "no", "--dir", str(tmp_path)]
    net.popen(None, redis_argv, tmp_path / "redis.log")
    cli = ["redis-cli", "-h", net.hub_address, "-p", str(REDIS_PORT), "--no-auth-warning", "-a", password]
    wait_until(lambda: net.run(None, [*cli, "ping"]).strip() == "PONG", START_TIMEOUT, "redis-server")

    master = secrets.token_hex(32)
    keys = FleetKeys(master.encode())
    caches = {}
    workers = []
    for number, host in enumerate(("h1", "h2"), 1):
        net.add_host(host, number)
        caches[host] = tmp_path / f"cache-{host}"
        env = {
            "ARBITER_WORKER_KEY": keys.credential(f"worker@{host}"),
            "ARBITER_PROGRAM_CACHE": str(caches[host]),
        }
        workers.append(HostWorker(net, host, broker, tmp_path, extra_env=env))
    for worker in workers:
        worker.wait_ready()
    assert not any(cache.exists() for cache in caches.values()), "the workers never had the program"

    db = tmp_path / "fleet.db"
    log = tmp_path / "coordinator.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARBITER_")}
    env["ARBITER_SECRET"] = master
    argv = cli_command("sprt", "congo", *files, *RUN_ARGS, *SPRT_ARGS, "--broker", broker)
    process = net.popen(None, [*argv, "--store", f"sqlite:///{db}"], log, env=env)
    process.wait(timeout=RUN_TIMEOUT)
    assert process.returncode == 0, log_text(log)[-3000:]

    final = status(db)
    for key in ("state", "pentanomial", "wdl", "games", "counted_batches", "decision"):
        assert final[key] == expected[key], (key, final[key], expected[key])
    played = {w.host for w in workers if "succeeded" in w.output()}
    assert played == {"h1", "h2"}, [w.output()[-2000:] for w in workers]
    for host in played:
        assert (caches[host] / program.digest / "arbiter-engine").is_file(), host
    assert password not in log_text(log) and master not in log_text(log)
