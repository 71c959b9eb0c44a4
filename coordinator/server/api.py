"""The server's JSON API, version 1 (``/api/v1``; docs/server.md lists every endpoint).

Reading is open like the dashboard's. Every request that changes anything needs the server's token
(``Authorization: Bearer TOKEN``) when the server has one (``$ARBITER_SERVER_TOKEN``). Bad input
gets a 4xx answer ``{"error": "FIELD: what was expected"}`` and nothing is stored.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

import engine
from coordinator.accounts.identity import (
    CSRF_HEADER,
    OPERATOR,
    SESSION_COOKIE,
    Caller,
    Unauthorized,
    csrf_matches,
    identify,
)
from coordinator.accounts.rules import (
    Approval,
    Identity,
    Role,
    change_unapproves,
    may_act_on,
    may_approve,
    needs_approval,
)
from coordinator.registry import kind_of
from coordinator.reports.serving import serving
from coordinator.runs import RunState
from coordinator.server.submissions import (
    BadSubmission,
    Submission,
    archive_digest,
    number_field,
    programs_in,
    read_submission,
    rerun_config,
    store_submission,
)
from coordinator.server.supervisor import PLAYED_KINDS
from coordinator.store import Run, ServiceRow, Store
from coordinator.store.rows import AuditEntry
from coordinator.store.service import MAX_PRIORITY, MAX_THROUGHPUT
from coordinator.web.api import workers_api
from coordinator.web.query import whole_number
from coordinator.web.responses import json_response
from coordinator.web.state import path_number

API_VERSION = 1
#: Largest request body read (an engine program's archive is the largest thing sent).
MAX_BODY_BYTES = 64 << 20


def server_store(request: Request) -> Store:
    """The store the server writes (the dashboard's own is read-only)."""
    store: Store = request.app.state.server_store
    return store


def auth_required(request: Request) -> bool:
    """Whether every change needs a caller: when the server has a token or any account."""
    return request.app.state.token is not None or server_store(request).has_accounts()


def caller_of(request: Request) -> Caller | None:
    """Who the request comes from (None: anonymous); a 401 for a credential that is wrong."""
    try:
        return identify(
            request.headers.get("authorization"),
            request.cookies.get(SESSION_COOKIE),
            server_store(request),
            request.app.state.token,
        )
    except Unauthorized as e:
        raise HTTPException(401, f"authorization: {e}") from None


def authorize(request: Request) -> Identity:
    """Who may change something: the caller, checked (a session's CSRF token too); a 401 without
    one. A server without a token and without accounts (a machine's own) takes everyone as its
    operator."""
    caller = caller_of(request)
    if caller is None:
        if auth_required(request):
            raise HTTPException(
                401, "authorization: this server needs a token (arbiter login URL) or a session (log in)"
            )
        return Identity(OPERATOR, Role.ADMIN, operator=True)
    if not csrf_matches(caller, request.headers.get(CSRF_HEADER)):
        raise HTTPException(403, f"{CSRF_HEADER}: expected the session's CSRF token")
    return caller.identity


def readable(request: Request) -> None:
    """A 401 on a private server when nobody is logged in."""
    if request.app.state.policy.private and caller_of(request) is None:
        raise HTTPException(401, "authorization: this server is private: log in or send a token")


def allowed(who: Identity, run: Run, store: Store) -> ServiceRow | None:
    """The run's service row when ``who`` may act on it (its owner, an approver); a 403 else."""
    service = store.service(run.id)
    if not may_act_on(who, service.owner if service else None):
        raise HTTPException(403, f"run {run.id}: only its submitter or an approver may do that")
    return service


async def json_body(request: Request) -> Any:
    """The request's JSON body (a 400 when it is not JSON, a 413 when too large)."""
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise HTTPException(413, f"body: larger than {MAX_BODY_BYTES >> 20} MiB")
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as e:  # RecursionError: nested deeper than Python recurses
        raise HTTPException(400, f"body: expected JSON ({str(e)[:200]})") from None


def refused(e: BadSubmission) -> HTTPException:
    """The 400 answer of a bad submission."""
    return HTTPException(400, str(e))


def run_of(request: Request) -> Run:
    """The run the path names (a 404 otherwise, and for a deleted one)."""
    store = server_store(request)
    run_id = path_number(request, "run_id")
    run = store.get_run(run_id) if run_id > 0 else None
    service = store.service(run_id) if run is not None else None
    if run is None or (service is not None and service.deleted):
        raise HTTPException(404, f"no run {run_id} on this server")
    return run


def run_json(store: Store, run: Run, service: ServiceRow | None, detail: bool = False) -> dict[str, Any]:
    """A run as the API shows it: what it is, where it stands, how the server serves it."""
    kind = kind_of(run.kind)
    data: dict[str, Any] = {
        "id": run.id,
        "kind": str(run.kind),
        "game": run.game,
        "state": str(run.state),
        "decision": run.decision,
        "error": run.error,
        "games": kind.games(store, run),
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "line": kind.status_row(store, run),
        "page": f"/runs/{run.id}",
        "approval": service.approval if service else Approval.APPROVED,
        "approved_by": service.approved_by if service else None,
    } | serving(store, run, service).to_json()
    if detail:
        data["config"] = run.config
        data["status"] = kind.status_json(store, run)
        data["text"] = kind.status_text(store, run)
    return data


# endpoints ----------------------------------------------------------------------------------------


def index(request: Request) -> Response:
    """``GET /api/v1``: the API's version, the server's engine, the kinds it plays."""
    return json_response(
        {
            "api": API_VERSION,
            "engine_version": engine.ENGINE_VERSION,
            "kinds": list(PLAYED_KINDS),
            "token_needed": auth_required(request),
            "signup": request.app.state.policy.signup,
        }
    )


def presets(request: Request) -> Response:
    """``GET /api/v1/presets``: the server's presets, by game (what ``rerun`` with a preset uses)."""
    readable(request)
    from coordinator.presets import load_presets, presets_file

    try:
        found = load_presets()
    except ValueError as e:
        raise HTTPException(503, str(e)) from None
    return json_response(
        {
            "file": str(presets_file().path),
            "presets": {game: {n: p.to_json() for n, p in named.items()} for game, named in found.items()},
        }
    )


def list_runs(request: Request) -> Response:
    """``GET /api/v1/runs``: the runs people started, newest first (``?state=``, ``?owner=``,
    ``?approval=``)."""
    readable(request)
    store = server_store(request)
    state = request.query_params.get("state")
    owner = request.query_params.get("owner")
    approval = request.query_params.get("approval")
    if state is not None and state not in set(RunState):
        raise HTTPException(400, f"state: expected one of {', '.join(RunState)}, got {state!r}")
    if approval is not None and approval not in set(Approval):
        raise HTTPException(400, f"approval: expected one of {', '.join(Approval)}, got {approval!r}")
    services = store.services()
    rows = []
    for run in reversed(store.list_runs()):
        service = services.get(run.id)
        if not kind_of(run.kind).started_by_user or (service is not None and service.deleted):
            continue
        if state is not None and run.state != state:
            continue
        if owner is not None and (service is None or service.owner != owner):
            continue
        if approval is not None and (service.approval if service else Approval.APPROVED) != approval:
            continue
        rows.append(run_json(store, run, service))
    return json_response({"runs": rows})


def show_run(request: Request) -> Response:
    """``GET /api/v1/runs/N``: the run, its configuration and its status."""
    readable(request)
    run = run_of(request)
    store = server_store(request)
    return json_response({"run": run_json(store, run, store.service(run.id), detail=True)})


def admitted(request: Request, who: Identity, submission: Submission) -> Submission:
    """``submission`` as ``who`` may make it: theirs (the operator may name a submitter), and
    waiting for an approver when the rules say so."""
    runs_a_program = any(True for _ in programs_in(submission.config))
    waits = needs_approval(who, runs_a_program, request.app.state.policy)
    owner = submission.owner if who.operator else who.name
    return replace(submission, owner=owner, approval=Approval.PENDING if waits else Approval.APPROVED)


async def submit(request: Request) -> Response:
    """``POST /api/v1/runs``: a new queued run (201), or the run of the same configuration that
    exists already (200)."""
    who = authorize(request)
    body = await json_body(request)
    store = server_store(request)
    try:
        run, created = await submitted(request, who, body)
    except BadSubmission as e:
        raise refused(e) from None
    answer = {"run": run_json(store, run, store.service(run.id)), "created": created}
    return json_response(answer, 201 if created else 200)


async def submitted(request: Request, who: Identity, body: Any) -> tuple[Run, bool]:
    """The run ``body`` asks for, submitted by ``who`` (the web's forms submit the same way): a
    new one recorded, or the one of the same configuration; a BadSubmission naming the field."""
    store = server_store(request)
    submission = admitted(request, who, await _threaded(request, read_submission, body, store))
    run, created = store_submission(store, submission)
    if created:
        store.record(who.name, "submit", run.id, {"kind": str(run.kind), "approval": submission.approval})
    return run, created


async def change(request: Request) -> Response:
    """``PATCH /api/v1/runs/N``: a new ``priority`` or ``throughput`` (a change by anyone but an
    approver sends the run back to the approvers)."""
    who = authorize(request)
    body = await json_body(request)
    store, run = server_store(request), changed(request, who, body)
    return json_response({"run": run_json(store, run, store.service(run.id))})


def changed(request: Request, who: Identity, body: Any) -> Run:
    """The run of the path with the ``priority`` and/or ``throughput`` of ``body``; back to the
    approvers when ``who`` is not one."""
    run = run_of(request)
    if not isinstance(body, dict) or not body or set(body) - {"priority", "throughput"}:
        raise HTTPException(400, "body: expected an object with priority and/or throughput")
    store = server_store(request)
    allowed(who, run, store)
    try:
        priority = number_field(body, "priority", 0, 0, MAX_PRIORITY) if "priority" in body else None
        throughput = (
            number_field(body, "throughput", 100, 1, MAX_THROUGHPUT) if "throughput" in body else None
        )
    except BadSubmission as e:
        raise refused(e) from None
    store.update_service(run.id, priority=priority, throughput=throughput)
    if change_unapproves(who) and run.state.unfinished:
        store.set_approval(run.id, Approval.PENDING)
    store.record(who.name, "change", run.id, body)
    return run


def approve(request: Request) -> Response:
    """``POST /api/v1/runs/N/approve``: an approver lets the run be played (never their own)."""
    store, run = server_store(request), approved(request, authorize(request))
    return json_response({"run": run_json(store, run, store.service(run.id))})


def stop(request: Request) -> Response:
    """``POST /api/v1/runs/N/stop``: the run stops between two steps (resumable)."""
    store, run = server_store(request), stopped(request, authorize(request))
    return json_response({"run": run_json(store, run, store.service(run.id))}, 202)


def resume(request: Request) -> Response:
    """``POST /api/v1/runs/N/resume``: a stopped or interrupted run is played again."""
    store, run = server_store(request), resumed(request, authorize(request))
    return json_response({"run": run_json(store, run, store.service(run.id))}, 202)


# what the endpoints do, for a caller already checked (the web's buttons do the same) -----------------


def approved(request: Request, who: Identity) -> Run:
    """The run of the path, approved by ``who`` (a 403 for anyone but an approver, and for its
    own submitter)."""
    run = run_of(request)
    store = server_store(request)
    service = store.service(run.id)
    if not may_approve(who, service.owner if service else None):
        why = "its own submitter cannot approve it" if who.approves else "only an approver may approve"
        raise HTTPException(403, f"run {run.id}: {why}")
    store.set_approval(run.id, Approval.APPROVED, who.name)
    store.record(who.name, "approve", run.id)
    return run


def unfinished(request: Request, who: Identity, done: str) -> tuple[Run, Store]:
    """The run of the path, which ``who`` may act on, and the store; a 409 for a finished run
    (``done``: what the action does to a run, "stopped", "resumed")."""
    run = run_of(request)
    store = server_store(request)
    allowed(who, run, store)
    if not run.state.unfinished:
        raise HTTPException(409, f"run {run.id} is {run.state}: only an unfinished run can be {done}")
    return run, store


def stopped(request: Request, who: Identity) -> Run:
    """The run of the path, stopping between two steps."""
    run, store = unfinished(request, who, "stopped")
    store.update_service(run.id, held=True)
    store.record(who.name, "stop", run.id)
    return run


def resumed(request: Request, who: Identity) -> Run:
    """The run of the path, played again."""
    run, store = unfinished(request, who, "resumed")
    store.update_service(run.id, held=False)
    store.reset_notified(run.id)
    if run.state is RunState.STOPPED:
        store.update_run(run.id, state=RunState.QUEUED)
    store.record(who.name, "resume", run.id)
    return store.get_run(run.id) or run


RERUN_FIELDS = frozenset({"seed", "preset", "owner", "priority", "throughput", "webhooks"})


async def rerun(request: Request) -> Response:
    """``POST /api/v1/runs/N/rerun``: the same settings with a new seed (``{"seed": S}`` to
    choose it, ``{"preset": NAME}`` for a follow-up), as a new queued run."""
    who = authorize(request)
    body = await json_body(request)
    store = server_store(request)
    created, new = await rerun_of(request, who, body)
    return json_response({"run": run_json(store, created, store.service(created.id)), "created": new}, 201)


async def rerun_of(request: Request, who: Identity, body: Any) -> tuple[Run, bool]:
    """The run of the path again, as ``who`` asks in ``body`` (``seed``, ``preset``, ...); and
    whether it is a new run."""
    run = run_of(request)
    store = server_store(request)
    old = allowed(who, run, store)
    if not isinstance(body, dict) or set(body) - RERUN_FIELDS:
        raise HTTPException(400, f"body: expected an object with {', '.join(sorted(RERUN_FIELDS))}")
    seed = body.pop("seed", None)
    preset = body.pop("preset", None)
    if preset is not None and not isinstance(preset, str):
        raise HTTPException(400, f"preset: expected a preset's name, got {preset!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
        raise HTTPException(400, f"seed: expected a whole number from 0 to 2^63-1, got {seed!r}")
    try:
        again = rerun_config(run, seed, preset)
        submission = await _threaded(
            request, read_submission, {"kind": str(again.kind), "config": again.config, **body}, store
        )
    except BadSubmission as e:
        raise refused(e) from None
    if old is not None:
        submission = _with_service(submission, old, body)
    submission = admitted(request, who, submission) if not who.operator else submission
    created, new = store_submission(store, submission)
    if new:
        store.record(who.name, "rerun", created.id, {"of": run.id, "preset": preset})
    return created, new


def delete(request: Request) -> Response:
    """``DELETE /api/v1/runs/N``: the run is stopped and hidden (its records are kept)."""
    who = authorize(request)
    run = run_of(request)
    store = server_store(request)
    allowed(who, run, store)
    store.update_service(run.id, held=True, deleted=True)
    store.record(who.name, "delete", run.id)
    return json_response({"deleted": run.id})


async def upload_program(request: Request) -> Response:
    """``POST /api/v1/programs?name=NAME``: an engine program's archive (the body, as
    ``wire.programs.pack`` makes it); its digest, which configurations name it by."""
    authorize(request)
    name = request.query_params.get("name", "program")
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise HTTPException(413, f"body: larger than {MAX_BODY_BYTES >> 20} MiB")
    try:
        digest = await _threaded(request, archive_digest, raw)
    except BadSubmission as e:
        raise refused(e) from None
    server_store(request).keep_program(digest, name, raw)
    return json_response({"digest": digest, "name": name, "size": len(raw)}, 201)


def workers(request: Request) -> Response:
    """``GET /api/v1/workers``: the workers online (the dashboard's ``/api/workers``)."""
    readable(request)
    return workers_api(request)


def audit_of(request: Request) -> tuple[int | None, list[AuditEntry]]:
    """The run the ``run`` query names (None: every run; a 400 for anything but a run's number),
    and who did what to it, newest first."""
    run = request.query_params.get("run")
    number = whole_number(run) if run is not None else None
    if run is not None and number is None:
        raise HTTPException(400, f"run: expected a run's number, got {run!r}")
    return number, server_store(request).audit(number)


def audit(request: Request) -> Response:
    """``GET /api/v1/audit[?run=N]``: who did what, newest first."""
    readable(request)
    _, entries = audit_of(request)
    return json_response({"audit": [e.to_json() for e in entries]})


def _with_service(submission: Any, service: ServiceRow, body: dict[str, Any]) -> Any:
    """A rerun keeps its run's owner, priority, throughput and webhooks unless given anew."""
    kept: dict[str, Any] = {"owner": service.owner, "priority": service.priority}
    kept |= {"throughput": service.throughput, "webhooks": service.webhooks}
    return replace(submission, **{k: v for k, v in kept.items() if k not in body})


async def _threaded(request: Request, function: Any, *args: Any) -> Any:
    """``function(*args)`` in Starlette's thread pool (probes and unpacking take seconds)."""
    from starlette.concurrency import run_in_threadpool

    del request
    return await run_in_threadpool(function, *args)


#: Every endpoint: path, handler, methods.
ROUTES = (
    ("/api/v1", index, ["GET"]),
    ("/api/v1/runs", list_runs, ["GET"]),
    ("/api/v1/runs", submit, ["POST"]),
    ("/api/v1/runs/{run_id:number}", show_run, ["GET"]),
    ("/api/v1/runs/{run_id:number}", change, ["PATCH"]),
    ("/api/v1/runs/{run_id:number}", delete, ["DELETE"]),
    ("/api/v1/runs/{run_id:number}/stop", stop, ["POST"]),
    ("/api/v1/runs/{run_id:number}/approve", approve, ["POST"]),
    ("/api/v1/runs/{run_id:number}/resume", resume, ["POST"]),
    ("/api/v1/runs/{run_id:number}/rerun", rerun, ["POST"]),
    ("/api/v1/programs", upload_program, ["POST"]),
    ("/api/v1/presets", presets, ["GET"]),
    ("/api/v1/workers", workers, ["GET"]),
    ("/api/v1/audit", audit, ["GET"]),
)
