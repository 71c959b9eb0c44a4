"""Store URLs: which one is in force, how it is shown (:func:`wire.masking.mask_url`), and how
SQLAlchemy is given it."""

from __future__ import annotations

import os

from wire.masking import mask_url

DEFAULT_URL = "sqlite:///arbiter.db"
STORE_ENV = "ARBITER_STORE"

__all__ = ["DEFAULT_URL", "STORE_ENV", "engine_url", "mask_url", "store_url"]


def store_url(url: str | None) -> str:
    """The store URL in force: ``url``, else ``$ARBITER_STORE``, else ``sqlite:///arbiter.db``."""
    return url or os.environ.get(STORE_ENV) or DEFAULT_URL


def engine_url(url: str) -> str:
    """The URL given to SQLAlchemy. ``postgresql://`` and ``postgres://`` name no driver, and
    SQLAlchemy's default one is psycopg2; arbiter's ``postgres`` extra installs psycopg 3, so they
    mean ``postgresql+psycopg://``. A URL that names its driver is used as it is."""
    scheme, sep, rest = url.partition("://")
    if sep and scheme.lower() in ("postgresql", "postgres"):
        return f"postgresql+psycopg://{rest}"
    return url
