"""The referee: engine programs that speak arbiter's protocol (docs/protocol.md) play games,
judged move by move by the rules core. Celery-free; the batch pipeline calls :func:`play_pairs`.

process (a child process on a leash) -> uci (the protocol) -> player (an engine across games,
restarted after faults) -> game (one refereed game, judged by ``engine.GameJudge`` on an
``engine.GameClock``) -> batch (a batch's game pairs) -> kept (a batch's engines kept for the next
batch of the same engines); faults are the reasons a game is lost.
"""

from worker.referee.batch import PairedGame, play_pairs
from worker.referee.faults import EngineConfigError, EngineFault
from worker.referee.game import MoveStats, PlayedGame, play_game
from worker.referee.player import EnginePlayer, EngineSpec
from worker.referee.process import EngineProcess, ResourceLimits
from worker.referee.uci import (
    AtDeadline,
    BestMove,
    EngineInfo,
    GoLimits,
    OptionSpec,
    SearchInfo,
    Timeouts,
    UciClient,
)

__all__ = [
    "AtDeadline",
    "BestMove",
    "EngineConfigError",
    "EngineFault",
    "EngineInfo",
    "EnginePlayer",
    "EngineProcess",
    "EngineSpec",
    "GoLimits",
    "MoveStats",
    "OptionSpec",
    "PairedGame",
    "PlayedGame",
    "ResourceLimits",
    "SearchInfo",
    "Timeouts",
    "UciClient",
    "play_game",
    "play_pairs",
]
