"""The match as a kind of run: playing it, its status, its report and its dashboard row."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coordinator.match.config import MatchConfig
from coordinator.registry import LiveItem, elo_text
from coordinator.runs import RunKind, RunState
from coordinator.sprt.kind import TwoSidesKind

if TYPE_CHECKING:
    from coordinator.executors.base import Executor
    from coordinator.sprt.runner import Progress
    from coordinator.store import Run, Store


def statistics(pentanomial: list[int]) -> dict[str, Any] | None:
    """Elo with its 95% interval and LOS, and normalized Elo, of the counted game pairs (None
    before the first pair)."""
    from coordinator.stats import fixed_elo, nelo_pentanomial

    if not sum(pentanomial):
        return None
    elo, nelo = fixed_elo(pentanomial), nelo_pentanomial(pentanomial)
    return {"elo": elo.elo, "elo95": elo.elo95, "los": elo.los, "nelo": nelo.nelo, "nelo95": nelo.nelo95}


def progress_line(p: Progress, planned: int) -> str:
    """One line: games of the plan's (and still playing), games per second, Elo +- 95%, the
    pentanomial counts."""
    stats = statistics(p.pentanomial)
    elo = f"{stats['elo']:+.1f}+-{stats['elo95']:.1f}" if stats else "-"
    playing = f" +{p.playing} playing" if p.playing else ""
    return (
        f"match {p.run_id}: {p.games}/{planned} games{playing} {p.games_per_second:.1f}/s  Elo {elo}  "
        f"penta {p.pentanomial}"
    )


def match_summary(store: Store, run: Run) -> dict[str, Any]:
    """What status, report and dashboard show of a match: its run, the counts, the statistics,
    its engines and its configuration (credentials masked, no openings)."""
    from coordinator.reports.engines import masked_config
    from coordinator.reports.match import run_info

    config = run.settings_as(MatchConfig)
    totals = store.totals(run.id, run.counted_batches)
    return {
        "type": "fixed-games",
        "run": run_info(run),
        "totals": {
            "games": totals.games,
            "planned_games": config.max_games,
            "pairs": sum(totals.pentanomial),
            "pentanomial": totals.pentanomial,
            "wdl": totals.wdl,
            "counted_batches": run.counted_batches,
            "planned_batches": config.max_batches,
            "cpu_seconds": totals.cpu_seconds,
        },
        "stats": statistics(totals.pentanomial),
        "engines": MATCH.engines(store, run),
        "config": {**masked_config(run.config), "openings": len(config.openings)},
    }


def match_text(data: dict[str, Any]) -> str:
    """The terminal summary of a match."""
    from coordinator.escape import terminal
    from coordinator.reports.text import engines_lines

    r, t, s = data["run"], data["totals"], data["stats"]
    sides = data["engines"]["sides"]
    w, d, l = t["wdl"]  # noqa: E741
    lines = [
        f"match {r['id']} ({r['game']}): {r['state']}, {t['games']} of {t['planned_games']} games",
        terminal(f"{sides['candidate']['name']} vs {sides['baseline']['name']}"),
        f"games: {t['games']}  W {w}  D {d}  L {l}  pentanomial {t['pentanomial']}",
    ]
    if s is None:
        lines.append("no game pair counted yet")
    else:
        lines.append(f"Elo: {s['elo']:+.2f} +- {s['elo95']:.2f} (95%)  LOS: {100 * s['los']:.2f}%")
        lines.append(f"nElo: {s['nelo']:+.2f} +- {s['nelo95']:.2f} (95%)")
    if r["error"]:
        lines.append(terminal(f"error: {r['error']}"))
    return "\n".join(lines + engines_lines(data["engines"]))


def match_html(data: dict[str, Any]) -> str:
    """The report page of a match: the result, the engines and the configuration."""
    from coordinator.reports.html import page, pairs_table, section

    r, t, s = data["run"], data["totals"], data["stats"]
    sides = data["engines"]["sides"]
    result = [
        ("candidate", sides["candidate"]["name"]),
        ("baseline", sides["baseline"]["name"]),
        ("state", r["state"]),
        ("games", f"{t['games']} of {t['planned_games']}"),
        ("W / D / L", " / ".join(str(n) for n in t["wdl"])),
        ("pentanomial", t["pentanomial"]),
    ]
    if s is not None:
        result += [
            ("Elo (95%)", f"{s['elo']:+.1f} ± {s['elo95']:.1f}"),
            ("LOS", f"{100 * s['los']:.1f}%"),
            ("nElo (95%)", f"{s['nelo']:+.1f} ± {s['nelo95']:.1f}"),
        ]
    engines = [(side, f"{e['name']} ({e['version'] or 'version not reported'})") for side, e in sides.items()]
    engines.append(("limits", data["engines"]["limits"]))
    config = [(key, value) for key, value in sorted(data["config"].items()) if not isinstance(value, dict)]
    return page(
        f"Match {r['id']}: {r['game']}",
        [("result", "Result"), ("engines", "Engines"), ("config", "Configuration")],
        section("result", "Result", pairs_table(result)),
        section("engines", "Engines", pairs_table(engines)),
        section("config", "Configuration", pairs_table(config)),
    )


class MatchKind(TwoSidesKind):
    """``arbiter match``: N game pairs of two sides, no SPRT."""

    name = RunKind.MATCH
    noun = "match"
    config_type = MatchConfig
    worker_check = True

    def play(self, store: Store, run: Run, executor: Executor) -> None:
        """Play every game pair, then print the summary."""
        from coordinator.console import show
        from coordinator.sprt.drive import run_with_progress

        config = run.settings_as(MatchConfig)
        run_with_progress(store, run, config, executor, lambda p: progress_line(p, config.max_games), "match")
        show(match_text(match_summary(store, store.get_run(run.id) or run)))

    def finished_text(self, store: Store, run: Run) -> str | None:
        """The summary."""
        return self.status_text(store, run)

    def status_row(self, store: Store, run: Run) -> str:
        """Games, Elo, and whether every pair was played."""
        from coordinator.sprt.report import status_row

        s = statistics(store.totals(run.id).pentanomial)
        elo = f"{s['elo']:+.1f} +- {s['elo95']:.1f}" if s else "-"
        done = "complete" if run.state is RunState.FINISHED else "-"
        return status_row(run, self.games(store, run), elo, "-", decision=done)

    def status_text(self, store: Store, run: Run) -> str:
        """The summary."""
        return match_text(match_summary(store, run))

    def status_json(self, store: Store, run: Run) -> dict[str, Any]:
        """:func:`match_summary`, JSON-safe."""
        from coordinator.reports import json_safe

        return dict(json_safe(match_summary(store, run)))

    def report_data(self, store: Store, run: Run, anchor: str | None) -> dict[str, Any]:
        """:func:`match_summary`."""
        return match_summary(store, run)

    def report_plots(self, store: Store, run: Run, data: dict[str, Any]) -> dict[str, str]:
        """None: the result is its few numbers."""
        return {}

    def report_html(self, data: dict[str, Any], plots: dict[str, str]) -> str:
        """:func:`match_html`."""
        return match_html(data)

    def report_text(self, data: dict[str, Any]) -> str:
        """:func:`match_text`."""
        return match_text(data)

    def row(self, store: Store, run: Run) -> dict[str, Any]:
        """Sides, games of the plan's, Elo."""
        from coordinator.reports.engines import side_of

        config = run.settings_as(MatchConfig)
        totals = store.totals(run.id, run.counted_batches)
        s = statistics(totals.pentanomial)
        return {
            "candidate": side_of(config, "candidate")["name"],
            "baseline": side_of(config, "baseline")["name"],
            "games": totals.games,
            "planned_games": config.max_games,
            "pentanomial": totals.pentanomial,
            "wdl": totals.wdl,
            "elo": s["elo"] if s else None,
            "elo95": s["elo95"] if s else None,
        }

    def report_row(self, data: dict[str, Any]) -> dict[str, Any]:
        """Sides, games of the plan's, Elo of the match summary."""
        t, s = data["totals"], data["stats"]
        sides = data["engines"]["sides"]
        return {
            "candidate": sides["candidate"]["name"],
            "baseline": sides["baseline"]["name"],
            "games": t["games"],
            "planned_games": t["planned_games"],
            "pentanomial": t["pentanomial"],
            "wdl": t["wdl"],
            "elo": s["elo"] if s else None,
            "elo95": s["elo95"] if s else None,
        }

    def versus(self, row: dict[str, Any]) -> str:
        """Candidate vs baseline."""
        return f"{row['candidate']} vs {row['baseline']}"

    def outcome(self, row: dict[str, Any]) -> str:
        """Complete, or the games played of the plan's."""
        return "complete" if row["state"] == "finished" else f"{row['games']} of {row['planned_games']} games"

    def live(self, row: dict[str, Any]) -> list[LiveItem]:
        """Games of the plan's, and Elo."""
        return [
            LiveItem("games", row["games"], "games", f" of {row['planned_games']}"),
            LiveItem("Elo", elo_text(row), bold=False),
        ]


#: The match kind of the registry.
MATCH = MatchKind()
