"""Regression checks, as fishtest's "regression tests" page shows them: the Elo (with its 95%
error) of each commit tested against its base, in the order of the branch's history.

Read from the store's finished SPRT runs whose candidate is a commit (``sprt --candidate-ref``):
each run recorded its commits' place in their history when it started (``refs.Commit.record``:
commit time and depth, the number of commits it has), so the order needs no repository.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from coordinator.reports.engines import limits_text, side_of
from coordinator.runs import RunKind, RunState, decision_label
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.report import STATS_ERRORS
from coordinator.stats import fixed_elo
from coordinator.store import Run, Store
from wire.masking import mask_url


def _row(store: Store, run: Run) -> dict[str, Any] | None:
    """A finished SPRT of a commit as a regression row, or None for any other run."""
    recorded = run.config.get("candidate_commit")
    if run.kind is not RunKind.SPRT or run.state is not RunState.FINISHED or not isinstance(recorded, dict):
        return None
    try:
        config = run.settings_as(SprtConfig)
    except STATS_ERRORS:  # a configuration this version cannot read
        return None
    program = config.candidate_program
    if program is None or program.build is None:
        return None
    totals = store.totals(run.id)
    elo = fixed_elo(totals.pentanomial) if sum(totals.pentanomial) else None
    candidate, base = side_of(config, "candidate"), side_of(config, "baseline")
    stamp = recorded.get("committed_at")
    return {
        "run": run.id,
        "game": run.game,
        "repo": mask_url(program.build.repo),
        "sha": program.build.sha,
        "name": candidate["name"],
        "ref": recorded.get("ref"),
        "subject": recorded.get("subject"),
        "committed_at": datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds")
        if isinstance(stamp, int) and stamp > 0
        else None,
        "depth": recorded.get("depth") if isinstance(recorded.get("depth"), int) else 0,
        "base": base["name"],
        "base_ref": (config.baseline_commit or {}).get("ref"),
        "limits": limits_text(config.limits),
        "games": totals.games,
        "elo": None if elo is None else elo.elo,
        "elo95": None if elo is None else elo.elo95,
        "decision": run.decision,
        "decision_label": decision_label(run.decision) if run.decision else None,
        "finished_at": run.finished_at.isoformat(timespec="seconds") if run.finished_at else None,
    }


def regressions(store: Store) -> list[dict[str, Any]]:
    """Per repository (and game), the tested commits in history order (depth, then commit time,
    then run), each with its Elo against its base: ``[{"repo", "game", "rows"}]``."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for run in store.list_runs(RunKind.SPRT):
        row = _row(store, run)
        if row is not None:
            groups[row["repo"], row["game"]].append(row)
    return [
        {
            "repo": repo,
            "game": game,
            "rows": sorted(rows, key=lambda r: (r["depth"], r["committed_at"] or "", r["run"])),
        }
        for (repo, game), rows in sorted(groups.items())
    ]
