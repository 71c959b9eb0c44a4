"""A real ``arbiter server`` process for the tests: started on a free loopback port, asked through
its API, killed with SIGKILL or stopped with SIGTERM, its runs' processes watched.

Not a test module; importable from every test folder because ``tests`` is on pytest's pythonpath.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from celery_testkit import free_port, wait_until
from process_testkit import descendants
from sprt_testkit import cli_command

#: Bound on a server's start and stop (seconds).
START_WAIT = 60.0
#: Bound on a request.
REQUEST_TIMEOUT = 60.0


class ServerProcess:
    """One ``arbiter server`` on ``store`` (and ``broker``), in ``directory``."""

    def __init__(
        self,
        directory: Path,
        store: str,
        broker: str | None = None,
        name: str = "s1",
        env: dict[str, str] | None = None,
        args: tuple[str, ...] = (),
        port: int | None = None,
    ) -> None:
        self.directory = directory
        self.store = store
        self.broker = broker
        self.name = name
        self.env = env or {}
        self.args = args
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = directory / f"server-{name}.log"
        self.logs = directory / f"logs-{name}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        """Start it and wait until its API answers."""
        argv = [*cli_command("server"), "--store", self.store, "--port", str(self.port)]
        argv += ["--name", self.name, "--logs", str(self.logs), *self.args]
        if self.broker is not None:
            argv += ["--broker", self.broker]
        environment = {k: v for k, v in os.environ.items() if k not in ("ARBITER_STORE", "ARBITER_BROKER")}
        environment.update(self.env)
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, env=environment, cwd=self.directory
            )
        wait_until(self._answers, START_WAIT, f"arbiter server {self.name} to answer")
        return self

    def _answers(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"arbiter server exited ({self.process.returncode}):\n{self.output()}")
        try:
            self.get("/api/v1")
            return True
        except OSError:
            return False

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def run_processes(self) -> list[int]:
        """The processes the server started (its runs' and their pools')."""
        return descendants(self.process.pid) if self.process is not None else []

    def kill(self) -> list[int]:
        """``kill -9`` the server; the processes it had started, for the caller to watch."""
        assert self.process is not None
        started = self.run_processes()
        self.process.kill()
        self.process.wait(START_WAIT)
        return started

    def stop(self) -> None:
        """SIGTERM, and wait for it to end."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(START_WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    # the API --------------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None, data: bytes | None = None) -> tuple[int, Any]:
        """The status and the JSON answer of a request (errors too)."""
        headers = {}
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        token = self.env.get("ARBITER_SERVER_TOKEN")
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as answer:
                return answer.status, json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def get(self, path: str) -> Any:
        status, answer = self.request("GET", path)
        assert status == 200, (status, answer)
        return answer

    def run(self, run_id: int) -> dict[str, Any]:
        found: dict[str, Any] = self.get(f"/api/v1/runs/{run_id}")["run"]
        return found

    def wait_state(self, run_id: int, states: tuple[str, ...], timeout: float) -> dict[str, Any]:
        """The run once it is in one of ``states``."""
        found: dict[str, Any] = wait_until(
            lambda: row if (row := self.run(run_id))["state"] in states else None,
            timeout,
            f"run {run_id} to be {' or '.join(states)}",
            interval=0.2,
        )
        return found


def gone(pids: list[int]) -> bool:
    """True once none of ``pids`` runs (zombies count as gone)."""
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    return False
        except (FileNotFoundError, ProcessLookupError):
            continue
    return True
