"""Whether a well-formed result answers the payload it was sent for: the same run, batch and engine,
one record per game in pair order from the openings sent, and claimed counts that agree with the
records. The first check of every answer; replaying its games (``replay``) is the second."""

from __future__ import annotations

from operator import attrgetter

from wire.protocol import PAIR_COLORS, BatchPayload, BatchResult, Color, FaultKind
from wire.tally import candidate_score, tally

#: A record's candidate colour and opening (one pass in C over a batch's records each).
_COLOR_OF = attrgetter("candidate_color")
_OPENING_OF = attrgetter("opening")


def check_matches_payload(result: BatchResult, payload: BatchPayload) -> tuple[list[int], list[int]]:
    """ValueError unless ``result`` answers ``payload``: same run, batch and engine, one record per
    game in pair order (candidate white then black) from the openings sent, and claimed counts
    that agree with the records; the counts (pentanomial, W/D/L) tallied from the records."""
    if result.run_id != payload.run_id:
        raise ValueError(f"run_id: result is for run {result.run_id!r}, expected {payload.run_id!r}")
    if result.batch_index != payload.batch_index:
        raise ValueError(
            f"batch_index: result is for batch {result.batch_index!r}, expected {payload.batch_index}"
        )
    if result.engine_version != payload.engine_version:
        raise ValueError(
            f"engine_version: result was played by {result.engine_version!r}, "
            f"expected {payload.engine_version!r}"
        )
    pairs = payload.pairs
    if sum(result.pentanomial) != pairs:
        raise ValueError(f"pentanomial: counts add up to {sum(result.pentanomial)}, expected {pairs}")
    if sum(result.wdl) != 2 * pairs:
        raise ValueError(f"wdl: counts add up to {sum(result.wdl)}, expected {2 * pairs}")
    if len(result.games) != 2 * pairs:
        raise ValueError(f"games: expected {2 * pairs} game records, got {len(result.games)}")
    games = result.games
    colors, openings = list(map(_COLOR_OF, games)), list(map(_OPENING_OF, games))
    in_order = colors[0::2].count(Color.WHITE) == pairs and colors[1::2].count(Color.BLACK) == pairs
    sent = payload.openings
    if not (in_order and openings[0::2] == sent and openings[1::2] == sent):
        for i, record in enumerate(games):  # the whole-batch test failed: name the first culprit
            if record.candidate_color != PAIR_COLORS[i % 2]:
                raise ValueError(f"games[{i}]: candidate_color should be {str(PAIR_COLORS[i % 2])!r}")
            if record.opening != sent[i // 2]:
                raise ValueError(f"games[{i}]: opening differs from the one sent for pair {i // 2}")
    counted_pentanomial, counted_wdl = tally(result.games)
    if counted_pentanomial != result.pentanomial:
        raise ValueError(
            f"pentanomial: {result.pentanomial} does not match the game records ({counted_pentanomial})"
        )
    if counted_wdl != result.wdl:
        raise ValueError(f"wdl: {result.wdl} does not match the game records ({counted_wdl})")
    check_faults_match_records(result, payload)
    return counted_pentanomial, counted_wdl


#: The end reasons of a game lost by an engine program's fault.
FAULT_REASONS = frozenset(str(kind) for kind in FaultKind)


def check_faults_match_records(result: BatchResult, payload: BatchPayload) -> None:
    """ValueError unless the faults and engine identities a result reports fit the batch: only
    a batch with engine programs has them, each fault names a different game that its side lost
    for a fault's reason, and every game lost by a fault has its fault."""
    if not payload.has_programs and (result.faults or result.engines):
        raise ValueError("faults, engines: reported for a batch that no engine program plays")
    faulted: set[int] = set()
    for i, fault in enumerate(result.faults):
        game = fault["game"]
        record = result.games[game]
        if game in faulted:
            raise ValueError(f"faults[{i}]: game {game} has a fault already")
        faulted.add(game)
        if record.reason not in FAULT_REASONS:
            raise ValueError(f"faults[{i}]: game {game} ended by {record.reason!r}, not by a fault")
        if candidate_score(record.result, record.candidate_color) != (
            0.0 if fault["side"] == "candidate" else 1.0
        ):
            raise ValueError(f"faults[{i}]: the {fault['side']} did not lose game {game}")
    unreported = [i for i, g in enumerate(result.games) if g.reason in FAULT_REASONS and i not in faulted]
    if unreported and payload.has_programs:
        raise ValueError(f"games[{unreported[0]}]: lost by a fault that the result does not report")
