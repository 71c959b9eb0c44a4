"""Hosts for the multi-host tests: Linux network namespaces joined by veth pairs to one bridge.

Not a test module; importable from every test folder because ``tests`` is on pytest's pythonpath.

The network exists only inside namespaces made here: the hub namespace holds a bridge with the
hub's address (where Redis and the coordinator run) and one veth end per host; each host namespace
holds the other end (``eth0``) with its own address. No namespace has a default route and no
address of the private range is put in the machine's own namespace, so nothing sent in these tests
can leave them. Interface names are local to their namespaces (each veth pair is created directly
in its two namespaces), so several test sessions on one machine do not collide; namespace names
carry this process's id. Every process started in a namespace leads its own process group and is
killed, and every namespace deleted, by :meth:`Network.close`, whatever happened before.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from subprocess import Popen

from celery_testkit import PLAYING_STATES, START_TIMEOUT, wait_until

#: The private /24 of the test network (it exists only inside the namespaces).
SUBNET = "10.77.0"
PREFIX = 24
#: Bound on one ``ip`` command (seconds).
IP_TIMEOUT = 20.0


def unavailable_reason() -> str | None:
    """Why namespaces cannot be made here (not root, no ``ip``, no ``unshare``), or None."""
    if os.geteuid() != 0:
        return "creating network namespaces needs root"
    for tool, package in (("ip", "iproute2"), ("unshare", "util-linux"), ("hostname", "hostname")):
        if shutil.which(tool) is None:
            return f"{tool} ({package}) is not installed"
    return None


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``ip ARGS`` (bounded); RuntimeError with its output if it fails and ``check``."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=IP_TIMEOUT)
    if check and done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {(done.stderr or done.stdout).strip()}")
    return done


class Network:
    """A hub namespace with a bridge, and host namespaces linked to it; see the module docstring."""

    def __init__(self, tag: str | None = None) -> None:
        """Create the hub namespace and its bridge (RuntimeError if the kernel refuses)."""
        self.tag = tag or f"arb{os.getpid()}"
        self.hub = f"{self.tag}-hub"
        self.hub_address = f"{SUBNET}.1"
        self.hosts: dict[str, str] = {}  # host name -> namespace
        self.addresses: dict[str, str] = {}  # host name -> address
        self.processes: list[subprocess.Popen[bytes]] = []
        self._namespaces: list[str] = []
        try:
            self._add_namespace(self.hub)
            ip("-n", self.hub, "link", "add", "br0", "type", "bridge")
            ip("-n", self.hub, "addr", "add", f"{self.hub_address}/{PREFIX}", "dev", "br0")
            ip("-n", self.hub, "link", "set", "br0", "up")
        except BaseException:
            self.close()
            raise

    def _add_namespace(self, name: str) -> None:
        """A fresh namespace with its loopback up (a stale one of the same name is removed first)."""
        ip("netns", "del", name, check=False)
        ip("netns", "add", name)
        self._namespaces.append(name)
        ip("-n", name, "link", "set", "lo", "up")

    def add_host(self, name: str, number: int) -> str:
        """A host namespace linked to the hub, with address ``SUBNET.(10 + number)``; its address."""
        namespace = f"{self.tag}-{name}"
        address = f"{SUBNET}.{10 + number}"
        self._add_namespace(namespace)
        port = self.port(name)
        ip("-n", self.hub, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", namespace)
        ip("-n", self.hub, "link", "set", port, "master", "br0")
        ip("-n", self.hub, "link", "set", port, "up")
        ip("-n", namespace, "addr", "add", f"{address}/{PREFIX}", "dev", "eth0")
        ip("-n", namespace, "link", "set", "eth0", "up")
        self.hosts[name] = namespace
        self.addresses[name] = address
        return address

    @staticmethod
    def port(name: str) -> str:
        """The hub's end of a host's link (an interface name of at most 15 characters)."""
        return f"p-{name}"[:15]

    def cut(self, name: str) -> None:
        """Take a host's link down: its packets go nowhere until :meth:`heal`."""
        ip("-n", self.hub, "link", "set", self.port(name), "down")

    def heal(self, name: str) -> None:
        """Bring a host's link back up."""
        ip("-n", self.hub, "link", "set", self.port(name), "up")

    def remove_host(self, name: str) -> None:
        """Delete a host's link and namespace for good (kill its processes first)."""
        ip("-n", self.hub, "link", "del", self.port(name), check=False)
        namespace = self.hosts.pop(name)
        ip("netns", "del", namespace, check=False)
        self._namespaces.remove(namespace)

    def namespace(self, name: str | None) -> str:
        """The namespace of host ``name`` (None: the hub)."""
        return self.hub if name is None else self.hosts[name]

    def popen(
        self,
        host: str | None,
        argv: Sequence[str],
        log: Path,
        env: Mapping[str, str] | None = None,
        hostname: str | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start ``argv`` in host ``host``'s namespace (None: the hub), output to ``log``, in its own
        process group; with ``hostname``, in its own UTS namespace under that host name (so that
        what it reports as its host, e.g. a worker's ``host:pid``, names the simulated machine)."""
        command = ["ip", "netns", "exec", self.namespace(host)]
        if hostname is not None:
            command += ["unshare", "--uts", "--", "sh", "-c", 'hostname "$0" && exec "$@"', hostname]
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [*command, *argv],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=dict(env) if env is not None else None,
                start_new_session=True,
            )
        self.processes.append(process)
        return process

    def run(self, host: str | None, argv: Sequence[str], timeout: float = IP_TIMEOUT) -> str:
        """Run ``argv`` in a namespace to its end (bounded); its output (stdout)."""
        done = subprocess.run(
            ["ip", "netns", "exec", self.namespace(host), *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return done.stdout

    def routes(self, host: str | None) -> str:
        """The routing table of a namespace."""
        return ip("-n", self.namespace(host), "route", "show").stdout

    @staticmethod
    def kill(process: subprocess.Popen[bytes]) -> None:
        """SIGKILL a process started here, with its whole process group, and reap it."""
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=15)

    def close(self) -> None:
        """Kill every process started here and delete every namespace (idempotent)."""
        for process in self.processes:
            self.kill(process)
        self.processes.clear()
        for namespace in reversed(self._namespaces):
            ip("netns", "del", namespace, check=False)
        self._namespaces.clear()
        self.hosts.clear()


# a Celery worker on a host ---------------------------------------------------------------------


def log_text(path: Path) -> str:
    """A log file so far."""
    return path.read_text(errors="replace") if path.exists() else ""


class HostWorker:
    """A Celery worker of one process on a host, reaching Redis only through the bridge."""

    def __init__(
        self, net: Network, host: str, broker: str, tmp_path: Path, extra_env: Mapping[str, str] | None = None
    ) -> None:
        """Start it (in ``host``'s namespace, under host name ``host``, with ``extra_env`` in its
        environment); see :meth:`wait_ready`."""
        self.host = host
        self.log = tmp_path / f"worker-{host}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARBITER_")}
        env["ARBITER_BROKER"] = broker
        env.update(extra_env or {})
        argv = [sys.executable, "-m", "celery", "-A", "worker.celery_app", "worker", "--hostname"]
        argv += [f"worker@{host}", "--concurrency", "1", "--loglevel", "INFO", "--without-gossip"]
        argv += ["--without-mingle"]
        self.process: Popen[bytes] = net.popen(host, argv, self.log, env=env, hostname=host)

    def output(self) -> str:
        """What it logged so far."""
        return log_text(self.log)

    def wait_ready(self) -> None:
        """Wait (bounded) until it says it is ready for tasks."""
        wait_until(self.is_ready, START_TIMEOUT, f"the worker on {self.host} to be ready", interval=0.05)

    def open_tasks(self) -> set[str]:
        """The tasks it has received and neither finished nor discarded (a task the coordinator
        revoked is dropped unplayed, or stopped where it plays), by its log."""
        text = self.output()
        received = set(re.findall(r"Task arbiter\.play_batch\[([^\]]+)\] received", text))
        ended = set(re.findall(r"Task arbiter\.play_batch\[([^\]]+)\] (?:succeeded|failed|raised)", text))
        ended |= set(re.findall(r"Discarding revoked task: arbiter\.play_batch\[([^\]]+)\]", text))
        ended |= set(re.findall(r"Terminating ([0-9a-f-]+) \(", text))  # revoked while it played
        return received - ended

    def playing(self) -> bool:
        """True while it has received a batch it has neither finished nor discarded: its one
        process is playing it."""
        return bool(self.open_tasks())

    def is_ready(self) -> bool:
        """True once it says it is ready for tasks (AssertionError if it exited)."""
        assert self.process.poll() is None, f"worker on {self.host} exited:\n{self.output()}"
        return " ready." in self.output()

    def started_unstored(self, net: Network, cli: list[str]) -> bool:
        """True if it has started a batch whose result is not stored: the result backend (in the
        hub) still says STARTED (or PROGRESS) for a task its log shows open; its own result would
        replace that.
        Asked while the worker is stopped, the answer holds until it goes on."""
        for task_id in self.open_tasks():
            meta = net.run(None, [*cli, "--raw", "GET", f"celery-task-meta-{task_id}"]).strip()
            if meta and json.loads(meta).get("status") in PLAYING_STATES:
                return True
        return False
