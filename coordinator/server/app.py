"""The server's web application: the dashboard (read-only, as ``arbiter serve`` shows it), the
JSON API of ``coordinator.server.api``, which writes through a store of its own, and the pages for
people (logging in, submission forms, buttons, accounts: web_auth, web_forms, web_pages)."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route

from coordinator.accounts.rules import Policy
from coordinator.server import accounts_api, api, web_auth, web_forms, web_pages
from coordinator.server.accounts_api import LoginThrottle
from coordinator.store import Store
from coordinator.web.app import create_app


def create_server_app(
    dashboard_store: Store,
    server_store: Store,
    token: str | None,
    broker_url: str | None = None,
    policy: Policy | None = None,
) -> Starlette:
    """The dashboard of ``dashboard_store`` (opened read-only) with the API on ``server_store``
    (the same store, opened read-write); writes need ``token`` when it is given. With
    ``broker_url`` the dashboard lists the workers online."""
    app = create_app(dashboard_store, broker_url=broker_url or None)
    app.state.server_store = server_store
    app.state.token = token
    app.state.policy = policy or Policy()
    app.state.logins = LoginThrottle()
    people = (*web_auth.ROUTES, *web_forms.ROUTES, *web_pages.ROUTES)
    for path, handler, methods in (*api.ROUTES, *accounts_api.ROUTES, *people):
        app.router.routes.append(Route(path, handler, methods=methods))
    app.state.dashboard.run_panel = web_pages.run_panel
    app.add_middleware(web_auth.PeopleMiddleware)
    return app
