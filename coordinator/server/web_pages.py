"""The server's pages for people: a run's submitter, approval and buttons (approve, stop, resume,
rerun, a change of priority or throughput) on its page; "my runs"; the account page (tokens: list,
create, revoke); the approvers' page of accounts; and the record of who did what.

Every button is a POST form with the session's CSRF token (coordinator.server.web_auth.checked),
and does what the API's endpoint does (coordinator.server.api), rules and record included.
"""

from __future__ import annotations

from html import escape
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from coordinator.accounts.rules import (
    AccountState,
    Approval,
    Role,
    change_unapproves,
    may_act_on,
    may_approve,
)
from coordinator.reports.html import Markup, table
from coordinator.server.accounts_api import account_changed, token_made, token_revoked
from coordinator.server.api import approved, audit_of, changed, rerun_of, resumed, server_store, stopped
from coordinator.server.web_auth import caller, checked, csrf_input, form_of, post_button
from coordinator.store import Run, Store
from coordinator.store.rows import Account
from coordinator.web.query import whole_number
from coordinator.web.responses import html_response
from coordinator.web.state import path_number


def _audit_rows(entries: list[Any]) -> list[list[Any]]:
    return [
        [
            e.at.isoformat(timespec="seconds"),
            e.actor,
            e.action,
            "" if e.run_id is None else e.run_id,
            "" if not e.detail else ", ".join(f"{k}={v}" for k, v in sorted(e.detail.items())),
        ]
        for e in entries
    ]


def run_panel(request: Request, run: Run) -> str:
    """What a run's page shows of the people around it: its submitter, where it stands with the
    approvers, and the buttons the logged-in reader may use."""
    service = server_store(request).service(run.id)
    if service is None:
        return ""
    owner = service.owner
    state = service.approval
    by = f" by {escape(service.approved_by)}" if service.approved_by else ""
    waits = " (waits for an approver: not played until approved)" if state == Approval.PENDING else ""
    parts = [
        f'<p id="people">submitted by <b>{escape(owner or "-")}</b> · approval: '
        f'<b data-field="approval">{escape(state)}</b>{by}{escape(waits)} · '
        f'<a href="/audit?run={run.id}">who did what</a></p>'
    ]
    who = caller(request)
    if who is not None:
        me = who.identity
        buttons = []
        if state == Approval.PENDING and may_approve(me, owner):
            buttons.append(post_button(f"/runs/{run.id}/approve", "approve", who))
        if may_act_on(me, owner):
            if run.state.unfinished and not service.held:
                buttons.append(post_button(f"/runs/{run.id}/stop", "stop", who))
            if run.state.unfinished and (service.held or str(run.state) in ("stopped", "interrupted")):
                buttons.append(post_button(f"/runs/{run.id}/resume", "resume", who))
            buttons.append(post_button(f"/runs/{run.id}/rerun", "rerun", who))
            if run.state.unfinished:
                back = " (sends the run back to the approvers)" if change_unapproves(me) else ""
                fields = (
                    f'priority <input name="priority" size="2" value="{service.priority}"> '
                    f'throughput % <input name="throughput" size="4" value="{service.throughput}"> '
                )
                buttons.append(post_button(f"/runs/{run.id}/change", f"change{back}", who, fields))
        if buttons:
            parts.append(f'<div class="links">{"".join(buttons)}</div>')
    return "".join(parts)


def change_body(form: Any) -> dict[str, int]:
    """The ``priority`` and ``throughput`` of a run's change form, as the API takes them."""
    body = {}
    for name in ("priority", "throughput"):
        value = form.get(name)
        if isinstance(value, str) and value.strip():
            number = whole_number(value.strip())
            if number is None:
                raise HTTPException(400, f"{name}: expected a whole number, got {value!r}")
            body[name] = number
    return body


async def run_action(request: Request) -> Response:
    """``POST /runs/N/approve|stop|resume|rerun|change``: the button of a run's page; back to the
    run's page (the new run's, for a rerun)."""
    form = await form_of(request)
    _who, me = checked(request, form)
    action = request.path_params["action"]
    if action == "approve":
        run = approved(request, me)
    elif action == "stop":
        run = stopped(request, me)
    elif action == "resume":
        run = resumed(request, me)
    elif action == "rerun":
        run, _new = await rerun_of(request, me, {})
    elif action == "change":
        run = changed(request, me, change_body(form))
    else:
        raise HTTPException(
            404, f"no button {action!r}: a run's page has approve, stop, resume, rerun, change"
        )
    return RedirectResponse(f"/runs/{run.id}", 303)


def mine_page(request: Request) -> Response:
    """``/mine``: the runs list of the logged-in reader's runs."""
    who = caller(request)
    if who is None:
        return RedirectResponse("/login?next=/mine", 303)
    from urllib.parse import quote

    return RedirectResponse(f"/?owner={quote(who.identity.name)}", 303)


def _own_account(store: Store, name: str) -> Account:
    """The logged-in reader's account, by their ``name`` (a 404 if it is gone)."""
    account = store.account(name)
    if account is None:
        raise HTTPException(404, f"no account {name!r}")
    return account


def account_page(request: Request, created: str | None = None) -> Response:
    """``/account``: who is logged in, their tokens (never their values, but once at creation),
    a new token, revoking one, logging out."""
    who = caller(request)
    if who is None:
        return RedirectResponse("/login?next=/account", 303)
    me = who.identity
    store = server_store(request)
    account = _own_account(store, me.name)
    shown = (
        '<p class="notice">Your new token (shown this once; keep it): '
        f'<code id="new-token">{escape(created)}</code></p>'
        if created
        else ""
    )
    rows = [
        [
            t.id,
            t.label,
            t.created_at.isoformat(timespec="seconds"),
            t.last_used_at.isoformat(timespec="seconds") if t.last_used_at else "-",
            "revoked"
            if t.revoked_at
            else Markup(post_button(f"/account/tokens/{t.id}/revoke", "revoke", who)),
        ]
        for t in store.tokens_of(account.id)
    ]
    tokens = table(("#", "label", "created", "last used", ""), rows) if rows else "<p>No tokens.</p>"
    body = (
        f"<main><h1>Account {escape(me.name)}</h1><p>role: <b>{escape(me.role)}</b></p>{shown}"
        '<h2>Tokens</h2><p class="muted">For the CLI and scripts '
        "(<code>arbiter login URL</code> makes one too).</p>"
        f"{tokens}"
        f'<form class="people" method="post" action="/account/tokens">{csrf_input(who)}'
        '<label>label <input name="label" value="cli" maxlength="64" required></label>'
        '<button type="submit">new token</button></form>'
        f'<p><a href="/mine">my runs</a> · {post_button("/logout", "log out", who)}</p></main>'
    )
    return html_response(f"Account {me.name}", body)


async def new_token_page(request: Request) -> Response:
    """``POST /account/tokens`` (label): a new token, shown once on the account page."""
    form = await form_of(request)
    _who, me = checked(request, form)
    store = server_store(request)
    token = token_made(store, _own_account(store, me.name), form.get("label"))
    return account_page(request, created=token)


async def revoke_token_page(request: Request) -> Response:
    """``POST /account/tokens/ID/revoke``: one of the reader's tokens stops working."""
    form = await form_of(request)
    _who, me = checked(request, form)
    token_id = path_number(request, "token_id")
    store = server_store(request)
    token_revoked(store, store.account(me.name), token_id)
    return RedirectResponse("/account", 303)


def accounts_page(request: Request) -> Response:
    """``/accounts``: every account; an approver enables pending ones, an admin also disables
    accounts and changes roles."""
    who = caller(request)
    if who is None:
        return RedirectResponse("/login?next=/accounts", 303)
    me = who.identity
    if not me.approves:
        raise HTTPException(403, "accounts: only approvers and admins see the accounts")
    rows = []
    for account in server_store(request).list_accounts():
        buttons = []
        if account.name != me.name:
            target = f"/accounts/{account.name}"
            if account.state == AccountState.PENDING:
                buttons.append(
                    post_button(target, "enable", who, '<input type="hidden" name="state" value="active">')
                )
            if me.admin and account.state == AccountState.DISABLED:
                buttons.append(
                    post_button(target, "enable", who, '<input type="hidden" name="state" value="active">')
                )
            if me.admin and account.state != AccountState.DISABLED:
                buttons.append(
                    post_button(
                        target, "disable", who, '<input type="hidden" name="state" value="disabled">'
                    ),
                )
            if me.admin:
                options = "".join(
                    f"<option{' selected' if r == account.role else ''}>{escape(r)}</option>" for r in Role
                )
                buttons.append(
                    post_button(target, "set role", who, f'<select name="role">{options}</select>')
                )
        rows.append([account.name, account.role, account.state, Markup("".join(buttons))])
    body = (
        "<main><h1>Accounts</h1>"
        f"{table(('name', 'role', 'state', ''), rows, left=(0, 1, 2, 3))}"
        '<p class="muted">Approvers enable pending accounts; admins also disable accounts and set '
        "roles.</p></main>"
    )
    return html_response("Accounts", body)


async def change_account_page(request: Request) -> Response:
    """``POST /accounts/NAME`` (state and/or role): the accounts page's buttons, under the rules
    of ``PATCH /api/v1/accounts/NAME``."""
    form = await form_of(request)
    _who, me = checked(request, form)
    account_changed(
        server_store(request), me, request.path_params["name"], form.get("state"), form.get("role")
    )
    return RedirectResponse("/accounts", 303)


def audit_page(request: Request) -> Response:
    """``/audit[?run=N]``: who did what, newest first (of one run with ``run``)."""
    run, entries = audit_of(request)
    title = f"Who did what to run {run}" if run is not None else "Who did what"
    rows = _audit_rows(entries)
    shown = (
        table(("at", "who", "what", "run", "detail"), rows, left=(1, 2, 4)) if rows else "<p>Nothing yet.</p>"
    )
    back = f'<p><a href="/runs/{run}">run {run}</a></p>' if run is not None else ""
    return html_response(title, f"<main><h1>{escape(title)}</h1>{back}{shown}</main>")


#: The pages of this module: path, handler, methods.
ROUTES = (
    ("/runs/{run_id:number}/{action:str}", run_action, ["POST"]),
    ("/mine", mine_page, ["GET"]),
    ("/account", account_page, ["GET"]),
    ("/account/tokens", new_token_page, ["POST"]),
    ("/account/tokens/{token_id:number}/revoke", revoke_token_page, ["POST"]),
    ("/accounts", accounts_page, ["GET"]),
    ("/accounts/{name}", change_account_page, ["POST"]),
    ("/audit", audit_page, ["GET"]),
)
