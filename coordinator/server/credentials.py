"""The tokens ``arbiter login`` keeps for the CLI: one JSON file, ``{server URL: token}``, in the
user's config folder (``$XDG_CONFIG_HOME/arbiter/credentials.json``), readable by its owner only
(mode 0600, written atomically)."""

from __future__ import annotations

import json
import os
from pathlib import Path


def credentials_file() -> Path:
    """Where the tokens are kept."""
    root = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(root) / "arbiter" / "credentials.json"


def _read(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write(path: Path, tokens: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as f:
        json.dump(tokens, f, indent=1, sort_keys=True)
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)


def save_token(url: str, token: str) -> Path:
    """Keep ``token`` for ``url``; the file."""
    path = credentials_file()
    _write(path, _read(path) | {url: token})
    return path


def token_for(url: str) -> str | None:
    """The token kept for ``url``, if any."""
    return _read(credentials_file()).get(url)


def forget_token(url: str) -> bool:
    """Forget the token of ``url``; False when there was none."""
    path = credentials_file()
    tokens = _read(path)
    if url not in tokens:
        return False
    del tokens[url]
    _write(path, tokens)
    return True
