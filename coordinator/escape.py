"""Stored strings made safe for each output they are shown in.

Worker names and refusal reasons come from workers, weights-file and book names from users: any of
them may hold a newline, a control character, a direction override, a quote or mathtext. HTML
escapes them (``html.escape`` at every place a page or report writes text); here are the other
outputs: a terminal line, a PGN tag, a plot's text (matplotlib's mathtext is switched off where
the plots are made).
"""

from __future__ import annotations

import re
from typing import Any

#: Control characters, and the Unicode marks that reorder text on screen (a name that shows
#: differently from what it is).
_UNSHOWABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]+")


def terminal(value: Any) -> str:
    """``value`` as text on one terminal line: every control character and line break a space."""
    return " ".join(_UNSHOWABLE.sub(" ", str(value)).split())


def pgn_tag(value: Any) -> str:
    """``value`` as the inside of a PGN tag's quotes: one line, backslash and quote escaped."""
    return terminal(value).replace("\\", "\\\\").replace('"', '\\"')


def pgn_comment(value: Any) -> str:
    """``value`` as the inside of a PGN ``{comment}``: one line, no closing brace to end it early."""
    return terminal(value).replace("}", ")")
