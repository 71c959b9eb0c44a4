"""The defaults of arbiter's commands, each written once.

Options mean the same in every command; where the work differs, so do these (README, "Using it"):
a tuning trial is a few dozen pairs at fewer nodes, an SPRT runs longer at more, a game to watch
at many more.
"""

from __future__ import annotations

import engine

#: Nodes per move of `arbiter sprt`, `tune`, `play`; the depth of `arbiter search`.
SPRT_LIMITS = engine.Limits(nodes=2000)
TUNE_LIMITS = engine.Limits(nodes=1000)
PLAY_LIMITS = engine.Limits(nodes=20_000)
SEARCH_LIMITS = engine.Limits(depth=6)

#: Game pairs per batch (one SPRT update and one task each).
SPRT_BATCH_PAIRS = 8
TUNE_BATCH_PAIRS = 4

#: The tournament's end rules of every match unless a run says otherwise: a ply limit, threefold
#: repetition and bare lions are draws; nobody resigns.
ADJUDICATION = engine.Adjudication(max_plies=400, repetition=True, bare_lions=True)

#: Share of a fleet's batches played again by another worker (besides each worker's first).
VERIFY_FRACTION = 0.02

#: SPSA plans its gains over this many games when `--max-games` is not given.
SPSA_GAMES = 40_000

#: Game pairs each pairing of a tournament plays unless told (``arbiter tournament --pairs``).
TOURNAMENT_PAIRS = 20
