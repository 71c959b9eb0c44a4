"""People on the server's web pages: who a page's request comes from (its session cookie), logging
in and out, signing up, and the CSRF check of every form that changes anything.

A session is a cookie (``arbiter_session``: HttpOnly, SameSite=Lax, Path=/, and Secure when the
request came over https; behind a reverse proxy uvicorn takes the scheme from X-Forwarded-Proto of
the addresses in ``$FORWARDED_ALLOW_IPS``, 127.0.0.1 by default). Every form that changes anything
carries the session's CSRF token in the field ``csrf``; a POST without it is a 403 page.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from html import escape
from typing import Any, Literal
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from coordinator.accounts.identity import CSRF_FIELD, SESSION_COOKIE, Caller, from_session
from coordinator.accounts.passwords import hash_password
from coordinator.accounts.rules import AccountState, Identity, Role
from coordinator.server.accounts_api import check_login, name_field, password_field
from coordinator.server.api import MAX_BODY_BYTES, server_store
from coordinator.web.layout import ACCOUNT_BAR
from coordinator.web.query import MAX_DIGITS
from coordinator.web.responses import error_response, html_response

#: How long a web session lasts (seconds).
SESSION_SECONDS = 14 * 24 * 3600
#: Pages anyone reaches on a private server (to log in).
OPEN_PATHS = ("/login", "/signup", "/healthz")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def page_caller(request: Request) -> Caller | None:
    """Who a page's request comes from: the account of its session cookie (None: nobody)."""
    cookie = request.cookies.get(SESSION_COOKIE)
    return from_session(cookie, server_store(request)) if cookie else None


def caller(request: Request) -> Caller | None:
    """The caller the middleware found for this request."""
    found: Caller | None = request.state.caller
    return found


def csrf_input(who: Caller) -> str:
    """The hidden field of a form that changes anything."""
    return f'<input type="hidden" name="{CSRF_FIELD}" value="{escape(who.csrf or "")}">'


def post_button(action: str, label: str, who: Caller, extra: str = "") -> str:
    """A one-button form posting to ``action`` with the session's CSRF token."""
    return (
        f'<form class="act" method="post" action="{escape(action)}">{csrf_input(who)}{extra}'
        f'<button type="submit">{escape(label)}</button></form>'
    )


def account_bar(who: Caller | None, signup: bool) -> str:
    """The right of the top bar: the caller and their pages, or the links to log in."""
    if who is None:
        login = '<a href="/login">log in</a>' + (' <a href="/signup">sign up</a>' if signup else "")
        return f'<span class="who">{login}</span>'
    me = who.identity
    links = [
        '<a href="/submit">submit</a>',
        '<a href="/mine">my runs</a>',
        '<a href="/audit">audit</a>',
        '<a href="/account">account</a>',
    ]
    if me.approves:
        links += ['<a href="/?approval=pending">to approve</a>', '<a href="/accounts">accounts</a>']
    logout = post_button("/logout", "log out", who)
    return f'<span class="who"><b>{escape(me.name)}</b> ({escape(me.role)}) {" ".join(links)} {logout}</span>'


class PeopleMiddleware:
    """Finds each request's caller (its session), shows them in the top bar, and on a private
    server sends a page's reader without a session to log in (a dashboard JSON request: a 401)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        policy = request.app.state.policy
        who = await run_in_threadpool(page_caller, request)
        scope.setdefault("state", {})["caller"] = who
        path = request.url.path
        if policy.private and who is None and not (path in OPEN_PATHS or path.startswith("/api/v1")):
            if path.startswith("/api/") and "authorization" not in request.headers:
                await error_response(path, 401, "authorization: this server is private: log in")(
                    scope, receive, send
                )
                return
            if not path.startswith("/api/"):
                await RedirectResponse(f"/login?next={quote(path)}", 303)(scope, receive, send)
                return
        bar = ACCOUNT_BAR.set(account_bar(who, policy.signup))
        try:
            await self.app(scope, receive, send)
        finally:
            ACCOUNT_BAR.reset(bar)


async def form_of(request: Request) -> FormData:
    """The request's form (a 413 beyond the API's bound on a body)."""
    size = request.headers.get("content-length", "")
    if size.isascii() and size.isdigit() and (len(size) > MAX_DIGITS or int(size) > MAX_BODY_BYTES):
        raise HTTPException(413, f"body: larger than {MAX_BODY_BYTES >> 20} MiB")
    return await request.form(max_files=8, max_fields=100, max_part_size=MAX_BODY_BYTES)


def checked(request: Request, form: FormData) -> tuple[Caller, Identity]:
    """The logged-in caller of a form that changes anything, its CSRF token checked: a 401 page
    without a session, a 403 page without the session's token."""
    who = caller(request)
    if who is None:
        raise HTTPException(401, "log in first (/login)")
    given = form.get(CSRF_FIELD)
    if not isinstance(given, str) or not hmac.compare_digest(given.encode(), (who.csrf or "").encode()):
        raise HTTPException(
            403, f"{CSRF_FIELD}: the form lacks this session's CSRF token; load the page again"
        )
    return who, who.identity


def local_target(value: Any) -> str:
    """Where to go after logging in: a path of this server only."""
    if isinstance(value, str) and value.startswith("/") and not value.startswith("//") and "\\" not in value:
        return value
    return "/"


def _field(name: str, label: str, kind: str = "text", value: str = "") -> str:
    return (
        f'<label>{escape(label)} <input name="{name}" type="{kind}" value="{escape(value)}" '
        f'autocomplete="{"current-password" if kind == "password" else "username"}" required></label>'
    )


#: The cookie of the forms that come before a session (log in, sign up): the same random token in
#: it and in the form's ``csrf`` field (a double-submit check: another site can post the form but
#: can neither read nor set the cookie, so it cannot log a reader into its own account).
FORM_COOKIE = "arbiter_form"
FORM_SECONDS = 3600


def set_cookie(
    request: Request,
    response: Response,
    name: str,
    value: str,
    seconds: int,
    samesite: Literal["lax", "strict"],
) -> None:
    """Set one of the server's cookies: for the whole site, out of scripts' reach, sent only over
    HTTPS when ``request`` came over it."""
    response.set_cookie(
        name,
        value,
        max_age=seconds,
        path="/",
        httponly=True,
        samesite=samesite,
        secure=request.url.scheme == "https",
    )


def with_form_token(request: Request, title: str, body: Any, status: int = 200) -> Response:
    """The page of a pre-session form: ``body(token)`` with a fresh token, set in the cookie too."""
    token = secrets.token_urlsafe(24)
    response = html_response(title, body(token), status)
    set_cookie(request, response, FORM_COOKIE, token, FORM_SECONDS, "strict")
    return response


def form_token_ok(request: Request, form: FormData) -> bool:
    """The pre-session form carries the token of its cookie."""
    cookie, given = request.cookies.get(FORM_COOKIE), form.get(CSRF_FIELD)
    return (
        bool(cookie) and isinstance(given, str) and hmac.compare_digest(given.encode(), str(cookie).encode())
    )


def login_form(message: str = "", name: str = "", target: str = "/", token: str = "") -> str:
    said = f'<p class="error">{escape(message)}</p>' if message else ""
    return (
        f"<main><h1>Log in</h1>{said}"
        '<form class="people" method="post" action="/login">'
        f'<input type="hidden" name="{CSRF_FIELD}" value="{escape(token)}">'
        f'<input type="hidden" name="next" value="{escape(target)}">'
        f"{_field('name', 'name', value=name)}{_field('password', 'password', 'password')}"
        '<button type="submit">log in</button></form>'
        '<p class="muted">No account yet? <a href="/signup">Sign up</a>; an approver enables it.</p></main>'
    )


async def login_page(request: Request) -> Response:
    """``GET /login`` (the form) and ``POST /login`` (name, password): a session cookie and back to
    the page the reader came from. A failure shows the form again with one line that never says
    which part was wrong; past a few failures, a 429."""
    if request.method == "GET":
        target = local_target(request.query_params.get("next"))
        return with_form_token(request, "Log in", lambda t: login_form(target=target, token=t))
    form = await form_of(request)
    name, password, target = form.get("name"), form.get("password"), local_target(form.get("next"))
    shown = name if isinstance(name, str) else ""
    if not form_token_ok(request, form):
        expired = "The form had expired or came from elsewhere: log in again."
        return with_form_token(request, "Log in", lambda t: login_form(expired, shown, target, t), 403)
    store = server_store(request)
    try:
        account = await run_in_threadpool(check_login, request, store, name, password)
    except HTTPException as e:
        message = {
            401: "Unknown name or wrong password.",
            429: "Too many failed attempts: try again in a few minutes.",
        }.get(e.status_code, str(e.detail).removeprefix("login: "))
        if e.status_code == 403 and "pending" in str(e.detail):
            message = "Your account waits for an approver to enable it."
        return with_form_token(
            request, "Log in", lambda t: login_form(message, shown, target, t), e.status_code
        )
    cookie, _csrf = store.new_session(account.id, SESSION_SECONDS)
    response = RedirectResponse(target, 303)
    set_cookie(request, response, SESSION_COOKIE, cookie, SESSION_SECONDS, "lax")
    store.record(account.name, "login", None)
    return response


async def logout_page(request: Request) -> Response:
    """``POST /logout``: the session ends, its cookie is cleared."""
    form = await form_of(request)
    _who, me = checked(request, form)
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        server_store(request).end_session(cookie)
    server_store(request).record(me.name, "logout", None)
    response = RedirectResponse("/", 303)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
    return response


def signup_form(message: str = "", name: str = "", token: str = "") -> str:
    said = f'<p class="error">{escape(message)}</p>' if message else ""
    return (
        f"<main><h1>Sign up</h1>{said}"
        "<p>Your account waits for an approver to enable it; you log in once it is enabled.</p>"
        '<form class="people" method="post" action="/signup">'
        f'<input type="hidden" name="{CSRF_FIELD}" value="{escape(token)}">'
        f"{_field('name', 'name', value=name)}{_field('password', 'password', 'password')}"
        '<button type="submit">sign up</button></form></main>'
    )


async def signup_page(request: Request) -> Response:
    """``GET /signup`` and ``POST /signup`` (name, password): a pending account an approver
    enables (a 403 page when the operator turned sign-up off)."""
    if not request.app.state.policy.signup:
        raise HTTPException(403, "signup: this server's operator turned sign-up off")
    if request.method == "GET":
        return with_form_token(request, "Sign up", lambda t: signup_form(token=t))
    form = await form_of(request)
    body = {"name": form.get("name"), "password": form.get("password")}
    shown = body["name"] if isinstance(body["name"], str) else ""
    if not form_token_ok(request, form):
        expired = "The form had expired or came from elsewhere: sign up again."
        return with_form_token(request, "Sign up", lambda t: signup_form(expired, shown, t), 403)
    try:
        name, password = name_field(body), password_field(body)
    except HTTPException as e:
        wrong = str(e.detail)
        return with_form_token(request, "Sign up", lambda t: signup_form(wrong, shown, t), 400)
    store = server_store(request)
    try:
        hashed = await run_in_threadpool(hash_password, password)
        store.create_account(name, hashed, Role.USER, AccountState.PENDING)
    except ValueError as e:
        taken = f"name: {e}"
        return with_form_token(request, "Sign up", lambda t: signup_form(taken, shown, t), 409)
    store.record(name, "signup", None, {"name": name})
    body_html = (
        f'<main><h1>Signed up</h1><p class="notice">Account <b>{escape(name)}</b> is pending: it waits '
        "for an approver to enable it. You can log in once it is enabled.</p></main>"
    )
    return html_response("Signed up", body_html, 201)


#: The pages of this module: path, handler, methods.
ROUTES = (
    ("/login", login_page, ["GET", "POST"]),
    ("/logout", logout_page, ["POST"]),
    ("/signup", signup_page, ["GET", "POST"]),
)
