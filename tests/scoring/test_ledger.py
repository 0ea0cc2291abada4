"""The SQLite game ledger: round trip, transactions, busy writers, kill -9, bad files."""

import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from cardtally.errors import CardtallyError
from cardtally.scoring.ledger import BUSY_MESSAGE, Ledger
from cardtally.scoring.rounds import PlayerCounts, RoundEntry
from cardtally.scoring.rules import get_rules, with_overrides
from cardtally.scoring.schema import SCHEMA_VERSION
from cardtally.scoring.standings import Seat

SEATS = [Seat("Anna", "red-star"), Seat("Ben", "red-moon")]


def entry(anna=(15, 0), ben=(11, 4), caller="Anna"):
    return RoundEntry((PlayerCounts("Anna", *anna), PlayerCounts("Ben", *ben)), caller)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "cardtally.db"


@pytest.fixture
def ledger(path: Path):
    with Ledger.open(path) as opened:
        yield opened


def new_game(ledger: Ledger, rules_name: str = "ligretto", **overrides) -> int:
    return ledger.create_game(with_overrides(get_rules(rules_name), **overrides), SEATS)


def test_round_trip(ledger: Ledger):
    rules = with_overrides(get_rules("nerts"), penalty=3, rounds=7)
    game_id = ledger.create_game(rules, SEATS)
    assert ledger.current_game_id() == game_id
    number = ledger.add_round(game_id, entry(), ["a warning"], evidence={"photos": ["a.jpg"]})
    ledger.add_round(game_id, entry(anna=(3, 2), ben=(20, 0), caller="Ben"), [])
    game = ledger.game()
    assert number == 1
    assert game.id == game_id
    assert game.rules == rules
    assert game.seats == tuple(SEATS)
    assert [r.number for r in game.rounds] == [1, 2]
    assert game.rounds[0].entry == entry()
    assert game.rounds[0].warnings == ("a warning",)
    assert game.rounds[0].evidence == {"photos": ["a.jpg"]}
    assert game.rounds[1].evidence is None
    assert [dict(r.totals) for r in game.summary.rounds] == [
        {"Anna": 25, "Ben": -1},  # penalty 3, caller bonus 10
        {"Anna": 22, "Ben": 29},
    ]


def test_schema_has_version_and_photo_columns(ledger: Ledger, path: Path):
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    columns = {row[1] for row in conn.execute("PRAGMA table_info(rounds)")}
    assert {"evidence", "warnings", "caller_seat"} <= columns
    conn.close()


def test_new_game_becomes_current_and_games_are_listed(ledger: Ledger):
    first = new_game(ledger)
    second = new_game(ledger, "dutch-blitz")
    assert ledger.current_game_id() == second
    assert ledger.game_ids() == [first, second]
    assert ledger.game(first).rules.name == "ligretto"
    ledger.set_current_game(first)
    assert ledger.game().id == first


def test_edit_and_remove_rounds(ledger: Ledger):
    game_id = new_game(ledger)
    ledger.add_round(game_id, entry(), [], evidence={"sha256": "ab"})
    ledger.add_round(game_id, entry(), [])
    ledger.replace_round(game_id, 1, entry(anna=(20, 0)), ["checked"])
    game = ledger.game(game_id)
    assert game.rounds[0].entry.of("Anna").center_cards == 20
    assert game.rounds[0].warnings == ("checked",)
    assert game.rounds[0].evidence == {"sha256": "ab"}
    assert ledger.remove_last_round(game_id) == 2
    assert ledger.remove_last_round(game_id) == 1
    with pytest.raises(CardtallyError) as info:
        ledger.remove_last_round(game_id)
    assert str(info.value) == f"Game {game_id} has no rounds to undo."


@pytest.mark.parametrize(
    ("rounds", "number", "message"),
    [
        (0, 1, "Game 1 has no rounds yet."),
        (1, 2, "Game 1 has no round 2 (it has round 1)."),
        (3, 5, "Game 1 has no round 5 (it has rounds 1-3)."),
        (3, 0, "Game 1 has no round 0 (it has rounds 1-3)."),
        (3, -1, "Game 1 has no round -1 (it has rounds 1-3)."),
    ],
)
def test_missing_round(ledger: Ledger, rounds, number, message):
    game_id = new_game(ledger)
    for _ in range(rounds):
        ledger.add_round(game_id, entry(), [])
    with pytest.raises(CardtallyError) as info:
        ledger.replace_round(game_id, number, entry(), [])
    assert str(info.value) == message


def test_missing_game(ledger: Ledger):
    with pytest.raises(CardtallyError) as info:
        ledger.game()
    assert str(info.value) == (
        "No game yet. Start one with: cardtally game new --player NAME=DECK --player NAME=DECK"
    )
    new_game(ledger)
    with pytest.raises(CardtallyError) as info:
        ledger.game(9)
    assert str(info.value) == "No game 9 in the ledger; see: cardtally game list"


def test_failed_transaction_leaves_nothing(ledger: Ledger):
    game_id = new_game(ledger)
    ledger.add_round(game_id, entry(), [])
    with pytest.raises(RuntimeError):
        with ledger.transaction():
            ledger.add_round(game_id, entry(), [])
            ledger.replace_round(game_id, 1, entry(anna=(0, 10)), [])
            raise RuntimeError("crash in the middle")
    game = ledger.game(game_id)
    assert len(game.rounds) == 1
    assert game.rounds[0].entry == entry()
    ledger.add_round(game_id, entry(), [])  # the ledger is usable afterwards
    assert len(ledger.game(game_id).rounds) == 2


def test_open_without_create(tmp_path: Path):
    missing = tmp_path / "none.db"
    assert Ledger.open(missing, create=False) is None
    assert not missing.exists()


def test_empty_file_becomes_a_ledger(path: Path):
    path.write_bytes(b"")
    with Ledger.open(path) as ledger:
        assert ledger.game_ids() == []


# -- two writers ---------------------------------------------------------------------------------


def test_second_writer_gets_a_clear_busy_error(path: Path):
    with Ledger.open(path) as first, Ledger.open(path, busy_timeout_s=0.05) as second:
        game_id = new_game(first)
        with first.transaction():
            first.add_round(game_id, entry(), [])
            with pytest.raises(CardtallyError) as info:
                second.add_round(game_id, entry(), [])
            assert str(info.value) == BUSY_MESSAGE
            assert str(info.value) == (
                "The game ledger is busy (another cardtally is writing); try again."
            )
        second.add_round(game_id, entry(), [])  # free again
        assert [r.number for r in first.game(game_id).rounds] == [1, 2]


def test_two_writers_at_once_both_succeed_when_they_can_wait(path: Path):
    with Ledger.open(path) as setup:
        game_id = new_game(setup)
    holding = threading.Event()

    def slow_writer() -> None:
        with Ledger.open(path) as ledger, ledger.transaction():
            ledger.add_round(game_id, entry(caller="Anna"), [])
            holding.set()
            time.sleep(0.3)

    thread = threading.Thread(target=slow_writer)
    thread.start()
    assert holding.wait(5)
    with Ledger.open(path, busy_timeout_s=10) as ledger:
        ledger.add_round(game_id, entry(ben=(11, 0), caller="Ben"), [])  # waits, then writes
    thread.join()
    with Ledger.open(path) as ledger:
        callers = [r.entry.caller for r in ledger.game(game_id).rounds]
    assert callers == ["Anna", "Ben"]


# -- kill -9 in the middle of a write ------------------------------------------------------------

WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from cardtally.scoring.ledger import Ledger
    from cardtally.scoring.rounds import PlayerCounts, RoundEntry

    path, game_id, mode = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    ledger = Ledger.open(path)
    big = RoundEntry((PlayerCounts("Anna", 40, 0), PlayerCounts("Ben", 0, 10)), "Anna")
    with ledger.transaction() as conn:
        conn.execute("PRAGMA cache_size = 1")  # spill changed pages into the file early
        if mode == "add":
            ledger.add_round(game_id, big, [])
        elif mode == "edit":
            ledger.replace_round(game_id, 1, big, ["edited"])
        else:  # part of a round: its row, but none of its counts yet
            conn.execute(
                "INSERT INTO rounds (game_id, number, caller_seat, created_at, updated_at) "
                "VALUES (?, 3, 0, 'now', 'now')",
                (game_id,),
            )
        print("written", flush=True)
        time.sleep(60)
    """
)


@pytest.mark.parametrize("mode", ["add", "edit", "partial"])
def test_kill_9_in_the_middle_of_a_write_keeps_the_previous_state(path: Path, mode: str):
    with Ledger.open(path) as ledger:
        game_id = new_game(ledger)
        ledger.add_round(game_id, entry(), [])
        ledger.add_round(game_id, entry(anna=(5, 3), ben=(20, 0), caller="Ben"), [])
        before = ledger.game(game_id)

    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(game_id), mode],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline() == "written\n"
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(10)
    assert writer.returncode == -signal.SIGKILL
    assert path.with_name(path.name + "-journal").exists()  # killed mid-write: a hot journal

    with Ledger.open(path, busy_timeout_s=1) as ledger:
        after = ledger.game(game_id)
        assert after == before
        assert dict(after.summary.rounds[-1].totals) == {"Anna": 14, "Ben": 23}
        ledger.add_round(game_id, entry(), [])  # the lock died with the writer
        assert len(ledger.game(game_id).rounds) == 3


# -- files that are not a ledger -----------------------------------------------------------------


def _moved_aside_message(path: Path, reason: str) -> str:
    return (
        f"The game ledger {path} cannot be used ({reason}). Move it aside "
        f"(e.g. mv '{path}' '{path}.broken') and run the command again to start a new ledger."
    )


def _other_program_db(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE photos (name TEXT)")
    conn.commit()
    conn.close()


def _damaged_ledger(path: Path) -> None:
    with Ledger.open(path) as ledger:
        new_game(ledger)
    data = bytearray(path.read_bytes())
    data[100:400] = b"\xff" * 300  # the schema page's b-tree
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: p.write_text("Anna 12, Ben 7\n" * 20), "not an SQLite database"),
        (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200)), "not an SQLite database"),
        (
            lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xa5" * 2000),
            "damaged: file is not a database",
        ),
        (_damaged_ledger, "damaged: database disk image is malformed"),
        (_other_program_db, "an SQLite file of another program"),
        (lambda p: p.mkdir(), "it is a folder"),
    ],
)
def test_a_file_that_is_not_a_ledger_is_reported_and_left_alone(path: Path, make, reason):
    make(path)
    before = path.read_bytes() if path.is_file() else None
    for create in (True, False):
        with pytest.raises(CardtallyError) as info:
            Ledger.open(path, create=create)
        assert str(info.value) == _moved_aside_message(path, reason)
    if before is not None:
        assert path.read_bytes() == before
    assert not path.with_name(path.name + "-journal").exists()


def test_a_ledger_from_a_newer_cardtally(path: Path):
    with Ledger.open(path) as ledger:
        new_game(ledger)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(CardtallyError) as info:
        Ledger.open(path)
    assert str(info.value) == (
        f"The game ledger {path} was written by a newer cardtally (schema "
        f"{SCHEMA_VERSION + 1}; this one knows {SCHEMA_VERSION}). Upgrade cardtally."
    )


def test_stored_warnings_are_json(ledger: Ledger, path: Path):
    game_id = new_game(ledger)
    ledger.add_round(game_id, entry(), ["Anna: x", 'quote " and ; semicolon'])
    conn = sqlite3.connect(path)
    (raw,) = conn.execute("SELECT warnings FROM rounds").fetchone()
    conn.close()
    assert json.loads(raw) == ["Anna: x", 'quote " and ; semicolon']
