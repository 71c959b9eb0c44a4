"""deploy/ cannot drift from the code: every command, option, module, path and variable it uses exists.

Docker is not available where the tests run, so nothing here builds an image or starts a container.
Instead the Dockerfile, ``compose.yaml``, the Kubernetes manifests and the systemd unit are parsed
and each thing they name is checked against the project: ``arbiter`` sub-commands and their options
go through the real click parser, environment variables must be ones the code reads, COPY sources
and build contexts must exist, and Kubernetes references (secrets, config maps, claims, selectors)
must resolve within the manifests. The dashboard (``arbiter serve``) must listen where its port
mapping, Service and probes point, probe a real route, and read the store the coordinators write.
"""

from __future__ import annotations

import importlib
import re
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import click
import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML is a dev dependency (pip install -e '.[dev]')")

from coordinator.cli.main import main  # noqa: E402
from coordinator.cli.serve import DEFAULT_HOST  # noqa: E402
from coordinator.executors.celery.leases import LEASE_ENV  # noqa: E402
from coordinator.store import STORE_ENV  # noqa: E402
from coordinator.web.app import ROUTES  # noqa: E402
from worker import celeryconfig  # noqa: E402
from worker.programs import CACHE_ENV  # noqa: E402
from worker.sealing import SECRET_ENV, WORKER_KEY_ENV  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
K8S = DEPLOY / "k8s"
DOCS = REPO / "docs" / "deploy.md"

#: Variables arbiter's own containers may set: the ones the code reads, plus Python's own.
KNOWN_ENV = {
    *celeryconfig.ENVIRONMENT,
    STORE_ENV,
    LEASE_ENV,
    SECRET_ENV,
    WORKER_KEY_ENV,
    CACHE_ENV,
    "PYTHONUNBUFFERED",
}
#: The uid the Dockerfile creates; manifests that run the image as non-root must use it.
IMAGE_USER = "arbiter"


def pyproject() -> dict[str, Any]:
    """The parsed pyproject.toml."""
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def check_arbiter_args(args: list[str], where: str) -> click.Command:
    """``args`` (after the ``arbiter`` entry point) must parse as a real sub-command invocation."""
    assert args, f"{where}: no arbiter command"
    name, rest = args[0], list(args[1:])
    command = arbiter_command(name)
    assert command is not None, f"{where}: 'arbiter {name}' is not a command"
    try:
        command.make_context(f"arbiter {name}", rest)
    except click.ClickException as e:
        pytest.fail(f"{where}: arbiter {' '.join(args)}: {e.format_message()}")
    return command


def option_value(args: list[str], option: str) -> str:
    """The value given to ``option`` in an argument list."""
    assert option in args, f"{option} missing from {args}"
    return args[args.index(option) + 1]


def is_route(path: str) -> bool:
    """True if the dashboard answers ``path`` (a fixed route: no path parameters)."""
    return path in {route for route, *_ in ROUTES if "{" not in route}


def arbiter_command(name: str) -> click.Command | None:
    """The ``arbiter NAME`` command, or None."""
    return main.get_command(click.Context(main), name)


def interpolate(text: str) -> str:
    """Compose interpolation with every variable unset: ``${X:-d}`` is ``d``, others a placeholder."""

    def value(match: re.Match[str]) -> str:
        default = match.group(2)
        return default if default is not None else "placeholder"

    return re.sub(r"\$\{([A-Z0-9_]+)(?::-([^}]*)|:\?[^}]*)?\}", value, text)


# --- Dockerfile -----------------------------------------------------------------------------------


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of deploy/Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", (DEPLOY / "Dockerfile").read_text())
    instructions = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            instructions.append((keyword.upper(), rest.strip()))
    return instructions


def test_dockerfile_copies_what_exists_and_runs_the_entry_point() -> None:
    instructions = dockerfile()
    stages = [args.split()[-1] for kw, args in instructions if kw == "FROM" and " AS " in args.upper()]
    assert stages == ["build", "runtime"]
    copied = []
    for keyword, args in instructions:
        if keyword != "COPY":
            continue
        parts = args.split()
        if parts[0].startswith("--from="):
            assert parts[0].split("=", 1)[1] in stages
            continue
        for source in parts[:-1]:
            assert (REPO / source).exists(), f"COPY {source}: no such file in the repository"
            copied.append(source)
    # The wheel needs the Rust workspace, the binding crate and every Python package maturin packs.
    maturin = pyproject()["tool"]["maturin"]
    packages = [maturin["module-name"].split(".")[0], *maturin["python-packages"]]
    for needed in ["Cargo.toml", "Cargo.lock", "pyproject.toml", *packages]:
        assert needed in copied, f"the Dockerfile does not COPY {needed}"
    assert maturin["manifest-path"].split("/")[0] in copied

    entrypoint = [json_list(args) for kw, args in instructions if kw == "ENTRYPOINT"][-1]
    assert entrypoint == ["arbiter"] and "arbiter" in pyproject()["project"]["scripts"]
    cmd = [json_list(args) for kw, args in instructions if kw == "CMD"][-1]
    check_arbiter_args(cmd, "Dockerfile CMD")
    for keyword, args in instructions:
        if keyword == "ENV":
            names = re.findall(r"([A-Z_][A-Z0-9_]*)=", args)
            assert set(names) <= KNOWN_ENV, f"ENV sets variables nothing reads: {set(names) - KNOWN_ENV}"
    assert any(kw == "USER" and args == IMAGE_USER for kw, args in instructions)


def json_list(text: str) -> list[str]:
    """A Dockerfile exec-form list."""
    import json

    value = json.loads(text)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value)
    return value


def test_dockerignore_lets_every_copy_source_in() -> None:
    rules = [
        line.strip()
        for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert rules[0] == "**"
    allowed = {rule[1:] for rule in rules if rule.startswith("!")}
    for keyword, args in dockerfile():
        if keyword == "COPY" and not args.startswith("--from="):
            for source in args.split()[:-1]:
                assert source in allowed, f"{source} is excluded from the build context"


def image_uid() -> int:
    """The uid the Dockerfile gives its user."""
    match = re.search(r"useradd [^&]*--uid (\d+) " + IMAGE_USER, (DEPLOY / "Dockerfile").read_text())
    assert match, "the Dockerfile creates no user with a fixed uid"
    return int(match.group(1))


# --- compose --------------------------------------------------------------------------------------


def compose() -> dict[str, Any]:
    """deploy/compose.yaml, merge keys resolved."""
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def arbiter_services() -> dict[str, dict[str, Any]]:
    """Services that run the arbiter image."""
    return {
        name: service
        for name, service in compose()["services"].items()
        if str(service.get("image", "")).startswith("arbiter:")
    }


def test_compose_services_run_real_commands_with_known_variables() -> None:
    services = arbiter_services()
    assert {"worker", "coordinator", "dashboard"} <= set(services)
    for name, service in services.items():
        build = service["build"]
        assert (DEPLOY / build["context"]).resolve() == REPO
        assert (DEPLOY / build["context"] / build["dockerfile"]).is_file()
        command = [interpolate(str(part)) for part in service["command"]]
        check_arbiter_args(command, f"compose service {name}")
        environment = service.get("environment", {})
        assert set(environment) <= KNOWN_ENV, f"{name}: {set(environment) - KNOWN_ENV} are read by nothing"
        if command[0] == "serve":
            continue  # the dashboard reads the store only: no broker (test_compose_dashboard)
        broker = interpolate(environment["ARBITER_BROKER"])
        assert broker.startswith("redis://") and "@redis:6379/" in broker
        assert service["depends_on"]["redis"]["condition"] == "service_healthy"
    assert services["worker"]["command"][0] == "worker"
    # Every arbiter container but the dashboard holds a key: coordinators sign, workers seal.
    for name in ("worker", "coordinator"):
        assert SECRET_ENV in services[name]["environment"], name
    assert WORKER_KEY_ENV in services["worker"]["environment"]
    # Scalable: no fixed name, no published port.
    assert "container_name" not in services["worker"] and "ports" not in services["worker"]
    assert "coordinator" in services["coordinator"]["profiles"]


def test_compose_dashboard_reads_the_coordinators_store_on_loopback() -> None:
    services = arbiter_services()
    dashboard, coordinator = services["dashboard"], services["coordinator"]
    command = [interpolate(str(part)) for part in dashboard["command"]]
    assert command[0] == "serve" and "dashboard" in dashboard["profiles"]
    assert "ARBITER_BROKER" not in dashboard.get("environment", {})
    store = dashboard["environment"]["ARBITER_STORE"]
    assert store == coordinator["environment"]["ARBITER_STORE"]
    folder = str(Path(store.removeprefix("sqlite:///")).parent)
    assert (
        f"arbiter-data:{folder}" in dashboard["volumes"]
        and f"arbiter-data:{folder}" in coordinator["volumes"]
    )
    bind, published, container = interpolate(dashboard["ports"][0]).rsplit(":", 2)
    assert bind == DEFAULT_HOST and published.isdigit()  # published on the host's loopback by default
    assert container == option_value(command, "--port")
    probe = " ".join(dashboard["healthcheck"]["test"])
    found = re.search(r"http://127\.0\.0\.1:(\d+)(/[\w/]*)", probe)
    assert found and found.group(1) == container and is_route(found.group(2)), probe


def test_compose_redis_flower_and_settings() -> None:
    services = compose()["services"]
    redis_command = [interpolate(str(p)) for p in services["redis"]["command"]]
    assert redis_command[0] == "redis-server" and "--requirepass" in redis_command
    assert services["redis"]["ports"][0].endswith(":6379")
    flower = services["flower"]
    assert "monitoring" in flower["profiles"] and flower["command"][:2] == ["celery", "flower"]
    assert flower["environment"]["CELERY_BROKER_URL"].startswith("redis://")
    assert "FLOWER_BASIC_AUTH" in flower["environment"]
    assert all(p.startswith("127.0.0.1:") for p in flower["ports"])
    # Every compose-level setting is documented.
    variables = set(re.findall(r"\$\{([A-Z0-9_]+)", (DEPLOY / "compose.yaml").read_text()))
    documented = DOCS.read_text()
    for variable in variables:
        assert f"`{variable}`" in documented, f"{variable} is not documented in docs/deploy.md"


# --- Kubernetes -----------------------------------------------------------------------------------


def generated_secret(tmp: Path) -> dict[str, Any]:
    """The Secret the kustomization generates from the file ``make-secret.sh`` writes."""
    target = tmp / "arbiter-secret.env"
    done = subprocess.run(
        ["bash", str(K8S / "make-secret.sh"), str(target)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert target.stat().st_mode & 0o077 == 0  # readable by its owner only
    data = dict(line.split("=", 1) for line in target.read_text().splitlines() if line)
    return {"kind": "Secret", "metadata": {"name": "arbiter"}, "stringData": data}


def manifests(tmp: Path) -> list[dict[str, Any]]:
    """Every object of the kustomization's resources (which must all exist), and its generated
    secret, as made by ``make-secret.sh``."""
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    [generator] = kustomization["secretGenerator"]
    assert generator == {"name": "arbiter", "envs": ["arbiter-secret.env"]}
    assert kustomization["generatorOptions"] == {"disableNameSuffixHash": True}
    objects = [generated_secret(tmp)]
    for resource in kustomization["resources"]:
        path = K8S / resource
        assert path.is_file(), f"kustomization lists {resource}, which does not exist"
        objects += [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    listed = {K8S / r for r in kustomization["resources"]}
    unlisted = {p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml"} - listed
    assert not unlisted, f"manifests not in kustomization.yaml: {sorted(p.name for p in unlisted)}"
    return objects


def by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    """Objects of ``kind`` by name."""
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def test_kubernetes_workloads_resolve(tmp_path: Path) -> None:
    objects = manifests(tmp_path)
    secrets = by_kind(objects, "Secret")
    config_maps = by_kind(objects, "ConfigMap")
    claims = by_kind(objects, "PersistentVolumeClaim")
    services = by_kind(objects, "Service")
    workloads = [*by_kind(objects, "Deployment").values(), *by_kind(objects, "Job").values()]
    assert {"redis", "arbiter-worker", "arbiter-sprt", "arbiter-dashboard"} <= {
        w["metadata"]["name"] for w in workloads
    }
    uid = image_uid()
    for workload in workloads:
        name = workload["metadata"]["name"]
        spec = workload["spec"]
        template = spec["template"]
        if "selector" in spec:
            labels = template["metadata"]["labels"]
            assert spec["selector"]["matchLabels"].items() <= labels.items(), f"{name}: selector"
        pod = template["spec"]
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        for volume in volumes.values():
            if "configMap" in volume:
                assert volume["configMap"]["name"] in config_maps
            if "persistentVolumeClaim" in volume:
                assert volume["persistentVolumeClaim"]["claimName"] in claims
        for container in pod["containers"]:
            for env in container.get("env", []):
                ref = env.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    assert ref["key"] in secrets[ref["name"]]["stringData"], f"{name}: secret {ref}"
            for mount in container.get("volumeMounts", []):
                assert mount["name"] in volumes
            if container["image"] != "arbiter":
                continue
            assert "command" not in container  # the image's entry point is arbiter
            check_arbiter_args(container["args"], f"k8s {name}")
            names = {env["name"] for env in container.get("env", [])}
            assert names <= KNOWN_ENV, f"{name}: {names - KNOWN_ENV} are read by nothing"
            assert ("ARBITER_BROKER" in names) != (container["args"][0] == "serve")  # the dashboard: none
            # Coordinators sign and workers seal: both hold a key; the dashboard none.
            assert (SECRET_ENV in names) != (container["args"][0] == "serve"), name
            assert pod["securityContext"]["runAsUser"] == uid
    for name, service in services.items():  # each Service reaches a port its pods listen on
        pods = [
            w
            for w in workloads
            if service["spec"]["selector"].items() <= w["spec"]["template"]["metadata"]["labels"].items()
        ]
        assert pods, f"Service {name} selects no workload"
        ports = {
            p["name"]: p["containerPort"]
            for c in pods[0]["spec"]["template"]["spec"]["containers"]
            for p in c.get("ports", [])
        }
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in ports, f"Service {name}: no container port {port['targetPort']}"
    redis_port = services["redis"]["spec"]["ports"][0]["port"]
    broker = secrets["arbiter"]["stringData"]["broker-url"]
    assert broker.startswith("redis://") and f"@redis:{redis_port}/" in broker
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert [image["name"] for image in kustomization["images"]] == ["arbiter"]


def test_kubernetes_dashboard_listens_where_its_service_and_probes_point(tmp_path: Path) -> None:
    objects = manifests(tmp_path)
    deployment = by_kind(objects, "Deployment")["arbiter-dashboard"]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    args = container["args"]
    assert (
        args[0] == "serve" and option_value(args, "--host") == "0.0.0.0"
    )  # in the pod; the Service is internal
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["http"] == int(option_value(args, "--port"))
    for probe in ("readinessProbe", "livenessProbe"):
        check = container[probe]["httpGet"]
        assert check["port"] in ports and is_route(check["path"]), probe
    service = by_kind(objects, "Service")["arbiter-dashboard"]
    assert service["spec"].get("type", "ClusterIP") == "ClusterIP"
    assert [p["targetPort"] for p in service["spec"]["ports"]] == ["http"]
    job = by_kind(objects, "Job")["arbiter-sprt"]
    job_env = {e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["ARBITER_STORE"] == job_env["ARBITER_STORE"]  # the store the coordinator writes
    claims = {v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"] if "persistentVolumeClaim" in v}
    assert claims == {"arbiter-store"}


# --- systemd and docs ------------------------------------------------------------------------------


def test_systemd_unit_runs_a_real_worker() -> None:
    text = (DEPLOY / "systemd" / "arbiter-worker.service").read_text()
    exec_start = re.search(r"^ExecStart=(.+)$", text, re.M)
    assert exec_start
    argv = shlex.split(exec_start.group(1))
    assert argv[0].endswith("/bin/arbiter")
    assert check_arbiter_args(argv[1:], "systemd ExecStart").name == "worker"
    assert set(re.findall(r"\bARBITER_[A-Z_]+", text)) <= KNOWN_ENV
    # Keys: the worker's own credential, made by a real command, or the single-owner secret.
    assert f"{WORKER_KEY_ENV}=" in text and SECRET_ENV in text
    made = re.search(r"^#\s+arbiter (worker-key \S+)", text, re.M)
    assert made and arbiter_command(made.group(1).split()[0]) is not None
    assert re.search(r"^KillSignal=SIGTERM$", text, re.M)  # Celery's warm shutdown
    assert re.search(r"^Restart=always$", text, re.M)


def test_docs_cover_variables_ports_tls_and_monitoring() -> None:
    text = DOCS.read_text()
    for variable in KNOWN_ENV - {"PYTHONUNBUFFERED"}:
        assert f"`{variable}`" in text, f"docs/deploy.md does not mention {variable}"
    for needle in ("rediss://", "6379", "celery -A worker.celery_app inspect", "Flower", "--scale worker="):
        assert needle in text
    for module in set(re.findall(r"celery -A ([\w.]+)", text)):
        assert hasattr(importlib.import_module(module), "app"), f"celery -A {module}: no app there"
    for command in set(re.findall(r"^\s*arbiter (\w+)", text, re.M)):
        assert arbiter_command(command) is not None, f"docs/deploy.md uses 'arbiter {command}'"


def test_kubernetes_manifests_carry_no_password(tmp_path: Path) -> None:
    """Nothing in deploy/k8s holds a secret: it is generated by make-secret.sh into a file git
    ignores, and a second run never overwrites a secret in use."""
    for path in K8S.iterdir():
        text = path.read_text()
        assert "CHANGE-ME" not in text and "stringData" not in text, path
    assert "/deploy/k8s/arbiter-secret.env" in (REPO / ".gitignore").read_text().splitlines()
    first = generated_secret(tmp_path)["stringData"]
    assert set(first) == {"redis-password", "broker-url", "arbiter-secret"}
    assert first["broker-url"] == f"redis://:{first['redis-password']}@redis:6379/0"
    assert len(first["arbiter-secret"]) >= 32 and first["arbiter-secret"] != first["redis-password"]
    again = subprocess.run(
        ["bash", str(K8S / "make-secret.sh"), str(tmp_path / "arbiter-secret.env")],
        capture_output=True,
        text=True,
    )
    assert again.returncode == 1 and "exists" in again.stderr
