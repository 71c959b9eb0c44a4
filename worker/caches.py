"""Where this machine keeps arbiter's caches (programs, builds): a folder the environment names,
else one of arbiter's folder in the user's cache (``$XDG_CACHE_HOME``, else ``~/.cache``)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_folder(env: str, name: str) -> Path:
    """The folder ``$env`` names when it is set, else ``arbiter/name`` in the user's cache."""
    configured = os.environ.get(env)
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arbiter" / name
