"""A run from a request to the server: the kind and its stored configuration (what the CLI would
store), checked field by field before anything is stored, with the programs it names probed by the
server itself (a submitter's own probe is never believed).

Every error is a :class:`BadSubmission` naming the field (``config.limits``, ``priority``) and what
was expected, for a 400 answer.
"""

from __future__ import annotations

import random
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import engine
from coordinator.registry import kind_of
from coordinator.runs import RunKind
from coordinator.server.config_types import WrongType, check_fields
from coordinator.server.supervisor import PLAYED_KINDS
from coordinator.store import Run, Store
from coordinator.store.service import MAX_PRIORITY, MAX_THROUGHPUT

#: Most webhooks one run may carry.
MAX_RUN_WEBHOOKS = 5
#: What a submission may hold.
SUBMISSION_FIELDS = frozenset({"kind", "config", "owner", "priority", "throughput", "webhooks"})
#: A submitter's name.
OWNER_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
#: How a dataclass names a keyword it does not take.
UNKNOWN_ARGUMENT = re.compile(r"unexpected keyword argument '(\w+)'")
#: The keys of a program as a configuration holds it (``EngineProgram.to_json``).
PROGRAM_KEYS = frozenset({"name", "digest", "command"})


class BadSubmission(ValueError):
    """A request the server refuses: ``field`` and what was expected."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(frozen=True)
class Submission:
    """A run as submitted, checked."""

    kind: RunKind
    config: dict[str, Any]
    settings: Any
    owner: str | None = None
    priority: int = 0
    throughput: int = 100
    webhooks: tuple[str, ...] = field(default_factory=tuple)
    #: "approved" or "pending" (decided by the server's rules: coordinator.accounts.rules).
    approval: str = "approved"


def number_field(body: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    """An integer field of ``body`` within ``low..high``."""
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadSubmission(name, f"expected a whole number from {low} to {high}, got {value!r}")
    return value


def owner_field(body: dict[str, Any]) -> str | None:
    """Who submits the run, as they name themselves (accounts will prove it): a short name."""
    value = body.get("owner")
    if value is None:
        return None
    if not isinstance(value, str) or not OWNER_PATTERN.fullmatch(value):
        raise BadSubmission(
            "owner", f"expected a name of 1 to 64 letters, digits, '.', '_' or '-', got {value!r}"
        )
    return value


def webhooks_field(body: dict[str, Any]) -> tuple[str, ...]:
    """The run's webhooks: a list of http(s) URLs."""
    from coordinator.notify.urls import check_webhook

    value = body.get("webhooks", [])
    if not isinstance(value, list) or len(value) > MAX_RUN_WEBHOOKS:
        raise BadSubmission("webhooks", f"expected a list of at most {MAX_RUN_WEBHOOKS} URLs")
    urls = []
    for index, url in enumerate(value):
        if not isinstance(url, str):
            raise BadSubmission(f"webhooks[{index}]", "expected a URL (a string)")
        try:
            urls.append(check_webhook(url))
        except ValueError as e:
            raise BadSubmission(f"webhooks[{index}]", str(e)) from None
    return tuple(urls)


def read_submission(body: Any, store: Store) -> Submission:
    """The run ``body`` asks for (``kind``, ``config``, and optionally ``priority``,
    ``throughput``, ``webhooks``), with its programs probed; a BadSubmission otherwise."""
    if not isinstance(body, dict):
        raise BadSubmission("body", "expected a JSON object with kind and config")
    unknown = sorted(set(body) - SUBMISSION_FIELDS)
    if unknown:
        fields = ", ".join(sorted(SUBMISSION_FIELDS))
        raise BadSubmission(unknown[0], f"not a field of a submission ({fields})")
    kind_name = body.get("kind")
    if kind_name not in PLAYED_KINDS:
        names = ", ".join(PLAYED_KINDS)
        raise BadSubmission("kind", f"expected one of {names}, got {kind_name!r}")
    kind = RunKind(kind_name)
    config = body.get("config")
    if not isinstance(config, dict):
        raise BadSubmission("config", f"expected the {kind} run's configuration as a JSON object")
    version = config.get("engine_version")
    if version != engine.ENGINE_VERSION:
        raise BadSubmission(
            "config.engine_version", f"this server plays engine {engine.ENGINE_VERSION}, not {version!r}"
        )
    settings = decoded(kind, config)
    config = probe_programs(config, store, settings)
    return Submission(
        kind,
        config,
        decoded(kind, config),
        owner=owner_field(body),
        priority=number_field(body, "priority", 0, 0, MAX_PRIORITY),
        throughput=number_field(body, "throughput", 100, 1, MAX_THROUGHPUT),
        webhooks=webhooks_field(body),
    )


def decoded(kind: RunKind, config: dict[str, Any]) -> Any:
    """``config`` as ``kind`` reads it, re-encoded identically; a BadSubmission otherwise."""
    try:
        settings = kind_of(kind).decode(config)
        again = kind_of(kind).encode(settings)
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        if isinstance(e, KeyError) and e.args:
            raise BadSubmission(f"config.{e.args[0]}", "missing") from None
        unknown = UNKNOWN_ARGUMENT.search(str(e)) if isinstance(e, TypeError) else None
        if unknown is not None:
            raise BadSubmission(f"config.{unknown[1]}", f"not a field of a {kind} configuration") from None
        raise BadSubmission("config", str(e) or type(e).__name__) from None
    if again != config:
        extra = sorted(set(config) - set(again)) or sorted(k for k in config if config[k] != again.get(k))
        name = f"config.{extra[0]}" if extra else "config"
        raise BadSubmission(name, "not as this server stores it (unknown field or a value out of form)")
    try:
        check_fields(settings, "config")
    except WrongType as e:
        raise BadSubmission(e.where, e.message) from None
    return settings


def programs_in(value: Any, path: str = "config") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every engine program a configuration names, with where it is."""
    if isinstance(value, dict):
        if set(value) >= PROGRAM_KEYS:
            yield path, value
            return
        for key, item in value.items():
            yield from programs_in(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from programs_in(item, f"{path}[{index}]")


def probe_programs(config: dict[str, Any], store: Store, settings: Any) -> dict[str, Any]:
    """``config`` with each program it names probed here, from the archive uploaded before (a
    program the server has no archive of is refused; a commit is built by the workers)."""
    from coordinator.sides.probe import StartFailed, probe_program
    from wire.programs import EngineProgram
    from wire.secrecy import without_keys

    limits = getattr(settings, "limits", None)
    timed = isinstance(limits, engine.Limits) and not limits.deterministic
    found: dict[str, dict[str, Any]] = {}
    for where, data in programs_in(config):
        try:
            program = EngineProgram.from_json(data)
        except (ValueError, TypeError, KeyError) as e:
            raise BadSubmission(where, f"not an engine program ({e})") from None
        archive = None if program.build is not None else store.program_archive(program.digest)
        if program.build is None and archive is None:
            raise BadSubmission(
                f"{where}.digest", f"no program {program.digest[:12]} was uploaded (POST /api/v1/programs)"
            )
        try:  # the server holds the fleet's secret: the program starts from a process that never did
            probed, _note = without_keys(probe_program, program, archive, settings.game, timed)
        except StartFailed as e:
            raise BadSubmission(where, str(e)) from None
        found[where] = probed.to_json()
    if not found:
        return config
    changed: dict[str, Any] = replaced(config, found)
    return changed


def replaced(value: Any, found: dict[str, dict[str, Any]], path: str = "config") -> Any:
    """``value`` with the programs at the paths of ``found`` replaced."""
    if path in found:
        return found[path]
    if isinstance(value, dict):
        return {k: replaced(v, found, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [replaced(v, found, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def archive_digest(archive: bytes) -> str:
    """The digest of the program an uploaded archive holds; a BadSubmission for a bad archive."""
    from wire.programs import ProgramError, tree_digest, unpack

    with tempfile.TemporaryDirectory(prefix="arbiter-upload-") as folder:
        try:
            unpack(archive, Path(folder))
        except ProgramError as e:
            raise BadSubmission("body", str(e)) from None
        return tree_digest(Path(folder))


def store_submission(store: Store, submission: Submission) -> tuple[Run, bool]:
    """The run ``submission`` asks for: the unfinished one of the same configuration if there is
    one (or the latest finished one), else a new queued run; and whether it is new."""
    fingerprint = submission.settings.fingerprint()
    found = store.find_same(submission.kind, fingerprint, finished_too=True)
    if found is not None:
        return found, False
    s = submission
    run_id = store.create_served_run(
        s.kind,
        s.settings.game,
        s.config,
        fingerprint,
        s.owner,
        s.priority,
        s.throughput,
        s.webhooks,
        s.approval,
    )
    run = store.get_run(run_id)
    assert run is not None
    return run, True


def rerun_config(run: Run, seed: int | None, preset: str | None = None) -> Submission:
    """The submission of ``run`` again with a new seed (``seed``, else a random one), and with
    the bounds and limits of the server's ``preset`` when named (an LTC after an STC)."""
    kind = kind_of(run.kind)
    settings = run.settings
    if preset is not None:
        from coordinator.presets import apply_preset, preset_for

        try:
            settings = apply_preset(settings, preset_for(run.game, preset))
        except (ValueError, TypeError) as e:
            raise BadSubmission("preset", str(e)) from None
    new_seed = seed if seed is not None else random.SystemRandom().randrange(1, 2**31)
    if hasattr(settings, "seed"):
        again = replace(settings, seed=new_seed)
    elif hasattr(settings, "tune"):  # a campaign: its rounds' seeds come from its tuning's
        again = replace(settings, tune=replace(settings.tune, seed=new_seed))
    else:
        raise BadSubmission("run", f"a {run.kind} run has no seed to change")
    return Submission(run.kind, kind.encode(again), again)
