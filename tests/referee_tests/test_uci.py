"""worker.referee.uci: the protocol with the plain test engine, and its parsers on their own."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import pytest
from referee_testkit import ENV, PLAIN, QUICK, START

import engine
from worker.referee.faults import EngineConfigError
from worker.referee.process import EngineProcess
from worker.referee.uci import (
    AtDeadline,
    GoLimits,
    OptionSpec,
    SearchInfo,
    UciClient,
    parse_option,
)


@pytest.fixture
def sent() -> list[str]:
    return []


@pytest.fixture
def plain(sent: list[str]) -> Iterator[UciClient]:
    """The plain engine, handshaken; every line sent to it is kept in ``sent``."""

    def log(way: str, line: str) -> None:
        if way == ">":
            sent.append(line)

    client = UciClient(EngineProcess.start(PLAIN, env=ENV, log=log), QUICK)
    client.handshake()
    yield client
    client.quit()


def scripted(*lines: str) -> UciClient:
    """An engine that answers ``uci`` with ``lines``, then ``readyok`` to anything until ``quit``."""
    code = (
        "import sys\n"
        "sys.stdin.readline()\n"
        f"print({chr(10).join(lines)!r}, flush=True)\n"
        "for line in iter(sys.stdin.readline, 'quit\\n'):\n"
        "    print('readyok', flush=True)\n"
    )
    return UciClient(EngineProcess.start([sys.executable, "-c", code], env=ENV), QUICK)


def test_handshake_reads_id_and_every_option_type(plain: UciClient) -> None:
    info = plain.info
    assert info is not None
    assert (info.name, info.author, info.ignored) == ("plain", "arbiter tests", ())
    variant = OptionSpec("UCI_Variant", "combo", "congo", vars=("congo", "congress"))
    assert info.option("uci_variant") == variant
    assert info.option("HASH") == OptionSpec("Hash", "spin", "16", 1, 1024)
    assert info.option("Ponder") == OptionSpec("Ponder", "check", "false")
    assert info.option("Weights") == OptionSpec("Weights", "string", "")
    assert info.option("clear hash") == OptionSpec("Clear Hash", "button")
    assert info.option("nonsense") is None


def test_ugi_is_an_alias() -> None:
    client = UciClient(EngineProcess.start(PLAIN, env=ENV), QUICK)
    try:
        assert client.handshake("ugi").name == "plain"
    finally:
        client.quit()


def test_options_of_every_type_are_sent_as_declared(plain: UciClient, sent: list[str]) -> None:
    plain.set_options({"hash": 32, "Ponder": True, "weights": "", "Clear Hash": None, "moveoverhead": "10"})
    plain.set_variant("congress")
    plain.new_game()
    assert sent[1:] == [
        "setoption name Hash value 32",
        "setoption name Ponder value true",
        "setoption name Weights value <empty>",
        "setoption name Clear Hash",
        "setoption name MoveOverhead value 10",
        "setoption name UCI_Variant value congress",
        "ucinewgame",
        "isready",
    ]


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("Hash", 0, "option Hash: expected an integer from 1 to 1024, got 0"),
        ("Hash", "lots", "option Hash: expected an integer from 1 to 1024, got 'lots'"),
        ("Hash", True, "option Hash: expected an integer from 1 to 1024, got True"),
        ("Ponder", "yes", "option Ponder: expected true or false, got 'yes'"),
        ("UCI_Variant", "chess", "option UCI_Variant: expected one of congo, congress, got 'chess'"),
        ("Weights", "a\nb", "option Weights: expected a string of one line, got 'a\\nb'"),
        ("Clear Hash", "now", "option Clear Hash: expected no value (a button), got 'now'"),
        ("Threads", 2, "engine plain has no option 'Threads' (it has: Clear Hash, Hash, MoveOverhead, "),
    ],
)
def test_option_values_are_checked_before_sending(
    plain: UciClient, sent: list[str], name: str, value: object, message: str
) -> None:
    with pytest.raises(EngineConfigError) as caught:
        plain.set_options({"Hash": 64, name: value})  # type: ignore[dict-item]
    assert str(caught.value).startswith(message)
    assert sent == ["uci"], "nothing is sent unless every value is good"


def test_variant_declarations() -> None:
    only_congo = scripted("option name UCI_Variant type combo default congo var congo", "uciok")
    silent = scripted("id name silent", "uciok")
    try:
        only_congo.handshake()
        assert only_congo.plays("congo") and not only_congo.plays("congress")
        with pytest.raises(EngineConfigError, match="does not play congress: its UCI_Variant offers congo"):
            only_congo.set_variant("congress")
        silent.handshake()
        assert silent.plays("congress")
        silent.set_variant("congress")  # sends nothing: the engine plays the run's game
        silent.is_ready()
    finally:
        only_congo.quit()
        silent.quit()


def test_malformed_declarations_are_ignored_and_listed() -> None:
    client = scripted(
        "id name odd one",
        "option name Size type spin default big min 1 max 9",
        "option name Flag type check default maybe",
        "option name Pick type combo default a",
        "option name Dial type slider default 3",
        "option name Good type spin default 3 min 1 max 9",
        "some line nobody knows",
        "ugiok",
    )
    try:
        info = client.handshake()
    finally:
        client.quit()
    assert info.name == "odd one"
    assert list(info.options) == ["good"]
    assert len(info.ignored) == 4
    assert info.ignored[0].startswith("option Size: spin needs integer default, min and max")


def test_parse_option_names_with_spaces_and_string_defaults() -> None:
    assert parse_option("option name Skill Level type spin default 20 min 0 max 20") == OptionSpec(
        "Skill Level", "spin", "20", 0, 20
    )
    assert parse_option("option name Book File type string default my book.bin") == OptionSpec(
        "Book File", "string", "my book.bin"
    )
    assert parse_option("option name Style type combo default Solid var Solid var Very Risky") == OptionSpec(
        "Style", "combo", "Solid", vars=("Solid", "Very Risky")
    )
    assert isinstance(parse_option("option type spin default 1 min 0 max 2"), str)


SEARCH_LINES = [
    "info depth 3 seldepth 5 score cp 12 nodes 400 nps 4000 time 100 pv d2d3 e6e5 b1d3f5",
    "info depth 4 score cp 20 lowerbound nodes 900 multipv 1 pv c2c3",
    "info depth 9 score cp 999 nodes 99999 multipv 2 pv a2a3",
    "info nodes 1200 nps nonsense currmove d2d3 currmovenumber 2",
    "info string depth 99 score cp 5",
]


def answering_go(*lines: str) -> UciClient:
    """An engine that answers ``uci`` with ``uciok`` and every ``go`` with ``lines``."""
    code = (
        "import sys\n"
        "for line in iter(sys.stdin.readline, 'quit\\n'):\n"
        "    if line.startswith('uci'):\n"
        "        print('uciok', flush=True)\n"
        "    elif line.startswith('go'):\n"
        f"        print({chr(10).join(lines)!r}, flush=True)\n"
    )
    client = UciClient(EngineProcess.start([sys.executable, "-c", code], env=ENV), QUICK)
    client.handshake()
    return client


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            SEARCH_LINES,
            SearchInfo(depth=4, seldepth=5, score_cp=20, nodes=1200, nps=4000, time_ms=100, pv=("c2c3",)),
        ),
        (
            [*SEARCH_LINES, "info depth 5 score mate -3 pv a1a2 time 7"],
            SearchInfo(depth=5, seldepth=5, score_mate=-3, nodes=1200, nps=4000, time_ms=7, pv=("a1a2",)),
        ),
        ([], SearchInfo()),
    ],
    ids=["cp", "mate-after-cp", "no-info"],
)
def test_a_search_keeps_the_last_value_of_each_field(lines: list[str], expected: SearchInfo) -> None:
    """(The parser is the Rust referee's; its tests hold every order of lines.)"""
    client = answering_go(*lines, "bestmove c2c3 ponder d7d6")
    try:
        best = client.go(GoLimits(nodes=10), 5.0, AtDeadline.HANG, "position startpos")
    finally:
        client.quit()
    assert (best.move, best.ponder, best.info) == ("c2c3", "d7d6", expected)


def test_go_texts() -> None:
    assert GoLimits(wtime=900, btime=1000, winc=10, binc=10, movestogo=3).command() == (
        "go wtime 900 btime 1000 winc 10 binc 10 movestogo 3"
    )
    assert GoLimits(movetime=50, nodes=10, depth=2, infinite=True).command() == (
        "go movetime 50 nodes 10 depth 2 infinite"
    )


@pytest.mark.parametrize(
    "limits",
    [
        GoLimits(nodes=800),
        GoLimits(depth=2),
        GoLimits(movetime=60),
        GoLimits(wtime=2000, btime=2000, winc=20, binc=20),
        GoLimits(wtime=5000, btime=5000, movestogo=40),
    ],
)
def test_go_with_each_limit_answers_a_legal_move(plain: UciClient, limits: GoLimits) -> None:
    plain.set_variant("congress")
    plain.new_game()
    plain.position(START["congress"], ["b2b3"])
    best = plain.go(limits, 5.0, AtDeadline.FORFEIT)
    position = engine.Position.from_fen("congress", START["congress"]).play("b2b3")
    assert best.move in position.legal_moves()
    assert best.info.depth is not None and best.info.nodes is not None and best.info.pv
    assert 0 < best.elapsed_ms < 5000


def test_fixed_nodes_are_deterministic(plain: UciClient) -> None:
    plain.new_game()
    answers = []
    for _ in range(2):
        plain.position(START["congo"], ["d2d3"])
        best = plain.go(GoLimits(nodes=1500), 5.0, AtDeadline.HANG)
        answers.append((best.move, best.info.nodes, best.info.score_cp, best.info.pv))
    assert answers[0] == answers[1]
    assert answers[0][1] is not None and answers[0][1] >= 1500


def test_isready_is_answered_while_searching(plain: UciClient) -> None:
    plain.new_game()
    plain.position(START["congo"])
    plain.send("go infinite")
    # readyok within the client's bound (is_ready fails otherwise) from a search that never ends
    # by itself: no fixed figure of seconds, which a loaded machine would miss.
    plain.is_ready()
    plain.send("stop")
    deadline = time.monotonic() + 2
    while not (plain.process.read_line(deadline) or "").startswith("bestmove"):
        pass


def test_an_infinite_search_is_stopped_at_its_deadline(plain: UciClient) -> None:
    plain.new_game()
    plain.position(START["congo"])
    best = plain.go(GoLimits(infinite=True), 0.3, AtDeadline.STOP)
    assert best.move in engine.Position.start("congo").legal_moves()
    assert 300 <= best.elapsed_ms < 300 + 1000 * QUICK.stop_s


def test_a_move_is_timed_from_go_to_bestmove_with_the_clients_time_source(plain: UciClient) -> None:
    ticks = iter([100.0, 100.25])  # read when go is written, and when bestmove is read
    plain.now = lambda: next(ticks)
    plain.new_game()
    plain.position(START["congo"])
    assert plain.go(GoLimits(nodes=100), 5.0, AtDeadline.HANG).elapsed_ms == 250.0
