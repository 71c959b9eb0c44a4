"""The server's submission forms: an SPRT, a match, a tuning run or a tournament, built from the
form by the CLI's own command (``arbiter sprt``, ``match``, ``tune``, ``tournament`` through
``coordinator.cli.remote.built_run``: the same options, defaults, presets and checks) and submitted
the way the API submits (``coordinator.server.api.submitted``: the approval rules and the record of
who did what).

A side (an engine) is ``default``, ``ref:REF`` (a commit of the repository field, default arbiter's
own), or an uploaded file: weights (``.json``) or an engine program's folder as a ``.tar.gz`` or
``.zip`` holding its one engine file (``.toml``). Fields left blank take the preset's value, else the
command's default. Every error shows the form again with a line naming the field; nothing is
stored.
"""

from __future__ import annotations

import io
import json
import stat
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

import click
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

import engine
from coordinator.presets import Preset
from coordinator.registry import kind_of
from coordinator.server.api import server_store, submitted
from coordinator.server.submissions import BadSubmission
from coordinator.server.web_auth import caller, checked, csrf_input, form_of
from coordinator.store import Store
from coordinator.web.query import whole_number
from coordinator.web.responses import html_response


@dataclass(frozen=True)
class SideField:
    """An engine of a form: a text field (``default`` or ``ref:REF``) and a file field
    (``NAME_file``), given to the command as ``--OPTION``."""

    name: str
    label: str
    option: str
    #: The option a ref goes to (None: ``--OPTION=ref:REF``, as ``arbiter tournament`` takes it).
    ref_option: str | None = None
    #: Whether ``default`` is given to the command (else it is its default, left out).
    default_given: bool = True


TWO_SIDES = (
    SideField("candidate", "candidate (the engine under test)", "candidate", "candidate-ref"),
    SideField("baseline", "baseline (the engine to beat)", "baseline", "baseline-ref"),
)
TUNE_SIDES = (
    SideField(
        "candidate",
        "engine to tune (blank: the built-in engine's weights)",
        "candidate",
        "candidate-ref",
        default_given=False,
    ),
    SideField("start", "first champion's weights", "start"),
)
TOURNAMENT_SIDES = tuple(SideField(f"engine{i}", f"engine {i}", "engine") for i in range(1, 5))
#: Option fields of the forms: (field, label, hint).
LIMIT_FIELDS = (
    ("nodes", "nodes per move", "e.g. 20000"),
    ("depth", "depth per move", ""),
    ("movetime", "ms per move", "not deterministic"),
    ("tc", "time control", "10+0.1 (not deterministic)"),
    ("batch_pairs", "pairs per batch", ""),
    ("seed", "seed", "0"),
)
HYPOTHESIS_FIELDS = (
    ("elo0", "elo0", "H0"),
    ("elo1", "elo1", "H1"),
    ("model", "Elo model", "normalized or logistic"),
    ("alpha", "alpha", "0.05"),
    ("beta", "beta", "0.05"),
    ("max_games", "most games", "no cap"),
)


class FieldError(ValueError):
    """A form's field and what was expected."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


TUNE_FIELDS = (
    ("method", "method", "spsa or optuna"),
    ("params", "weights to tune", "A,B,C (default: all)"),
    ("max_games", "most games", ""),
    ("max_trials", "most trials (optuna)", ""),
    ("trial_pairs", "pairs per trial (optuna)", ""),
)
TOURNAMENT_FIELDS = (
    ("format", "format", "round-robin or gauntlet"),
    ("pairs", "game pairs per pairing", ""),
)


@dataclass(frozen=True)
class RunForm:
    """One kind's form: its command, title, engines and own fields."""

    kind: str
    title: str
    sides: tuple[SideField, ...]
    fields: tuple[tuple[str, str, str], ...]
    presets: bool = True

    def command(self) -> click.Command:
        """The CLI's command of the kind."""
        from importlib import import_module

        command: click.Command = getattr(import_module(f"coordinator.cli.{self.kind}"), self.kind)
        return command


FORMS = {
    "sprt": RunForm("sprt", "Submit an SPRT", TWO_SIDES, HYPOTHESIS_FIELDS + LIMIT_FIELDS),
    "match": RunForm("match", "Submit a match", TWO_SIDES, (("pairs", "game pairs", ""), *LIMIT_FIELDS)),
    "tune": RunForm("tune", "Submit a tuning run", TUNE_SIDES, TUNE_FIELDS + LIMIT_FIELDS, presets=False),
    "tournament": RunForm(
        "tournament", "Submit a tournament", TOURNAMENT_SIDES, TOURNAMENT_FIELDS + LIMIT_FIELDS, presets=False
    ),
}
#: What a CLI error's option is on the forms.
OPTION_FIELDS = {
    "candidate_ref": "candidate",
    "baseline_ref": "baseline",
    "preset_name": "preset",
    "engine_file": "candidate",
    "start_file": "start",
    "engines": "engine1",
    "engine": "engine1",
    "format_": "format",
}


def preset_fields(preset: Preset) -> dict[str, str]:
    """The form's fields a preset sets: its bounds and its limits (the limits it leaves unset
    empty)."""
    limits = preset.limits
    return {
        "elo0": f"{preset.elo0:g}",
        "elo1": f"{preset.elo1:g}",
        "model": preset.model,
        "alpha": f"{preset.alpha:g}",
        "beta": f"{preset.beta:g}",
        "nodes": "" if limits.nodes is None else str(limits.nodes),
        "depth": "" if limits.depth is None else str(limits.depth),
        "movetime": "" if limits.movetime_ms is None else str(limits.movetime_ms),
        "tc": "" if limits.time_control is None else str(limits.time_control),
    }


def presets_table() -> dict[str, dict[str, dict[str, str]]]:
    """The server's presets, by game and name, as the fields they fill."""
    from coordinator.presets import load_presets

    try:
        found = load_presets()
    except ValueError:
        return {}
    return {game: {name: preset_fields(p) for name, p in named.items()} for game, named in found.items()}


def _input(name: str, label: str, value: str, hint: str = "", error: str = "") -> str:
    said = f' <span class="error" id="error-{name}">{escape(error)}</span>' if error else ""
    return (
        f'<label>{escape(label)} <input name="{name}" id="{name}" value="{escape(value)}" '
        f'placeholder="{escape(hint)}">{said}</label>'
    )


def _select(name: str, label: str, choices: list[str], chosen: str, error: str = "", extra: str = "") -> str:
    options = "".join(f"<option{' selected' if c == chosen else ''}>{escape(c)}</option>" for c in choices)
    said = f' <span class="error" id="error-{name}">{escape(error)}</span>' if error else ""
    return f'<label>{escape(label)} <select name="{name}" id="{name}"{extra}>{options}</select>{said}</label>'


def form_page(
    request: Request, form: RunForm, values: dict[str, str], error: FieldError | None = None
) -> str:
    """The form, with ``values`` and (after a refused submission) the line naming the field."""
    who = caller(request)
    assert who is not None
    presets = presets_table()
    bad = {error.field: str(error)} if error is not None else {}
    top = f'<p class="error" id="form-error">{escape(str(error))}</p>' if error is not None else ""
    others = " · ".join(f'<a href="/submit/{k}">{escape(f.kind)}</a>' for k, f in FORMS.items())
    sides = "".join(
        f"<fieldset><legend>{escape(side.label)}</legend>"
        + _input(
            side.name, "default, or ref:REF", values.get(side.name, ""), "default", bad.get(side.name, "")
        )
        + f'<label>or a file <input type="file" name="{side.name}_file" id="{side.name}_file" '
        'accept=".json,.tar.gz,.tgz,.tar,.zip"></label>'
        + (
            f' <span class="error">{escape(bad[side.name + "_file"])}</span>'
            if side.name + "_file" in bad
            else ""
        )
        + '<span class="muted"> weights (.json), or the engine program\'s folder as .tar.gz or .zip with '
        "its engine file (.toml) inside</span></fieldset>"
        for side in form.sides
    )
    fields = "".join(
        _input(name, label, values.get(name, ""), hint, bad.get(name, ""))
        for name, label, hint in form.fields
    )
    body = (
        f"<main><h1>{escape(form.title)}</h1><p>kinds: {others}</p>{top}"
        f'<form class="people" method="post" action="/submit/{form.kind}" enctype="multipart/form-data">'
        f"{csrf_input(who)}"
        + _select(
            "game", "game", list(engine.GAMES), values.get("game", engine.GAMES[0]), bad.get("game", "")
        )
        + (
            _select(
                "preset",
                "preset (fills its bounds and limits; blank fields take them too)",
                ["", *sorted({n for named in presets.values() for n in named})],
                values.get("preset", ""),
                bad.get("preset", ""),
                f' data-presets="{escape(json.dumps(presets))}"',
            )
            if form.presets
            else ""
        )
        + sides
        + _input(
            "repo",
            "repository of the refs (https URL)",
            values.get("repo", ""),
            "arbiter's own",
            bad.get("repo", ""),
        )
        + f"<fieldset><legend>settings (blank: the preset's, else the default)</legend>{fields}</fieldset>"
        + _input(
            "throughput",
            "throughput among your runs (%)",
            values.get("throughput", ""),
            "100",
            bad.get("throughput", ""),
        )
        + _input(
            "webhook",
            "webhook (POSTed a JSON message when the run ends: Discord, Slack)",
            values.get("webhook", ""),
            "https://...",
            bad.get("webhook", ""),
        )
        + '<button type="submit" id="submit">submit</button></form>'
        '<p class="muted">A run waits for an approver unless the rules let it start at once; you follow '
        "it on its page.</p></main>"
    )
    return body


def submit_page(request: Request) -> Response:
    """``GET /submit`` and ``/submit/KIND``: the form (logged-in readers only)."""
    if caller(request) is None:
        return RedirectResponse(f"/login?next={request.url.path}", 303)
    form = FORMS.get(request.path_params.get("kind", "sprt"))
    if form is None:
        raise HTTPException(404, f"no form for {request.path_params['kind']!r}: there are {', '.join(FORMS)}")
    return html_response(form.title, form_page(request, form, {}))


# building the run ---------------------------------------------------------------------------------


def _contained(engine_file: Path, root: Path) -> None:
    """The engine file's folder and included option files lie inside the uploaded folder (an
    engine file must not reach the server's own files)."""
    data = tomllib.loads(engine_file.read_text())
    named = [data.get("workdir", ".")]
    include = data.get("include", [])
    named += [include] if isinstance(include, str) else list(include) if isinstance(include, list) else []
    for value in named:
        if not isinstance(value, str) or not (engine_file.parent / value).resolve().is_relative_to(
            root.resolve()
        ):
            raise ValueError(
                f"{engine_file.name}: workdir and include name places inside the uploaded folder"
            )


def _is_engine_file(path: Path) -> bool:
    """An engine file names a command (an option file holds only ``[options]``)."""
    try:
        return "command" in tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError, RecursionError):
        return False


def unpack_zip(data: bytes, root: Path) -> None:
    """A .zip of a program's folder into the empty ``root``, under the bounds of the programs'
    own archives (``zipfile`` keeps every name inside ``root``); the owner's execute bit kept.
    ProgramError for anything else."""
    from wire.programs import MAX_PROGRAM_BYTES, MAX_PROGRAM_FILES, ProgramError

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            if len(members) > MAX_PROGRAM_FILES or sum(m.file_size for m in members) > MAX_PROGRAM_BYTES:
                raise ProgramError(
                    f"program archive: more than {MAX_PROGRAM_FILES} files or {MAX_PROGRAM_BYTES >> 20} MiB"
                )
            for member in members:
                path = Path(archive.extract(member, root))
                if not member.is_dir() and (member.external_attr >> 16) & stat.S_IXUSR:
                    path.chmod(0o755)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
        raise ProgramError(f"program archive: cannot be unpacked ({e})") from None


def saved_side(side: str, filename: str, data: bytes, folder: Path) -> Path:
    """An uploaded side as the CLI reads it: a weights file, or the engine file of an unpacked
    program folder."""
    from wire.programs import ProgramError, unpack

    field = f"{side}_file"
    name = filename.lower()
    if name.endswith(".json"):
        path = folder / f"{side}.json"
        path.write_bytes(data)
        return path
    if not name.endswith((".tar.gz", ".tgz", ".tar", ".zip")):
        raise FieldError(
            field, "expected weights (.json) or a program folder as .tar.gz or .zip, got " + repr(filename)
        )
    root = folder / side
    root.mkdir()
    try:
        if name.endswith(".zip"):
            unpack_zip(data, root)
        else:
            unpack(data, root)
    except ProgramError as e:
        raise FieldError(field, str(e)) from None
    engine_files = [p for p in sorted(root.rglob("*.toml")) if _is_engine_file(p)]
    if len(engine_files) != 1:
        names = ", ".join(p.relative_to(root).as_posix() for p in engine_files) or "none"
        raise FieldError(field, f"expected one engine file (.toml) in the archive, found {names}")
    try:
        _contained(engine_files[0], root)
    except (ValueError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise FieldError(field, str(e)) from None
    return engine_files[0]


def side_options(side: SideField, text: str, upload: tuple[str, bytes] | None, folder: Path) -> list[str]:
    """The CLI options of one engine."""
    if text and upload is not None:
        raise FieldError(side.name, "give default, ref:REF or a file, not two of them")
    if upload is not None:
        return [f"--{side.option}={saved_side(side.name, upload[0], upload[1], folder)}"]
    if text.startswith("ref:"):
        ref = text.removeprefix("ref:").strip()
        if not ref or ref.startswith("-"):
            raise FieldError(side.name, "expected ref:REF with a branch, tag or commit")
        return [f"--{side.ref_option}={ref}" if side.ref_option else f"--{side.option}=ref:{ref}"]
    if text == "default":
        return [f"--{side.option}=default"] if side.default_given else []
    if text:
        raise FieldError(side.name, f"expected default, ref:REF, or a file to upload, got {text!r}")
    return []


def field_of(e: click.ClickException) -> str:
    """The form's field a CLI error is about."""
    import re

    name = ""
    if isinstance(e, click.BadParameter) and e.param is not None and e.param.name:
        name = e.param.name
    else:
        hint = getattr(e, "param_hint", None) or ""
        found = re.search(r"--([a-z0-9-]+)", f"{hint} {e.format_message()}")
        name = found[1] if found else "form"
    name = name.strip("'-").replace("-", "_")
    return OPTION_FIELDS.get(name, name)


def options_of(
    form: RunForm, values: dict[str, str], uploads: dict[str, tuple[str, bytes]], folder: Path
) -> list[str]:
    """The command line of ``form``'s command that ``values`` and ``uploads`` make."""
    game = values.get("game", "")
    if game not in engine.GAMES:
        raise FieldError("game", f"expected one of {', '.join(engine.GAMES)}")
    argv: list[str] = []
    for side in form.sides:
        argv += side_options(side, values.get(side.name, ""), uploads.get(side.name), folder)
    repo = values.get("repo", "")
    if repo:
        if not repo.startswith(("https://", "http://")):
            raise FieldError("repo", "expected an http(s) URL of a git repository")
        argv.append(f"--repo={repo}")
    if values.get("preset") and form.presets:
        argv.append(f"--preset={values['preset']}")
    for name, _label, _hint in form.fields:
        if values.get(name):
            argv.append(f"--{name.replace('_', '-')}={values[name]}")
    return [*argv, "--", game]


def built_body(
    form: RunForm, values: dict[str, str], uploads: dict[str, tuple[str, bytes]], store: Store
) -> dict[str, Any]:
    """The submission the form asks for, as the API takes it (the sides' programs kept in the
    store first); a FieldError naming the field."""
    from coordinator.cli.remote import built_run

    throughput = values.get("throughput") or "100"
    if not 1 <= (whole_number(throughput) or 0) <= 1000:
        raise FieldError("throughput", f"expected a whole number from 1 to 1000, got {throughput!r}")
    with tempfile.TemporaryDirectory(prefix="arbiter-form-") as folder:
        argv = options_of(form, values, uploads, Path(folder))
        try:
            built = built_run(form.command(), argv)
        except click.ClickException as e:
            raise FieldError(field_of(e), e.format_message()) from None
    for side in built.sides:
        side.keep(store)
    return {
        "kind": str(built.kind),
        "config": kind_of(built.kind).encode(built.config),
        "priority": built.priority,
        "throughput": int(throughput),
        "webhooks": [values["webhook"]] if values.get("webhook") else [],
    }


async def read_form(data: FormData, form: RunForm) -> tuple[dict[str, str], dict[str, tuple[str, bytes]]]:
    """The form's text fields and its uploaded files (by engine)."""
    values = {k: v.strip() for k, v in data.items() if isinstance(v, str)}
    uploads = {}
    for side in form.sides:
        upload = data.get(f"{side.name}_file")
        if isinstance(upload, UploadFile) and upload.filename:
            uploads[side.name] = (upload.filename, await upload.read())
    return values, uploads


async def submit_run(request: Request) -> Response:
    """``POST /submit/KIND``: the run the form asks for, submitted as the API submits it; the
    form again (400) with the line naming the field when it is refused."""
    form_data = await form_of(request)
    _who, me = checked(request, form_data)
    form = FORMS.get(request.path_params["kind"])
    if form is None:
        raise HTTPException(404, f"no form for {request.path_params['kind']!r}: there are {', '.join(FORMS)}")
    values, uploads = await read_form(form_data, form)
    values.pop("csrf", None)
    try:
        body = await run_in_threadpool(built_body, form, values, uploads, server_store(request))
        run, _created = await submitted(request, me, body)
    except FieldError as e:
        error = e
    except BadSubmission as e:  # the API's names: webhooks[0] is the form's webhook
        name = "webhook" if e.field.startswith("webhooks") else e.field
        error = FieldError(name, str(e).removeprefix(f"{e.field}: "))
    else:
        return RedirectResponse(f"/runs/{run.id}", 303)
    return html_response(form.title, form_page(request, form, values, error), 400)


#: The pages of this module: path, handler, methods.
ROUTES = (
    ("/submit", submit_page, ["GET"]),
    ("/submit/{kind:str}", submit_page, ["GET"]),
    ("/submit/{kind:str}", submit_run, ["POST"]),
)
