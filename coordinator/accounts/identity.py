"""Who a request to the server comes from: the operator's token, an account's API token
(``Authorization: Bearer``), or a web session (its cookie, with the session's CSRF token on every
request that changes anything)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from coordinator.accounts.rules import AccountState, Identity, Role
from coordinator.store import Store

#: The web session's cookie.
SESSION_COOKIE = "arbiter_session"
#: The header (or form field) carrying a session's CSRF token.
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf"
#: The operator's name in the record of who did what.
OPERATOR = "operator"


@dataclass(frozen=True)
class Caller:
    """An identified request: who, and (for a web session) the session's CSRF token."""

    identity: Identity
    csrf: str | None = None


class Unauthorized(Exception):
    """A credential that was given and is wrong (401), never silently ignored."""


def from_bearer(value: str, store: Store, operator_token: str | None) -> Caller:
    """The caller of a bearer token (the operator's, or an active account's)."""
    if operator_token is not None and hmac.compare_digest(value.encode(), operator_token.encode()):
        return Caller(Identity(OPERATOR, Role.ADMIN, operator=True))
    account = store.token_account(value)
    if account is None or account.state != AccountState.ACTIVE:
        raise Unauthorized("the token is not known, revoked, or its account is not active")
    return Caller(Identity(account.name, Role(account.role)))


def from_session(cookie: str, store: Store) -> Caller | None:
    """The caller of a web session cookie (None: no such session, or it expired)."""
    found = store.session(cookie)
    if found is None:
        return None
    account, csrf = found
    if account.state != AccountState.ACTIVE:
        return None
    return Caller(Identity(account.name, Role(account.role)), csrf)


def identify(
    authorization: str | None, cookie: str | None, store: Store, operator_token: str | None
) -> Caller | None:
    """The caller of a request's ``Authorization`` header or session cookie, or None (anonymous);
    Unauthorized for a bearer token that is wrong."""
    if authorization:
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise Unauthorized("expected Authorization: Bearer TOKEN")
        return from_bearer(value.strip(), store, operator_token)
    if cookie:
        return from_session(cookie, store)
    return None


def csrf_matches(caller: Caller, given: str | None) -> bool:
    """A session's write carries its CSRF token (a token's write needs none: no browser sends
    it by itself)."""
    if caller.csrf is None:
        return True
    return given is not None and hmac.compare_digest(given.encode(), caller.csrf.encode())
