"""The API of accounts (``/api/v1``): sign-up, tokens for the CLI and scripts, and the approvers'
and admins' management of accounts. Passwords are checked with a bound on failures per name and
address (``logins``)."""

from __future__ import annotations

import re
import threading
import time
from collections import defaultdict, deque
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from coordinator.accounts.passwords import (
    MAX_PASSWORD,
    check_password,
    hash_password,
    needs_rehash,
    verify_password,
)
from coordinator.accounts.rules import AccountState, Identity, Role
from coordinator.server.api import authorize, json_body, server_store
from coordinator.store import Store
from coordinator.store.rows import Account
from coordinator.web.responses import json_response

#: An account's name.
NAME_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
#: Failed logins allowed per name and per address within :data:`FAILURE_WINDOW` seconds.
MAX_FAILURES = 5
FAILURE_WINDOW = 300.0


class LoginThrottle:
    """Failed logins per key (a name, an address) in a sliding window: past the bound, a 429."""

    def __init__(self, limit: int = MAX_FAILURES, window: float = FAILURE_WINDOW) -> None:
        self.limit = limit
        self.window = window
        self._failures: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        found = self._failures[key]
        while found and now - found[0] > self.window:
            found.popleft()
        return found

    def check(self, *keys: str) -> None:
        """A 429 when any key failed too often lately."""
        now = time.monotonic()
        with self._lock:
            if any(len(self._recent(k, now)) >= self.limit for k in keys):
                raise HTTPException(429, "login: too many failed attempts; try again in a few minutes")

    def failed(self, *keys: str) -> None:
        now = time.monotonic()
        with self._lock:
            for key in keys:
                self._recent(key, now).append(now)


def name_field(body: dict[str, Any]) -> str:
    value = body.get("name")
    if not isinstance(value, str) or not NAME_PATTERN.fullmatch(value):
        raise HTTPException(400, "name: expected 1 to 64 letters, digits, '.', '_' or '-'")
    return value


def password_field(body: dict[str, Any]) -> str:
    value = body.get("password")
    if not isinstance(value, str):
        raise HTTPException(400, "password: expected a string")
    try:
        return check_password(value)
    except ValueError as e:
        raise HTTPException(400, str(e)) from None


def object_body(body: Any, fields: set[str]) -> dict[str, Any]:
    if not isinstance(body, dict) or set(body) - fields:
        raise HTTPException(400, f"body: expected an object with {', '.join(sorted(fields))}")
    return body


def check_login(request: Request, store: Store, name: Any, password: Any) -> Account:
    """The active account a name and password open; a 401 (the same for every wrong part) or a 429
    after too many failures."""
    throttle: LoginThrottle = request.app.state.logins
    address = request.client.host if request.client else "?"
    keys = (f"name:{name}", f"address:{address}")
    throttle.check(*keys)
    account = store.account(name) if isinstance(name, str) and NAME_PATTERN.fullmatch(name) else None
    good = (
        account is not None
        and isinstance(password, str)
        and len(password) <= MAX_PASSWORD
        and verify_password(account.password_hash, password)
    )
    if account is None or not good:
        throttle.failed(*keys)
        raise HTTPException(401, "login: unknown name or wrong password")
    if account.state != AccountState.ACTIVE:
        raise HTTPException(403, f"login: account {account.name} is {account.state}")
    if needs_rehash(account.password_hash):
        store.update_account(account.name, password_hash=hash_password(password))
    return account


async def signup(request: Request) -> Response:
    """``POST /api/v1/signup`` ``{"name", "password"}``: a pending account an approver enables."""
    if not request.app.state.policy.signup:
        raise HTTPException(403, "signup: this server's operator turned sign-up off")
    body = object_body(await json_body(request), {"name", "password"})
    name, password = name_field(body), password_field(body)
    store = server_store(request)
    try:
        store.create_account(name, hash_password(password), Role.USER, AccountState.PENDING)
    except ValueError as e:
        raise HTTPException(409, str(e)) from None
    store.record(name, "signup", None, {"name": name})
    return json_response({"account": store.account(name).to_json()}, 201)  # type: ignore[union-attr]


def token_made(store: Store, account: Account, label: Any) -> str:
    """A new token of ``account`` named ``label`` (1 to 64 characters, else a 400), recorded;
    its value (shown once)."""
    if not isinstance(label, str) or not 1 <= len(label) <= 64:
        raise HTTPException(400, "label: expected 1 to 64 characters")
    token = store.new_token(account.id, label)
    store.record(account.name, "token", None, {"label": label})
    return token


def token_revoked(store: Store, account: Account | None, token_id: int) -> None:
    """Token ``token_id`` of ``account`` revoked, and recorded; a 404 when it is not one of the
    account's live tokens (or there is no account)."""
    if account is None or not store.revoke_token(account.id, token_id):
        raise HTTPException(404, f"token {token_id}: none of yours, or revoked already")
    store.record(account.name, "revoke token", None, {"token": token_id})


async def new_token(request: Request) -> Response:
    """``POST /api/v1/tokens`` ``{"name", "password", "label"?}``: a token of the account for the
    CLI and scripts (``arbiter login``), shown once."""
    body = object_body(await json_body(request), {"name", "password", "label"})
    store = server_store(request)
    account = check_login(request, store, body.get("name"), body.get("password"))
    token = token_made(store, account, body.get("label", "cli"))
    return json_response({"token": token, "name": account.name, "role": account.role}, 201)


def caller_account(request: Request) -> tuple[Identity, Account]:
    """The caller's own account (a 403 for the operator's token, which has none)."""
    who = authorize(request)
    account = server_store(request).account(who.name) if not who.operator else None
    if account is None:
        raise HTTPException(403, "tokens: the operator's token belongs to no account")
    return who, account


def list_tokens(request: Request) -> Response:
    """``GET /api/v1/tokens``: the caller's tokens (never their values)."""
    _, account = caller_account(request)
    return json_response({"tokens": [t.to_json() for t in server_store(request).tokens_of(account.id)]})


def revoke_token(request: Request) -> Response:
    """``DELETE /api/v1/tokens/ID``: revoke one of the caller's tokens."""
    _, account = caller_account(request)
    token_id = int(request.path_params["token_id"])
    token_revoked(server_store(request), account, token_id)
    return json_response({"revoked": token_id})


def me(request: Request) -> Response:
    """``GET /api/v1/me``: who the credentials name."""
    who = authorize(request)
    return json_response({"name": who.name, "role": who.role, "operator": who.operator})


def list_accounts(request: Request) -> Response:
    """``GET /api/v1/accounts``: every account (approvers and admins)."""
    who = authorize(request)
    if not who.approves:
        raise HTTPException(403, "accounts: only approvers and admins see the accounts")
    return json_response({"accounts": [a.to_json() for a in server_store(request).list_accounts()]})


def account_changed(store: Store, who: Identity, name: str, state: Any, role: Any) -> None:
    """Account ``name`` given ``state`` and/or ``role`` by ``who``, under the rules (an approver
    enables a pending account; everything else is an admin's; nobody changes their own), and
    recorded; a 4xx naming what is wrong."""
    account = store.account(name)
    if account is None:
        raise HTTPException(404, f"no account {name!r}")
    if state is not None and state not in set(AccountState):
        raise HTTPException(400, f"state: expected one of {', '.join(AccountState)}, got {state!r}")
    if role is not None and role not in set(Role):
        raise HTTPException(400, f"role: expected one of {', '.join(Role)}, got {role!r}")
    enabling = state == AccountState.ACTIVE and account.state == AccountState.PENDING and role is None
    if not (who.admin or (who.approves and enabling)):
        raise HTTPException(403, "accounts: approvers enable pending accounts; everything else is an admin's")
    if not who.operator and name == who.name:
        raise HTTPException(403, "accounts: nobody changes their own account")
    store.update_account(name, role=role, state=state)
    given = {k: v for k, v in (("state", state), ("role", role)) if v is not None}
    store.record(who.name, "account", None, {"name": name, **given})


async def change_account(request: Request) -> Response:
    """``PATCH /api/v1/accounts/NAME`` ``{"state"?, "role"?}``: an approver enables a pending
    account; an admin also disables accounts and changes roles."""
    who = authorize(request)
    body = object_body(await json_body(request), {"state", "role"})
    name = request.path_params["name"]
    store = server_store(request)
    account_changed(store, who, name, body.get("state"), body.get("role"))
    return json_response({"account": store.account(name).to_json()})  # type: ignore[union-attr]


#: The endpoints of accounts: path, handler, methods.
ROUTES = (
    ("/api/v1/signup", signup, ["POST"]),
    ("/api/v1/tokens", new_token, ["POST"]),
    ("/api/v1/tokens", list_tokens, ["GET"]),
    ("/api/v1/tokens/{token_id:number}", revoke_token, ["DELETE"]),
    ("/api/v1/me", me, ["GET"]),
    ("/api/v1/accounts", list_accounts, ["GET"]),
    ("/api/v1/accounts/{name}", change_account, ["PATCH"]),
)
