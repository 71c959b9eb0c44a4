"""The server's JSON API, version 1 (``/api/v1``; docs/server.md lists every endpoint).

Reading is open like the dashboard's. Every request that changes anything needs the server's token
(``Authorization: Bearer TOKEN``) when the server has one (``$ARBITER_SERVER_TOKEN``). Bad input
gets a 4xx answer ``{"error": "FIELD: what was expected"}`` and nothing is stored.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

import engine
from coordinator.registry import kind_of
from coordinator.reports.serving import serving
from coordinator.runs import RunState
from coordinator.server.submissions import (
    BadSubmission,
    archive_digest,
    number_field,
    read_submission,
    rerun_config,
    store_submission,
)
from coordinator.server.supervisor import PLAYED_KINDS
from coordinator.store import Run, ServiceRow, Store
from coordinator.store.service import MAX_PRIORITY, MAX_THROUGHPUT
from coordinator.web.api import workers_api
from coordinator.web.responses import json_response
from coordinator.web.state import path_number

API_VERSION = 1
#: Largest request body read (an engine program's archive is the largest thing sent).
MAX_BODY_BYTES = 64 << 20


def server_store(request: Request) -> Store:
    """The store the server writes (the dashboard's own is read-only)."""
    store: Store = request.app.state.server_store
    return store


def authorize(request: Request) -> None:
    """A 401 unless the request carries the server's token (when it has one)."""
    token: str | None = request.app.state.token
    if token is None:
        return
    given = request.headers.get("authorization", "")
    scheme, _, value = given.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token.encode()):
        raise HTTPException(
            401, "this server needs its token: Authorization: Bearer TOKEN ($ARBITER_SERVER_TOKEN)"
        )


async def json_body(request: Request) -> Any:
    """The request's JSON body (a 400 when it is not JSON, a 413 when too large)."""
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise HTTPException(413, f"body: larger than {MAX_BODY_BYTES >> 20} MiB")
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise HTTPException(400, f"body: expected JSON ({e})") from None


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
            "token_needed": request.app.state.token is not None,
        }
    )


def presets(request: Request) -> Response:
    """``GET /api/v1/presets``: the server's presets, by game (what ``rerun`` with a preset uses)."""
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
    """``GET /api/v1/runs``: the runs people started, newest first (``?state=``)."""
    store = server_store(request)
    state = request.query_params.get("state")
    if state is not None and state not in set(RunState):
        raise HTTPException(400, f"state: expected one of {', '.join(RunState)}, got {state!r}")
    services = store.services()
    rows = []
    for run in reversed(store.list_runs()):
        service = services.get(run.id)
        if not kind_of(run.kind).started_by_user or (service is not None and service.deleted):
            continue
        if state is None or run.state == state:
            rows.append(run_json(store, run, service))
    return json_response({"runs": rows})


def show_run(request: Request) -> Response:
    """``GET /api/v1/runs/N``: the run, its configuration and its status."""
    run = run_of(request)
    store = server_store(request)
    return json_response({"run": run_json(store, run, store.service(run.id), detail=True)})


async def submit(request: Request) -> Response:
    """``POST /api/v1/runs``: a new queued run (201), or the run of the same configuration that
    exists already (200)."""
    authorize(request)
    body = await json_body(request)
    store = server_store(request)
    try:
        submission = await _threaded(request, read_submission, body, store)
    except BadSubmission as e:
        raise refused(e) from None
    run, created = store_submission(store, submission)
    answer = {"run": run_json(store, run, store.service(run.id)), "created": created}
    return json_response(answer, 201 if created else 200)


async def change(request: Request) -> Response:
    """``PATCH /api/v1/runs/N``: a new ``priority`` or ``throughput``."""
    authorize(request)
    body = await json_body(request)
    run = run_of(request)
    if not isinstance(body, dict) or not body or set(body) - {"priority", "throughput"}:
        raise HTTPException(400, "body: expected an object with priority and/or throughput")
    store = server_store(request)
    try:
        priority = number_field(body, "priority", 0, 0, MAX_PRIORITY) if "priority" in body else None
        throughput = (
            number_field(body, "throughput", 100, 1, MAX_THROUGHPUT) if "throughput" in body else None
        )
    except BadSubmission as e:
        raise refused(e) from None
    store.update_service(run.id, priority=priority, throughput=throughput)
    return json_response({"run": run_json(store, run, store.service(run.id))})


def stop(request: Request) -> Response:
    """``POST /api/v1/runs/N/stop``: the run stops between two steps (resumable)."""
    authorize(request)
    run = run_of(request)
    if not run.state.unfinished:
        raise HTTPException(409, f"run {run.id} is {run.state}: only an unfinished run can be stopped")
    store = server_store(request)
    store.update_service(run.id, held=True)
    return json_response({"run": run_json(store, run, store.service(run.id))}, 202)


def resume(request: Request) -> Response:
    """``POST /api/v1/runs/N/resume``: a stopped or interrupted run is played again."""
    authorize(request)
    run = run_of(request)
    if not run.state.unfinished:
        raise HTTPException(409, f"run {run.id} is {run.state}: only an unfinished run can be resumed")
    store = server_store(request)
    store.update_service(run.id, held=False)
    store.reset_notified(run.id)
    if run.state is RunState.STOPPED:
        store.update_run(run.id, state=RunState.QUEUED)
    fresh = store.get_run(run.id) or run
    return json_response({"run": run_json(store, fresh, store.service(run.id))}, 202)


async def rerun(request: Request) -> Response:
    """``POST /api/v1/runs/N/rerun``: the same settings with a new seed (``{"seed": S}`` to
    choose it), as a new queued run."""
    authorize(request)
    body = await json_body(request)
    run = run_of(request)
    store = server_store(request)
    if not isinstance(body, dict) or set(body) - {
        "seed",
        "preset",
        "owner",
        "priority",
        "throughput",
        "webhooks",
    }:
        raise HTTPException(
            400, "body: expected an object with seed, preset, owner, priority, throughput or webhooks"
        )
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
    old = store.service(run.id)
    if old is not None:
        submission = _with_service(submission, old, body)
    created, new = store_submission(store, submission)
    return json_response({"run": run_json(store, created, store.service(created.id)), "created": new}, 201)


def delete(request: Request) -> Response:
    """``DELETE /api/v1/runs/N``: the run is stopped and hidden (its records are kept)."""
    authorize(request)
    run = run_of(request)
    server_store(request).update_service(run.id, held=True, deleted=True)
    return json_response({"deleted": run.id})


async def upload_program(request: Request) -> Response:
    """``POST /api/v1/programs?name=NAME``: an engine program's archive (the body, as
    ``worker.programs.pack`` makes it); its digest, which configurations name it by."""
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


def _with_service(submission: Any, service: ServiceRow, body: dict[str, Any]) -> Any:
    """A rerun keeps its run's owner, priority, throughput and webhooks unless given anew."""
    from dataclasses import replace

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
    ("/api/v1/runs/{run_id:int}", show_run, ["GET"]),
    ("/api/v1/runs/{run_id:int}", change, ["PATCH"]),
    ("/api/v1/runs/{run_id:int}", delete, ["DELETE"]),
    ("/api/v1/runs/{run_id:int}/stop", stop, ["POST"]),
    ("/api/v1/runs/{run_id:int}/resume", resume, ["POST"]),
    ("/api/v1/runs/{run_id:int}/rerun", rerun, ["POST"]),
    ("/api/v1/programs", upload_program, ["POST"]),
    ("/api/v1/presets", presets, ["GET"]),
    ("/api/v1/workers", workers_api, ["GET"]),
)
