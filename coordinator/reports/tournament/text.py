"""The terminal summary of a tournament's report: where it stands, its rating list and head to
head, within 80 columns."""

from __future__ import annotations

from coordinator.escape import terminal
from coordinator.reports.text import fault_lines, fit, move_times_line, num
from coordinator.reports.tournament.data import Entrant, TournamentReport

#: The head-to-head table's columns: engine, opponent, W, D, L, game pairs (the engine's view).
_H2H_ROW = "{:<20} {:<20} {:>4} {:>4} {:>4}  {}"
#: The rating list's columns: rank, name, Elo, +/-, games, score %, draws %.
_RATING_ROW = "{:>4}  {:<32} {:>7} {:>6} {:>6} {:>7} {:>7}"


def tournament_text(data: TournamentReport) -> str:
    """A tournament's summary: where it stands and its rating list (and the champion chain)."""
    run = data.run
    lines = [
        fit(
            f"tournament {run.id} ({data.format}, {run.game}): {run.state}, "
            f"{data.games}/{data.planned_games} games counted"
            + (f" (+{run.playing} playing)" if run.playing else "")
            + f", {len(data.engines)} engines"
        )
    ]
    if run.error:
        lines.append(fit(f"error: {terminal(run.error)}"))
    if not data.ratings or data.fit is None:
        lines.append(
            fit(f"no ratings: {terminal(data.ratings_error)}")
            if data.ratings_error is not None
            else "no games counted yet"
        )
        return "\n".join([*lines, *engines_facts(data.engines)])
    confidence = 100 * data.fit.confidence
    anchor = terminal(data.fit.anchor) if data.fit.anchor else "the mean"
    lines.append(fit(f"ratings: {data.model}, Elo relative to {anchor}, +/- at {confidence:g}%"))
    lines.append(_RATING_ROW.format("rank", "name", "Elo", "+/-", "games", "score%", "draws%"))
    for r in data.ratings:
        lines.append(
            _RATING_ROW.format(
                r.rank,
                terminal(r.name)[:32],
                f"{r.elo:+.1f}",
                num(r.error),
                r.games,
                num(None if r.score is None else 100 * r.score),
                num(None if r.draw_rate is None else 100 * r.draw_rate),
            )
        )
    if data.head_to_head:
        lines += ["", _H2H_ROW.format("engine", "opponent", "W", "D", "L", "pairs LL LD DD/WL WD WW")]
        for h in data.head_to_head:
            pairs = "-" if h.pentanomial is None else " ".join(map(str, h.pentanomial))
            lines.append(
                _H2H_ROW.format(
                    terminal(h.engine)[:20], terminal(h.opponent)[:20], h.wins, h.draws, h.losses, pairs
                )
            )
    if data.chain is not None:
        lines.append(f"champions of tuning run {data.champions_of}:")
        lines += [f"  {line}" for line in data.chain.lines]
    return "\n".join([*lines, *engines_facts(data.engines)])


def engines_facts(engines: list[Entrant]) -> list[str]:
    """A tournament's time per move and faults of each engine, as a match's are said (after a
    blank line; nothing where no move was timed and no engine faulted)."""
    lines = []
    if (times := move_times_line({e.name: e.move_times for e in engines})) is not None:
        lines.append(times)
    for e in engines:
        lines += fault_lines(e.name, e.faults)
    return ["", *(fit(terminal(line)) for line in lines)] if lines else []
