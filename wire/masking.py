"""URLs as they may be shown: every password masked, wherever it sits.

Store and broker URLs carry credentials (``postgresql://user:PASSWORD@host/db``,
``redis://:PASSWORD@host:6379/0``, ``...?sslpassword=...``). Whatever prints, stores in a run's
command line, logs or serves a URL shows it through :func:`mask_url` only: the password of the
userinfo (up to the last ``@``, so an unencoded ``@`` inside it is masked too) and the value of
every query parameter that names a secret. A URL that does not parse is masked all the same.
"""

from __future__ import annotations

import re

#: What a masked secret shows.
MASK = "***"
#: Query parameters whose value is a secret (any case; ``sslpassword``, ``api_key``, ``auth_token``).
SECRET_PARAMETER = re.compile(r"pass|pwd|secret|token|key|credential|auth", re.IGNORECASE)


def _mask_query(query: str) -> str:
    """``query`` (without its ``?``) with the value of every secret-naming parameter masked."""
    parts = []
    for part in query.split("&"):
        name, sep, value = part.partition("=")
        parts.append(f"{name}={MASK}" if sep and value and SECRET_PARAMETER.search(name) else part)
    return "&".join(parts)


def _parts(text: str) -> tuple[str, str, str, str]:
    """(scheme with its ``://``, the part before the query, the userinfo or "", the query and
    fragment) of a URL, read the forgiving way: the userinfo runs to the last ``@``."""
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "", text
    cut = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    before, after = rest[:cut], rest[cut:]
    userinfo = before.rpartition("@")[0] if "@" in before else ""
    return scheme + sep, before, userinfo, after


def mask_url(url: object) -> str:
    """``url`` with its password and every secret query parameter masked."""
    scheme, before, userinfo, after = _parts(str(url))
    if "@" in before:
        host = before.rpartition("@")[2]
        user, colon, password = userinfo.partition(":")
        before = f"{user}:{MASK}@{host}" if colon and password else f"{userinfo}@{host}"
    if after.startswith("?"):
        query, hash_sign, fragment = after[1:].partition("#")
        after = "?" + _mask_query(query) + hash_sign + fragment
    return f"{scheme}{before}{after}"


def secrets_of(url: object) -> list[str]:
    """The secrets a URL holds: its password, and the values of its secret query parameters."""
    _, _, userinfo, after = _parts(str(url))
    found = [userinfo.partition(":")[2]] if ":" in userinfo else []
    query = after[1:].partition("#")[0] if after.startswith("?") else ""
    for part in query.split("&"):
        name, sep, value = part.partition("=")
        if sep and value and SECRET_PARAMETER.search(name):
            found.append(value)
    return [secret for secret in found if secret]


def password_has_at(url: object) -> bool:
    """True when a URL's password holds an unencoded ``@`` (drivers read such a URL wrongly)."""
    return "@" in _parts(str(url))[2].partition(":")[2]


def scrub(text: str, url: object) -> str:
    """``text`` (a driver's message, say) with every secret of ``url`` masked where it appears."""
    for secret in sorted(secrets_of(url), key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text
