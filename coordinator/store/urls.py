"""Store URLs: which one is in force, how it is shown (password masked), and how SQLAlchemy is given it."""

from __future__ import annotations

import os

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

DEFAULT_URL = "sqlite:///arbiter.db"
STORE_ENV = "ARBITER_STORE"


def store_url(url: str | None) -> str:
    """The store URL in force: ``url``, else ``$ARBITER_STORE``, else ``sqlite:///arbiter.db``."""
    return url or os.environ.get(STORE_ENV) or DEFAULT_URL


def mask_url(url: str) -> str:
    """``url`` with its password masked, for printing. A URL that does not parse is masked up to
    its last ``@`` (after its ``://``, if it has one), where a password would be."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        scheme, sep, rest = url.partition("://")
        if not sep:
            scheme, rest = "", url
        return f"{scheme}{sep}***@{rest.rpartition('@')[2]}" if "@" in rest else url


def engine_url(url: str) -> str:
    """The URL given to SQLAlchemy. ``postgresql://`` and ``postgres://`` name no driver, and
    SQLAlchemy's default one is psycopg2; arbiter's ``postgres`` extra installs psycopg 3, so they
    mean ``postgresql+psycopg://``. A URL that names its driver is used as it is."""
    scheme, sep, rest = url.partition("://")
    if sep and scheme.lower() in ("postgresql", "postgres"):
        return f"postgresql+psycopg://{rest}"
    return url
