"""Named presets of an SPRT: its bounds and the limits of every move, per game (fishtest's STC, LTC
and non-regression tests), read from a TOML file the operator edits.

The shipped file is ``coordinator/data/presets.toml``; ``$ARBITER_PRESETS`` names a file that
replaces it entirely. Everything here is pure apart from reading that one file: a bad file is a
ValueError of one line naming the file, the preset and the field, and what was expected.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import engine
from coordinator.match.config import MatchConfig
from coordinator.sprt.config import SprtConfig
from coordinator.stats.inputs import (
    EloModel,
    HypothesisError,
    check_error_rates,
    check_hypotheses,
    check_model,
)

#: The environment variable naming the operator's presets file (it replaces the shipped one).
PRESETS_ENV = "ARBITER_PRESETS"
#: The file that ships with arbiter.
SHIPPED_PRESETS = Path(__file__).with_name("data") / "presets.toml"

#: A preset's name: what ``--preset`` and an API path take.
NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
#: The limit fields of a preset, as the command-line options call them, and the core's names.
LIMIT_FIELDS = {"nodes": "nodes", "depth": "depth", "movetime": "movetime_ms", "timemargin": "time_margin_ms"}
FIELDS = ("description", "elo0", "elo1", "model", "alpha", "beta", *LIMIT_FIELDS, "tc")

C = TypeVar("C", SprtConfig, MatchConfig)


@dataclass(frozen=True)
class Preset:
    """One named preset of a game: an SPRT's hypotheses and error rates, and the limits it plays."""

    game: str
    name: str
    description: str
    elo0: float
    elo1: float
    limits: engine.Limits
    alpha: float = 0.05
    beta: float = 0.05
    model: EloModel = "normalized"

    def to_json(self) -> dict[str, Any]:
        """The preset as a JSON-safe dict (the limits as a run's configuration stores them)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return values | {"limits": self.limits.to_json()}


@dataclass(frozen=True)
class PresetsFile:
    """Where the presets in force come from: the file, and whether ``$ARBITER_PRESETS`` named it."""

    path: Path
    from_env: bool

    def __str__(self) -> str:
        """The file as error messages name it."""
        whose = f"${PRESETS_ENV}" if self.from_env else "shipped"
        return f"presets file {self.path} ({whose})"


def presets_file(path: str | Path | None = None) -> PresetsFile:
    """The presets file in force: ``path`` if given, else ``$ARBITER_PRESETS`` if set, else the
    shipped one."""
    if path is not None:
        return PresetsFile(Path(path), from_env=False)
    named = os.environ.get(PRESETS_ENV, "").strip()
    return PresetsFile(Path(named), from_env=True) if named else PresetsFile(SHIPPED_PRESETS, from_env=False)


def load_presets(path: str | Path | None = None) -> dict[str, dict[str, Preset]]:
    """Every preset of the file in force (:func:`presets_file`), by game and by name; every game
    of the engine has an entry, empty when the file has none for it."""
    return _load(presets_file(path))


def _load(source: PresetsFile) -> dict[str, dict[str, Preset]]:
    try:
        text = source.path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{source}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{source}: cannot be read: {getattr(e, 'strerror', None) or e}") from None
    return parse_presets(text, str(source))


def parse_presets(text: str, source: str) -> dict[str, dict[str, Preset]]:
    """The presets of the TOML ``text``, by game and by name; ``source`` names it in errors."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as e:  # RecursionError: nested too deeply
        raise ValueError(f"{source}: not valid TOML: {e}") from None
    presets: dict[str, dict[str, Preset]] = {game: {} for game in engine.GAMES}
    for game, table in data.items():
        if game not in presets:
            raise ValueError(f"{source}: [{game}]: expected a game, one of {', '.join(engine.GAMES)}")
        if not isinstance(table, dict):
            raise ValueError(f"{source}: {game}: expected a table of presets [{game}.NAME], got {table!r}")
        for name, fields in table.items():
            where = f"{source}: [{game}.{name}]"
            if not NAME.fullmatch(name):
                raise ValueError(f"{where}: expected a name of lower-case letters, digits, - and _")
            if not isinstance(fields, dict):
                raise ValueError(f"{where}: expected a table of fields, got {fields!r}")
            presets[game][name] = _preset(game, name, fields, where)
    return presets


def preset_for(game: str, name: str, path: str | Path | None = None) -> Preset:
    """The preset ``name`` of ``game`` in the file in force; a ValueError naming the preset, the
    game, the file and the presets it has when there is no such preset."""
    source = presets_file(path)
    presets = _load(source)
    found = presets.get(game, {}).get(name)
    if found is None:
        names = ", ".join(sorted(presets.get(game, {}))) or "none"
        raise ValueError(f"no preset {name!r} for {game} in the {source}; it has: {names}")
    return found


def apply_preset(config: C, preset: Preset) -> C:
    """The same run with ``preset``'s limits and, for an SPRT, its hypotheses and error rates: the
    sides, book, openings, seed, batch size and game budget stay (a follow-up such as LTC after
    STC). Times are scaled by each worker's speed exactly when the limits are not deterministic,
    as the commands decide it. The fingerprint differs whenever the preset changes a setting."""
    if preset.game != config.game:
        raise ValueError(f"preset {preset.name!r} is a {preset.game} preset; the run plays {config.game}")
    scale_time = not preset.limits.deterministic
    if isinstance(config, MatchConfig):
        return replace(config, limits=preset.limits, scale_time=scale_time)
    return replace(
        config,
        limits=preset.limits,
        scale_time=scale_time,
        elo0=preset.elo0,
        elo1=preset.elo1,
        alpha=preset.alpha,
        beta=preset.beta,
        elo_model=preset.model,
    )


def _preset(game: str, name: str, fields: dict[str, Any], where: str) -> Preset:
    """One preset from its table's ``fields``; ``where`` names it in errors."""
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        raise ValueError(f"{where} {unknown[0]}: unknown field; expected one of {', '.join(FIELDS)}")
    for required in ("description", "elo0", "elo1"):
        if required not in fields:
            raise ValueError(f"{where} {required}: missing; every preset has description, elo0 and elo1")
    description = fields["description"]
    if not isinstance(description, str) or not description.strip():
        raise ValueError(f"{where} description: expected a text saying what the preset is for")
    try:
        model = check_model(fields.get("model", "normalized"))
    except ValueError:
        raise ValueError(
            f"{where} model: expected one of normalized, logistic, BayesElo, got {fields['model']!r}"
        ) from None
    elo0, elo1 = _hypotheses(fields["elo0"], fields["elo1"], model, where)
    alpha, beta = _error_rates(fields.get("alpha", 0.05), fields.get("beta", 0.05), where)
    return Preset(
        game=game,
        name=name,
        description=" ".join(description.split()),
        elo0=elo0,
        elo1=elo1,
        limits=_limits(fields, where),
        alpha=alpha,
        beta=beta,
        model=model,
    )


def _hypotheses(elo0: Any, elo1: Any, model: EloModel, where: str) -> tuple[float, float]:
    try:
        return check_hypotheses(elo0, elo1, model)
    except HypothesisError as e:
        raise ValueError(f"{where} {e.name}: {e.expected}") from None


def _error_rates(alpha: Any, beta: Any, where: str) -> tuple[float, float]:
    try:
        return check_error_rates(alpha, beta)
    except ValueError as e:
        raise ValueError(f"{where} {e}") from None


def _limits(fields: dict[str, Any], where: str) -> engine.Limits:
    """The limits a preset's ``fields`` set: at least one of nodes, depth, movetime and tc, each in
    the core's bounds; timemargin only with tc."""
    given: dict[str, Any] = {}
    for field, core in LIMIT_FIELDS.items():
        if field not in fields:
            continue
        value = fields[field]
        low, high = engine.LIMIT_BOUNDS[core]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"{where} {field}: expected a whole number from {low} to {high}, got {value!r}")
        given[core] = value
    if "tc" in fields:
        tc = fields["tc"]
        if not isinstance(tc, str):
            raise ValueError(f'{where} tc: expected a time control in quotes, like "10+0.1", got {tc!r}')
        try:
            given["time_control"] = engine.TimeControl.parse(tc)
        except ValueError as e:
            raise ValueError(f"{where} tc: {str(e).removeprefix('time_control: ')}") from None
    elif "time_margin_ms" in given:
        raise ValueError(f"{where} timemargin: the grace of a clock: it needs tc")
    if given.keys() <= {"time_margin_ms"}:
        raise ValueError(f"{where}: expected a limit: nodes, depth, movetime or tc")
    try:
        return engine.Limits(**given)
    except ValueError as e:
        raise ValueError(f"{where} {e}") from None
