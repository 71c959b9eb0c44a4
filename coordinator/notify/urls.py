"""Webhook URLs: checked before they are kept, and masked wherever they are shown.

A webhook URL is its own credential: Discord's carry a token in the path
(``https://discord.com/api/webhooks/ID/TOKEN``), Slack's three secret path segments
(``https://hooks.slack.com/services/T.../B.../X...``), others a password in the userinfo or a token
in the query. So a URL is only ever shown as ``scheme://host/…``: no userinfo, path or query.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from coordinator.escape import terminal

#: The schemes a webhook may use.
SCHEMES = ("http", "https")
#: What stands for the hidden rest of a URL.
HIDDEN = "…"


def _split(url: str) -> tuple[str, str, str, str]:
    """(scheme with its ``://``, userinfo, host with port, the rest from the first ``/``, ``?`` or
    ``#``) of ``url``, read the forgiving way (nothing that can fail): the userinfo runs to the last
    ``@`` before the rest, so that an unencoded ``@`` in a password stays in it."""
    scheme, sep, rest = url.strip().partition("://")
    if not sep:
        scheme, rest = "", url.strip()
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    userinfo, _, host = rest[:cut].rpartition("@")
    return scheme + sep, userinfo, host, rest[cut:]


def mask_webhook(url: str) -> str:
    """``url`` as it may be shown: its scheme and host (with port), ``/…`` for whatever else it has
    (userinfo, path, query). A malformed URL is masked too."""
    scheme, userinfo, host, rest = _split(url)
    hidden = "/" + HIDDEN if rest.strip("/") or userinfo else ""
    return terminal(f"{scheme}{host}{hidden}")


def webhook_secrets(url: str) -> list[str]:
    """The parts of ``url`` that :func:`mask_webhook` hides (to scrub them from other text)."""
    _, userinfo, _, rest = _split(url)
    return [part for part in (userinfo, rest.strip("/")) if part]


def check_webhook(url: str) -> str:
    """``url`` if it is a webhook URL arbiter can post to (http or https, a host, no whitespace);
    otherwise a ValueError whose one line names the URL (masked), what is wrong and what was
    expected."""
    problem = _problem(url)
    if problem:
        raise ValueError(
            f"webhook {mask_webhook(url)!r}: {problem}; expected an http:// or https:// URL with a host "
            "and no whitespace"
        )
    return url


def _problem(url: str) -> str | None:
    """What is wrong with ``url`` as a webhook URL, or None."""
    if not url:
        return "empty"
    if any(c.isspace() for c in url):
        return "holds whitespace"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "its port or address does not parse"
    if not parts.scheme:
        return "no scheme"
    if parts.scheme.lower() not in SCHEMES:
        return f"scheme {parts.scheme!r}"
    if not parts.hostname:
        return "no host"
    if port == 0:
        return "port 0"
    return None
