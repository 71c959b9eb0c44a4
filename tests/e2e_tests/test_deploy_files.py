"""deploy/ cannot drift from the code: every command, option, module, path and variable it uses exists.

Docker is not available where the tests run, so nothing here builds an image or starts a container.
Instead the Dockerfile, ``compose.yaml``, the Kubernetes manifests and the systemd units are parsed
and each thing they name is checked against the project: ``arbiter`` sub-commands and their options
go through the real click parser, environment variables must be ones the code reads, COPY sources
and build contexts must exist, and Kubernetes references (secrets, config maps, claims, selectors)
must resolve within the manifests. The server (``arbiter server``) must listen where its port
mapping, Service and probes point, probe a real route, write its logs to a volume, take its
credentials from the environment (never a command line), and be the only thing people use that
holds ``ARBITER_SECRET``; no file holds a password.
"""

from __future__ import annotations

import importlib
import os
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
from coordinator.cli.remote import SERVER_ENV, USER_ENV  # noqa: E402
from coordinator.cli.serve import DEFAULT_HOST  # noqa: E402
from coordinator.cli.server import TOKEN_ENV  # noqa: E402
from coordinator.executors.celery.leases import LEASE_ENV  # noqa: E402
from coordinator.notify.notifier import WEBHOOKS_VARIABLE  # noqa: E402
from coordinator.presets import PRESETS_ENV  # noqa: E402
from coordinator.sides.refs import MIRRORS_ENV  # noqa: E402
from coordinator.store import STORE_ENV  # noqa: E402
from coordinator.web.app import ROUTES  # noqa: E402
from wire import celeryconfig  # noqa: E402
from wire.heartbeat import HEARTBEAT_ENV  # noqa: E402
from wire.sealing import SECRET_ENV, WORKER_KEY_ENV  # noqa: E402
from worker.builds import BUILD_CACHE_ENV  # noqa: E402
from worker.programs import CACHE_ENV  # noqa: E402

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
    MIRRORS_ENV,
    BUILD_CACHE_ENV,
    HEARTBEAT_ENV,
    TOKEN_ENV,
    SERVER_ENV,
    USER_ENV,
    WEBHOOKS_VARIABLE,
    PRESETS_ENV,
    "PYTHONUNBUFFERED",
}
#: What names a credential: such a variable's value in a file must come from outside it.
CREDENTIAL = re.compile(r"SECRET|TOKEN|PASSWORD|_KEY$|AUTH")
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
    parsed: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return parsed


def arbiter_services() -> dict[str, dict[str, Any]]:
    """Services that run the arbiter image."""
    return {
        name: service
        for name, service in compose()["services"].items()
        if str(service.get("image", "")).startswith("arbiter:")
    }


def test_compose_services_run_real_commands_with_known_variables() -> None:
    services = arbiter_services()
    assert set(services) == {"worker", "arbiter-server", "cli"}  # no per-run coordinator
    for name, service in services.items():
        build = service["build"]
        assert (DEPLOY / build["context"]).resolve() == REPO
        assert (DEPLOY / build["context"] / build["dockerfile"]).is_file()
        command = [interpolate(str(part)) for part in service["command"]]
        check_arbiter_args(command, f"compose service {name}")
        environment = service.get("environment", {})
        assert set(environment) <= KNOWN_ENV, f"{name}: {set(environment) - KNOWN_ENV} are read by nothing"
        if name == "cli":
            continue  # a client of the server: no broker (test_compose_cli_is_a_client_without_keys)
        broker = interpolate(environment["ARBITER_BROKER"])
        assert broker.startswith("redis://") and "@redis:6379/" in broker
        assert service["depends_on"]["redis"]["condition"] == "service_healthy"
    assert services["worker"]["command"][0] == "worker"
    # The server signs and the workers seal (single-owner): both hold the secret, nothing else.
    holders = {name for name, service in services.items() if SECRET_ENV in service.get("environment", {})}
    assert holders == {"worker", "arbiter-server"}
    assert WORKER_KEY_ENV in services["worker"]["environment"]
    # Scalable: no fixed name, no published port.
    assert "container_name" not in services["worker"] and "ports" not in services["worker"]


def test_compose_server_owns_the_runs_on_postgresql_and_answers_its_healthcheck() -> None:
    services = compose()["services"]
    server = services["arbiter-server"]
    command = [interpolate(str(part)) for part in server["command"]]
    assert check_arbiter_args(command, "compose arbiter-server").name == "server"
    assert "profiles" not in server  # started by `docker compose up`, and kept running
    assert server["restart"] == "unless-stopped"
    # Credentials from the environment, never on the command line (ps shows it).
    assert "--broker" not in command and "--store" not in command
    environment = server["environment"]
    assert environment[TOKEN_ENV].startswith(f"${{{TOKEN_ENV}:?")
    # The store: the compose file's PostgreSQL, with the password of its own variable.
    postgres = services["postgres"]
    password = postgres["environment"]["POSTGRES_PASSWORD"]
    assert re.fullmatch(r"\$\{(ARBITER_POSTGRES_PASSWORD):\?[^}]*\}", password)
    user, database = postgres["environment"]["POSTGRES_USER"], postgres["environment"]["POSTGRES_DB"]
    assert environment[STORE_ENV] == f"postgresql://{user}:{password}@postgres:5432/{database}"
    assert server["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "pg_isready" in postgres["healthcheck"]["test"] and "ports" not in postgres
    assert any(volume.endswith(":/var/lib/postgresql/data") for volume in postgres["volumes"])
    # One server: a fixed name (it takes its leases up again at once after a restart).
    assert option_value(command, "--name") == "arbiter-server"
    # Its logs on a named volume.
    logs = Path(option_value(command, "--logs"))
    mounts = {Path(v.split(":")[1]): v.split(":")[0] for v in server["volumes"]}
    assert any(folder in logs.parents and volume in compose()["volumes"] for folder, volume in mounts.items())
    # Listens in the container, published on the host's loopback; the healthcheck asks /healthz.
    assert option_value(command, "--host") == "0.0.0.0"
    bind, published, container = interpolate(server["ports"][0]).rsplit(":", 2)
    assert bind == DEFAULT_HOST and published.isdigit()
    assert container == option_value(command, "--port")
    probe = " ".join(server["healthcheck"]["test"])
    found = re.search(r"http://127\.0\.0\.1:(\d+)(/[\w/]*)", probe)
    assert found and found.group(1) == container and found.group(2) == "/healthz" and is_route("/healthz")
    # The dashboard is the server's: no second web service on the store.
    for name, service in arbiter_services().items():
        assert service["command"][0] != "serve", name


def test_compose_cli_is_a_client_without_keys() -> None:
    services = compose()["services"]
    cli, server = services["cli"], services["arbiter-server"]
    assert "cli" in cli["profiles"]
    environment = cli["environment"]
    assert (
        SECRET_ENV not in environment and STORE_ENV not in environment and "ARBITER_BROKER" not in environment
    )
    port = option_value([interpolate(str(p)) for p in server["command"]], "--port")
    assert environment[SERVER_ENV] == f"http://arbiter-server:{port}"
    assert environment[TOKEN_ENV] == server["environment"][TOKEN_ENV]
    assert USER_ENV in environment
    assert cli["depends_on"]["arbiter-server"]["condition"] == "service_healthy"
    assert any(v.endswith(":/files:ro") for v in cli["volumes"])
    # The submitting commands take --server from ARBITER_SERVER.
    for name in ("sprt", "tune", "tournament", "watch"):
        command = arbiter_command(name)
        assert command is not None
        assert any(p.name == "server" and getattr(p, "envvar", None) == SERVER_ENV for p in command.params), (
            name
        )


def test_compose_holds_no_credential() -> None:
    """Every credential in compose.yaml is an interpolation from the operator's environment (or
    .env), and required where a service cannot run safely without it."""
    for name, service in compose()["services"].items():
        for variable, value in dict(service.get("environment", {})).items():
            text = str(value)
            if CREDENTIAL.search(variable):
                assert re.fullmatch(r"\$\{[A-Z0-9_]+(:\?[^}]*|:-)\}", text), f"{name}: {variable}={text}"
            for userinfo in re.findall(r"://([^@/\s]*)@", text):
                secret = userinfo.split(":", 1)[-1]
                assert re.fullmatch(r"\$\{[A-Z0-9_]+:\?[^}]*\}", secret), f"{name}: {variable}: {userinfo}"
        for part in service.get("command", []):
            for userinfo in re.findall(r"://([^@/\s]*)@", str(part)):
                pytest.fail(f"{name}: a credential on the command line: {userinfo}")


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


def make_secret(target: Path, store: str | None = None) -> subprocess.CompletedProcess[str]:
    """``make-secret.sh TARGET``, with ``$ARBITER_STORE`` set to ``store`` (unset: None)."""
    environ = {k: v for k, v in os.environ.items() if k != STORE_ENV}
    if store is not None:
        environ[STORE_ENV] = store
    return subprocess.run(
        ["bash", str(K8S / "make-secret.sh"), str(target)],
        capture_output=True,
        text=True,
        timeout=60,
        env=environ,
    )


def generated_secret(tmp: Path, store: str | None = None) -> dict[str, Any]:
    """The Secret the kustomization generates from the file ``make-secret.sh`` writes."""
    tmp.mkdir(parents=True, exist_ok=True)
    target = tmp / "arbiter-secret.env"
    done = make_secret(target, store)
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


def pod_volumes(workload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The volumes a workload's pods may mount: the pod's own and a StatefulSet's claim templates."""
    spec = workload["spec"]
    volumes = {v["name"]: v for v in spec["template"]["spec"].get("volumes", [])}
    for claim in spec.get("volumeClaimTemplates", []):
        volumes[claim["metadata"]["name"]] = {"name": claim["metadata"]["name"], "claimTemplate": claim}
    return volumes


def test_kubernetes_workloads_resolve(tmp_path: Path) -> None:
    objects = manifests(tmp_path)
    secrets = by_kind(objects, "Secret")
    config_maps = by_kind(objects, "ConfigMap")
    claims = by_kind(objects, "PersistentVolumeClaim")
    services = by_kind(objects, "Service")
    workloads = [
        *by_kind(objects, "Deployment").values(),
        *by_kind(objects, "StatefulSet").values(),
        *by_kind(objects, "Job").values(),
    ]
    # One server in place of a Job per run; the dashboard is the server's.
    assert {w["metadata"]["name"] for w in workloads} == {"redis", "arbiter-worker", "arbiter-server"}
    uid = image_uid()
    for workload in workloads:
        name = workload["metadata"]["name"]
        spec = workload["spec"]
        template = spec["template"]
        if "selector" in spec:
            labels = template["metadata"]["labels"]
            assert spec["selector"]["matchLabels"].items() <= labels.items(), f"{name}: selector"
        pod = template["spec"]
        volumes = pod_volumes(workload)
        for volume in volumes.values():
            if "configMap" in volume:
                assert volume["configMap"]["name"] in config_maps
            if "persistentVolumeClaim" in volume:
                assert volume["persistentVolumeClaim"]["claimName"] in claims
        for container in [*pod.get("initContainers", []), *pod["containers"]]:
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
            assert pod["securityContext"]["runAsUser"] == uid
        for container in pod["containers"]:
            if container["image"] != "arbiter":
                continue
            names = {env["name"] for env in container.get("env", [])}
            assert names <= KNOWN_ENV, f"{name}: {names - KNOWN_ENV} are read by nothing"
            # The server signs and the workers seal: both hold the secret, from the Secret.
            assert {"ARBITER_BROKER", SECRET_ENV} <= names, name
            for env in container["env"]:
                if CREDENTIAL.search(env["name"]) or env["name"] in (STORE_ENV, "ARBITER_BROKER"):
                    assert "secretKeyRef" in env.get("valueFrom", {}), (
                        f"{name}: {env['name']} not from the Secret"
                    )
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


def test_kubernetes_server_is_one_pod_probed_on_healthz_with_the_workers_sandbox(tmp_path: Path) -> None:
    objects = manifests(tmp_path)
    server = by_kind(objects, "StatefulSet")["arbiter-server"]
    spec = server["spec"]
    assert spec["replicas"] == 1
    service = by_kind(objects, "Service")[spec["serviceName"]]
    assert service["spec"].get("type", "ClusterIP") == "ClusterIP"  # reached by port-forward or ingress
    assert service["spec"]["selector"].items() <= spec["template"]["metadata"]["labels"].items()
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]
    args = container["args"]
    assert check_arbiter_args(args, "k8s arbiter-server").name == "server"
    assert option_value(args, "--host") == "0.0.0.0"
    assert "--broker" not in args and "--store" not in args and "--name" not in args  # name: the pod's
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["http"] == int(option_value(args, "--port"))
    assert [p["targetPort"] for p in service["spec"]["ports"]] == ["http"]
    for probe in ("readinessProbe", "livenessProbe"):
        check = container[probe]["httpGet"]
        assert check["port"] in ports and check["path"] == "/healthz" and is_route(check["path"]), probe
    env = {e["name"]: e.get("valueFrom", {}).get("secretKeyRef", {}).get("key") for e in container["env"]}
    assert env[STORE_ENV] == "store-url" and env[TOKEN_ENV] == "server-token"
    assert env[SECRET_ENV] == "arbiter-secret" and env["ARBITER_BROKER"] == "broker-url"
    # Its logs on its own claim, kept across restarts.
    logs = Path(option_value(args, "--logs"))
    mounted = {Path(m["mountPath"]): m["name"] for m in container["volumeMounts"]}
    claims = {c["metadata"]["name"] for c in spec["volumeClaimTemplates"]}
    assert any(folder in logs.parents and volume in claims for folder, volume in mounted.items())
    # Its runs start engine programs: the workers' sandbox settings, and the same check at start.
    worker = by_kind(objects, "Deployment")["arbiter-worker"]["spec"]["template"]["spec"]
    assert container["securityContext"] == worker["containers"][0]["securityContext"]
    assert pod["hostUsers"] is False and worker["hostUsers"] is False
    checks = {c["name"]: c for c in pod["initContainers"]}
    for check in worker["initContainers"]:
        assert checks[check["name"]]["args"] == check["args"]
        assert checks[check["name"]]["securityContext"] == container["securityContext"]
    # It starts once Redis answers (a run whose process finds no broker fails).
    wait = checks["wait-for-redis"]
    redis = by_kind(objects, "Service")["redis"]["metadata"]["name"]
    assert f"redis-cli -h {redis} ping" in " ".join(wait["command"])
    assert {e["name"] for e in wait["env"]} == {"REDISCLI_AUTH"}
    assert list(checks) == ["wait-for-redis", *(c["name"] for c in worker["initContainers"])]
    # Only the server and the workers hold the secret.
    holders = {
        w["metadata"]["name"]
        for w in objects
        if w["kind"] in ("Deployment", "StatefulSet", "Job")
        for c in w["spec"]["template"]["spec"]["containers"]
        if SECRET_ENV in {e["name"] for e in c.get("env", [])}
    }
    assert holders == {"arbiter-server", "arbiter-worker"}


# --- systemd and docs ------------------------------------------------------------------------------


def unit(name: str) -> str:
    """The text of deploy/systemd/NAME."""
    return (DEPLOY / "systemd" / name).read_text()


def directive(text: str, name: str) -> str | None:
    """The value of a unit's directive ``name`` (the last one set), or None."""
    values = re.findall(rf"^{name}=(.*)$", text, re.M)
    return values[-1] if values else None


def exec_start(text: str) -> list[str]:
    """A unit's ExecStart command line, split."""
    command = directive(text, "ExecStart")
    assert command
    return shlex.split(command)


def test_systemd_unit_runs_a_real_worker() -> None:
    text = unit("arbiter-worker.service")
    argv = exec_start(text)
    assert argv[0].endswith("/bin/arbiter")
    assert check_arbiter_args(argv[1:], "systemd ExecStart").name == "worker"
    assert set(re.findall(r"\bARBITER_[A-Z_]+", text)) <= KNOWN_ENV
    # Keys: the worker's own credential, made by a real command, or the single-owner secret.
    assert f"{WORKER_KEY_ENV}=" in text and SECRET_ENV in text
    made = re.search(r"^#\s+arbiter (worker-key \S+)", text, re.M)
    assert made and arbiter_command(made.group(1).split()[0]) is not None
    assert re.search(r"^KillSignal=SIGTERM$", text, re.M)  # Celery's warm shutdown
    assert re.search(r"^Restart=always$", text, re.M)


#: The sandbox's needs and the hardening around it: the same in every arbiter unit.
HARDENING = (
    "NoNewPrivileges",
    "CapabilityBoundingSet",
    "RestrictNamespaces",
    "ProtectSystem",
    "ProtectHome",
    "PrivateTmp",
    "PrivateDevices",
)


def test_systemd_server_unit_runs_the_server_with_the_workers_hardening() -> None:
    text, worker = unit("arbiter-server.service"), unit("arbiter-worker.service")
    argv = exec_start(text)
    assert argv[0] == exec_start(worker)[0]  # the same installation
    assert check_arbiter_args(argv[1:], "systemd ExecStart").name == "server"
    assert "--broker" not in argv and "--store" not in argv  # credentials in the environment file
    assert option_value(argv, "--host") == DEFAULT_HOST  # behind a proxy
    environment_file = directive(text, "EnvironmentFile")
    assert environment_file and environment_file.startswith("/etc/arbiter/")
    assert f"install -m 0600 -o root -g root /dev/null {environment_file}" in text
    assert set(re.findall(r"\bARBITER_[A-Z_]+", text)) <= KNOWN_ENV
    for variable in (STORE_ENV, "ARBITER_BROKER", SECRET_ENV, TOKEN_ENV):
        assert variable in text, variable
    assert directive(text, "Restart") == "always"
    assert directive(text, "KillSignal") == "SIGTERM" and directive(text, "KillMode") == "mixed"
    for name in HARDENING:
        assert directive(text, name) == directive(worker, name), name
    assert directive(text, "ExecStartPre") == directive(worker, "ExecStartPre")  # the sandbox check
    # The logs folder is one the service may write: its LogsDirectory, or a ReadWritePaths.
    logs = Path(option_value(argv, "--logs"))
    writable = [Path(p) for p in (directive(text, "ReadWritePaths") or "").split()]
    if directive(text, "LogsDirectory"):
        writable.append(Path("/var/log") / str(directive(text, "LogsDirectory")))
    assert any(logs == folder or folder in logs.parents for folder in writable), logs
    working = directive(text, "WorkingDirectory")
    assert working and Path(working) in writable  # the default SQLite store and the caches
    # Workers' credentials are made where the secret is: with the server's environment file.
    made = re.search(r"arbiter (worker-key) \S+", text)
    assert made and arbiter_command(made.group(1)) is not None and environment_file in made.string


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
    assert set(first) == {"redis-password", "broker-url", "arbiter-secret", "server-token", "store-url"}
    assert first["broker-url"] == f"redis://:{first['redis-password']}@redis:6379/0"
    randoms = [first[key] for key in ("redis-password", "arbiter-secret", "server-token")]
    assert all(len(value) >= 32 for value in randoms) and len(set(randoms)) == 3
    # Without $ARBITER_STORE, a SQLite file on the server's claim.
    server = by_kind(manifests(tmp_path / "m"), "StatefulSet")["arbiter-server"]
    (mount,) = server["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
    assert first["store-url"].startswith(f"sqlite:///{mount['mountPath']}/")
    again = make_secret(tmp_path / "arbiter-secret.env")
    assert again.returncode == 1 and "exists" in again.stderr


def test_make_secret_takes_the_store_from_the_environment_and_never_prints_it(tmp_path: Path) -> None:
    url = "postgresql://arbiter:pg-password-123@db.example:5432/arbiter?sslmode=verify-full"
    done = make_secret(tmp_path / "a.env", url)
    assert done.returncode == 0 and "pg-password-123" not in done.stdout + done.stderr
    assert generated_secret(tmp_path / "b", url)["stringData"]["store-url"] == url
    bad = make_secret(tmp_path / "c.env", "mysql://root:hunter2@db/arbiter")
    assert bad.returncode == 2 and "ARBITER_STORE" in bad.stderr and "hunter2" not in bad.stderr
    assert not (tmp_path / "c.env").exists()


def test_docs_name_deploy_files_that_exist_and_links_that_resolve() -> None:
    """docs/deploy.md names only files of deploy/ that exist (or that the operator makes), and its
    links within the page reach a heading."""
    text = DOCS.read_text()
    made_by_the_operator = {"deploy/.env", "deploy/k8s/arbiter-secret.env"}
    for path in set(re.findall(r"\bdeploy/[\w./-]*\w", text)) - made_by_the_operator:
        assert (REPO / path).exists(), f"docs/deploy.md names {path}, which does not exist"
    headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", text, flags=re.S), re.M)
    anchors = {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}
    for anchor in set(re.findall(r"\]\(#([\w-]+)\)", text)):
        assert anchor in anchors, f"docs/deploy.md links to #{anchor}, which no heading makes"
    # The server in place of per-run jobs.
    assert "## Running the server" in text and "coordinator-job" not in text
    for needle in ("arbiter-server.service", "server.yaml", "StatefulSet", "kill -9", "/healthz"):
        assert needle in text, needle
