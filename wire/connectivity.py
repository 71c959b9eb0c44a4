"""Is the broker reachable? A short, bounded check run before a worker or a coordinator starts.

Without it, Celery retries an unreachable broker for a long time (workers forever, by design, once
they are running); a mistyped URL or a server that is down should instead be one clear line within
a few seconds. Messages never show a password: URLs are printed with it masked.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import redis

from wire.celeryconfig import CONNECT_TIMEOUT
from wire.masking import mask_url, scrub
from wire.sealing import SECRET_ENV

if TYPE_CHECKING:
    from celery import Celery  # only the annotation: readers of heartbeats do not load Celery


class Unreachable(ValueError):
    """The broker or the result backend did not answer, or refused the credentials of its URL."""


def _refused_credentials(error: BaseException) -> bool:
    """True when ``error`` (or what caused it, however wrapped) is a server refusing the URL's user
    or password, not a server that cannot be reached."""
    seen: BaseException | None = error
    for _ in range(8):  # kombu and Celery wrap redis-py's errors; bounded against a cycle
        if seen is None:
            return False
        if isinstance(seen, redis.exceptions.AuthenticationError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def failure(what: str, url: str, error: BaseException) -> Unreachable:
    """The one line that says why ``what`` at ``url`` did not answer: its credentials refused
    (a wrong password), or not reached."""
    reason = scrub(_reason(error), url)
    if _refused_credentials(error):
        return Unreachable(
            f"{what} {safe_url(url)} refused the password of its URL (authentication failed: {reason})"
        )
    return Unreachable(f"{what} {safe_url(url)} is unreachable: {reason}")


def safe_url(url: object) -> str:
    """``url`` with every password masked (:func:`wire.masking.mask_url`), and without a
    ``package.module:Class+`` backend prefix."""
    text = str(url)
    scheme = text.partition("://")[0]
    if "+" in scheme and ":" in scheme.split("+", 1)[0]:
        text = text.split("+", 1)[1]
    return mask_url(text)


def _reason(error: BaseException) -> str:
    """One line describing ``error``."""
    text = " ".join(str(error).split())
    return text or type(error).__name__


def check_reachable(app: Celery, timeout: float = CONNECT_TIMEOUT) -> None:
    """Raise :class:`Unreachable` unless ``app``'s broker and result backend answer within ``timeout``."""
    broker = app.conf.broker_url
    try:
        with app.connection_for_write(connect_timeout=timeout) as connection:
            connection.ensure_connection(
                max_retries=1, interval_start=0, interval_step=0.2, interval_max=0.2, timeout=timeout
            )
    except Exception as e:  # kombu, redis-py and the socket layer all raise their own types
        raise failure("broker", broker, e) from None
    try:
        client = getattr(app.backend, "client", None)
        if client is not None and hasattr(client, "ping"):
            client.ping()
    except Exception as e:
        raise failure("result backend", app.conf.result_backend, e) from None


def exposure_warning(url: str, sealed: bool) -> str | None:
    """Why a broker or result backend off loopback is open to forgery, or None: it has neither a
    password nor TLS (anyone who reaches it can queue batches and write results), or results are
    not sealed (``sealed`` false: no ``$ARBITER_SECRET``, so whoever can write to it can answer
    batches as any worker)."""
    scheme = url.partition("://")[0]
    text = url.split("+", 1)[1] if "+" in scheme else url  # a result backend's class prefix
    parts = urlsplit(text)
    host = parts.hostname or "localhost"
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        return None
    if not (parts.password or parts.scheme in ("rediss", "amqps")):
        return (
            f"{safe_url(text)} is not on loopback and has neither a password nor TLS: anyone who "
            "reaches it can queue batches and forge results (see docs/deploy.md, Security)"
        )
    if not sealed:
        return (
            f"{safe_url(text)} is not on loopback and {SECRET_ENV} is not set: results are not "
            "sealed, so anyone who can write to it can answer batches as any worker "
            "(see docs/deploy.md, Security)"
        )
    return None
