"""The exact command that plays a run again, rebuilt from the configuration stored with it.

A run's configuration holds every setting that decides its games (see ``SprtConfig`` and
``TuneConfig``), so the command line can be written back from it: with the same seed and a node or
depth limit it plays the same games on any machine. What the command line cannot say (a weights
file that changed since, settings only the Python API takes) is returned as notes.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import engine
from coordinator.defaults import ADJUDICATION
from coordinator.store import mask_url

#: The defaults of `arbiter sprt` / `arbiter tune` options the command leaves out when equal.
_SPRT_DEFAULTS = {"elo0": 0.0, "elo1": 5.0, "elo_model": "normalized", "alpha": 0.05, "beta": 0.05}


def _limit_args(config: dict[str, Any]) -> list[str]:
    """``--nodes N`` / ``--depth D`` / ``--movetime MS`` / ``--tc TC`` of a stored configuration."""
    limits = engine.Limits.from_json(config["limits"])
    args = []
    given = (("--nodes", limits.nodes), ("--depth", limits.depth), ("--movetime", limits.movetime_ms))
    for option, value in given:
        if value is not None:
            args += [option, str(value)]
    if limits.time_control is not None:
        args += ["--tc", str(limits.time_control)]
        if limits.time_margin_ms != engine.Limits(nodes=1).time_margin_ms:
            args += ["--timemargin", str(limits.time_margin_ms)]
    return args


def _book_args(game: str, book: str) -> list[str]:
    """``--book FILE`` unless the run used the book that ships for ``game``."""
    from coordinator.openings.book import default_book_path

    if not book:
        return []
    try:
        if Path(book).resolve() == default_book_path(game):
            return []
    except OSError:
        pass
    return ["--book", book]


def _number(value: float) -> str:
    """A float as the shortest text that reads back the same."""
    return f"{value:g}" if float(f"{value:g}") == value else repr(value)


def _common_notes(config: dict[str, Any]) -> list[str]:
    """What any match or tuning run's command line cannot reproduce."""
    notes = []
    adjudication = engine.Adjudication.from_json(config["adjudication"])
    if adjudication != ADJUDICATION:
        notes.append(f"the run used {adjudication!r}, which the command line cannot set")
    if not engine.Limits.from_json(config["limits"]).deterministic:
        notes.append("a time limit is not deterministic: the games will differ")
    if config.get("engine_version") != engine.ENGINE_VERSION:
        notes.append(
            f"the run was played by engine {config.get('engine_version')}; this is {engine.ENGINE_VERSION}"
        )
    return notes


def _side_args(config: dict[str, Any]) -> list[str]:
    """``--candidate`` and ``--baseline``, or for a commit its SHA as ``--candidate-ref`` /
    ``--baseline-ref`` with ``--repo`` (its password masked)."""
    args, repo = [], None
    for side in ("candidate", "baseline"):
        program, commit = config.get(f"{side}_program") or {}, config.get(f"{side}_commit")
        build = program.get("build") if isinstance(program, dict) else None
        if isinstance(commit, dict) and isinstance(build, dict):
            args += [f"--{side}-ref", str(build.get("sha"))]
            repo = mask_url(build.get("repo", ""))
        else:
            args += [f"--{side}", config.get(f"{side}_source") or ("?" if side == "candidate" else "default")]
    return args + (["--repo", repo] if repo is not None else [])


def sprt_command(config: dict[str, Any], store_url: str) -> tuple[str, list[str]]:
    """``arbiter sprt ...`` for a stored ``SprtConfig`` (as JSON), and notes on what it cannot say."""
    c = config
    args = ["arbiter", "sprt", c["game"], *_side_args(c)]
    for key, option in (("elo0", "--elo0"), ("elo1", "--elo1"), ("alpha", "--alpha"), ("beta", "--beta")):
        if float(c.get(key, _SPRT_DEFAULTS[key])) != _SPRT_DEFAULTS[key]:
            args += [option, _number(float(c[key]))]
    if c.get("elo_model", "normalized") != "normalized":
        args += ["--model", str(c["elo_model"]).lower()]
    args += _limit_args(c)
    args += _book_args(c["game"], c.get("book", ""))
    args += ["--batch-pairs", str(c.get("batch_pairs", 8))]
    if c.get("max_games") is not None:
        args += ["--max-games", str(c["max_games"])]
    args += ["--seed", str(c.get("seed", 0)), "--store", mask_url(store_url)]
    notes = _common_notes(c)
    notes.append(
        "weights files are read again: the candidate and baseline weights this run played are "
        "listed under Configuration"
    )
    return shlex.join(args), notes


def tune_command(config: dict[str, Any], store_url: str) -> tuple[str, list[str]]:
    """``arbiter tune ...`` for a stored ``TuneConfig`` (as JSON), and notes on what it cannot say."""
    c = config
    spsa = c.get("method", "optuna") == "spsa"
    args = ["arbiter", "tune", c["game"], "--method", "spsa" if spsa else "optuna"]
    program = c.get("program") is not None
    every = list(c.get("ranges", {})) if program else [w.name for w in engine.weights(c["game"])]
    if list(c.get("params", every)) != every:
        args += ["--params", ",".join(c["params"])]
    args += ["--candidate" if program else "--start", c.get("start_source") or "default"]
    if spsa:
        for key, option in (
            ("spsa_lag", "--spsa-lag"),
            ("spsa_c_end", "--c-end"),
            ("spsa_r_end", "--r-end"),
            ("spsa_a_ratio", "--a-ratio"),
        ):
            if key in c:
                args += [option, _number(float(c[key])) if isinstance(c[key], float) else str(c[key])]
        if c.get("accept_every") is not None:
            args += ["--accept-every", str(c["accept_every"])]
    else:
        args += ["--sampler", c.get("sampler", "tpe")]
        if c.get("radius") is not None:
            args += ["--radius", _number(float(c["radius"]))]
    args += ["--seed", str(c.get("seed", 0))]
    if not spsa:
        args += ["--trial-pairs", str(c.get("trial_pairs", 32))]
        args += ["--min-trial-pairs", str(c.get("min_trial_pairs", c.get("trial_pairs", 32)))]
        args += ["--halving-factor", str(c.get("halving_factor", 3))]
        if "parallel_trials" in c:
            args += ["--parallel-trials", str(c["parallel_trials"])]
    args += ["--batch-pairs", str(c.get("batch_pairs", 4))]
    args += _limit_args(c)
    args += _book_args(c["game"], c.get("book", ""))
    keys = [("accept_elo0", "--accept-elo0"), ("accept_elo1", "--accept-elo1")]
    if not spsa:
        keys += [("accept_margin", "--accept-margin"), ("prune_los", "--prune-los")]
    for key, option in keys:
        args += [option, _number(float(c[key]))]
    if c.get("accept_nodes"):
        args += ["--accept-nodes", ",".join(str(n) for n in c["accept_nodes"])]
    args += ["--accept-max-games", str(c.get("accept_max_games", 4000))]
    if c.get("max_trials") is not None and not spsa:
        args += ["--max-trials", str(c["max_trials"])]
    if c.get("max_games") is not None:
        args += ["--max-games", str(c["max_games"])]
    if c.get("time_limit") is not None:
        args += ["--time-limit", f"{_number(float(c['time_limit']))}s"]
    args += ["--store", mask_url(store_url)]
    notes = _common_notes(c)
    if (c.get("accept_alpha", 0.05), c.get("accept_beta", 0.05)) != (0.05, 0.05):
        notes.append("the acceptance SPRTs' alpha and beta are not command-line options")
    if c.get("time_limit") is not None:
        notes.append("a time limit stops at a moment that depends on the machine's speed")
    if spsa:
        notes.append("SPSA's path of theta is the same on any machine, with any number of workers")
    elif "parallel_trials" in c:
        notes.append("Optuna's trials are the same on any machine, with any number of workers")
    else:
        notes.append("trials run concurrently: which trials are asked can depend on the timing")
    return shlex.join(args), notes
