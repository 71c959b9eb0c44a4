"""``--preset NAME`` of ``arbiter sprt`` and ``arbiter match``, and ``arbiter presets [GAME]``, which
lists the presets of the file in force (coordinator.presets).

A preset's values are the command's defaults: an option given on the command line wins over it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import click

from coordinator.cli.options import F, game_argument
from coordinator.presets import PRESETS_ENV, Preset, load_presets, preset_for, presets_file


def preset_option(what: str) -> Callable[[F], F]:
    """--preset NAME: a named preset of the game whose ``what`` become the defaults."""
    return click.option(
        "--preset",
        "preset_name",
        metavar="NAME",
        help=f"Use a preset's {what} (stc, ltc, nonreg, or the operator's: `arbiter presets`); "
        "options given here win over it.",
    )


def chosen_preset(game: str, name: str | None) -> Preset | None:
    """The preset ``name`` of ``game``, or None without ``--preset``; a usage error of one line
    when the file in force has no such preset or cannot be read."""
    if name is None:
        return None
    try:
        return preset_for(game, name)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--preset") from None


def given(ctx: click.Context, parameter: str) -> bool:
    """Whether ``parameter`` was given (on the command line or by its environment variable), not
    left at its default."""
    source = ctx.get_parameter_source(parameter)
    return source is not None and source not in (
        click.core.ParameterSource.DEFAULT,
        click.core.ParameterSource.DEFAULT_MAP,
    )


def hypothesis_of(
    ctx: click.Context, preset: Preset | None, elo0: float, elo1: float, alpha: float, beta: float, model: str
) -> tuple[float, float, float, float, str]:
    """``--elo0``, ``--elo1``, ``--alpha``, ``--beta`` and ``--model``, each the preset's unless
    given."""
    if preset is None:
        return elo0, elo1, alpha, beta, model
    return (
        elo0 if given(ctx, "elo0") else preset.elo0,
        elo1 if given(ctx, "elo1") else preset.elo1,
        alpha if given(ctx, "alpha") else preset.alpha,
        beta if given(ctx, "beta") else preset.beta,
        model if given(ctx, "model") else preset.model,
    )


def bounds_text(preset: Preset) -> str:
    """``[0, 2] normalized`` (and the error rates when they are not 0.05)."""
    rates = "" if (preset.alpha, preset.beta) == (0.05, 0.05) else f" a={preset.alpha:g} b={preset.beta:g}"
    return f"[{preset.elo0:g}, {preset.elo1:g}] {preset.model}{rates}"


def presets_rows(presets: dict[str, dict[str, Preset]], games: list[str]) -> list[tuple[str, ...]]:
    """One row per preset of ``games``: game, name, bounds, limits, description."""
    from coordinator.reports.engines import limits_text

    return [
        (game, preset.name, bounds_text(preset), limits_text(preset.limits), preset.description)
        for game in games
        for preset in presets[game].values()
    ]


@click.command()
@game_argument(required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def presets(game: str | None, as_json: bool) -> None:
    """List the presets of `arbiter sprt --preset` and `arbiter match --preset`: name, bounds,
    limits and description, and the file they come from (the shipped one, or $ARBITER_PRESETS)."""
    source = presets_file()
    found = load_presets()
    games = [game] if game is not None else list(found)
    if as_json:
        data = {
            "file": str(source.path),
            "from_env": source.from_env,
            "presets": {g: {name: p.to_json() for name, p in found[g].items()} for g in games},
        }
        click.echo(json.dumps(data, sort_keys=True))
        return
    whose = f"from ${PRESETS_ENV}" if source.from_env else f"shipped; ${PRESETS_ENV}=FILE replaces it"
    click.echo(f"presets file: {source.path} ({whose})")
    rows = presets_rows(found, games)
    if not rows:
        click.echo(f"no presets for {', '.join(games)}")
        return
    header = ("game", "preset", "bounds (Elo)", "limits", "description")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        click.echo("  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]]))
