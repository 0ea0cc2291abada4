"""Acceptance: a whole game typed in through the CLI, then a writer killed mid-round."""

import json
import os
import signal
import subprocess
import sys
import textwrap

from typer.testing import CliRunner

from cardtally.cli import app

runner = CliRunner()


def ok(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def add_round(center: dict, leftover: dict, caller: str | None):
    args = ["round", "add"]
    for name, n in center.items():
        args += ["--center", f"{name}={n}"]
    for name, n in leftover.items():
        args += ["--leftover", f"{name}={n}"]
    if caller:
        args += ["--caller", caller]
    return ok(*args)


def show() -> dict:
    return json.loads(ok("game", "show", "--json").stdout)


def test_scripted_game():
    ok("game", "new", "--rules", "racing-demon",
       "--player", "Anna=red-star", "--player", "Ben=red-moon", "--player", "Cleo=green-star")  # fmt: skip
    # centre - 2 x pile, +10 for calling out (racing-demon)
    add_round({"Anna": 15, "Ben": 11, "Cleo": 9}, {"Anna": 0, "Ben": 4, "Cleo": 6}, "Anna")
    # -> 25, 3, -3
    add_round({"Anna": 12, "Ben": 17, "Cleo": 10}, {"Anna": 3, "Ben": 0, "Cleo": 5}, "Ben")
    # -> 6, 27, 0
    add_round({"Anna": 14, "Ben": 9, "Cleo": 18}, {"Anna": 2, "Ben": 7, "Cleo": 0}, "Cleo")
    # -> 10, -5, 28
    assert {s["player"]: s["total"] for s in show()["standings"]} == {
        "Anna": 41, "Ben": 25, "Cleo": 25,
    }  # fmt: skip

    # Round 1 was miscounted: Ben had 13 in the centre, and Cleo 5 left.
    ok("round", "edit", "1", "--center", "Ben=13", "--leftover", "Cleo=5")  # Ben 5, Cleo -1
    ok("round", "undo")  # take back round 3

    data = show()
    assert [r["number"] for r in data["rounds"]] == [1, 2]
    assert [r["scores"] for r in data["rounds"]] == [
        {"Anna": 25, "Ben": 5, "Cleo": -1},
        {"Anna": 6, "Ben": 27, "Cleo": 0},
    ]
    assert data["standings"] == [
        {"player": "Ben", "deck": "red-moon", "total": 32, "place": 1, "round_wins": 1},
        {"player": "Anna", "deck": "red-star", "total": 31, "place": 2, "round_wins": 1},
        {"player": "Cleo", "deck": "green-star", "total": -1, "place": 3, "round_wins": 0},
    ]
    assert (data["finished"], data["winners"], data["leaders"]) == (False, [], ["Ben"])

    assert ok("game", "export", "--csv").stdout == (
        "game,round,player,deck,center,leftover,called_out,points,total\n"
        "1,1,Anna,red-star,15,0,1,25,25\n"
        "1,1,Ben,red-moon,13,4,0,5,5\n"
        "1,1,Cleo,green-star,9,5,0,-1,-1\n"
        "1,2,Anna,red-star,12,3,0,6,31\n"
        "1,2,Ben,red-moon,17,0,1,27,32\n"
        "1,2,Cleo,green-star,10,5,0,0,-1\n"
    )
    assert json.loads(ok("game", "export", "--json").stdout) == data

    # Play on to the target: Ben reaches 100 first.
    add_round({"Anna": 30, "Ben": 40, "Cleo": 20}, {"Anna": 1, "Ben": 0, "Cleo": 2}, "Ben")
    add_round({"Anna": 30, "Ben": 30, "Cleo": 20}, {"Anna": 2, "Ben": 0, "Cleo": 2}, "Ben")
    data = show()
    assert {s["player"]: s["total"] for s in data["standings"]} == {
        "Anna": 85, "Ben": 122, "Cleo": 31,
    }  # fmt: skip
    assert (data["finished"], data["winners"]) == (True, ["Ben"])


KILLED_WRITER = textwrap.dedent(
    """
    import time
    from cardtally.home import ledger_path
    from cardtally.scoring.entry import build_round
    from cardtally.scoring.ledger import Ledger

    ledger = Ledger.open(ledger_path(), create=False)
    with ledger.transaction() as conn:
        conn.execute("PRAGMA cache_size = 1")  # changed pages reach the file before the commit
        game = ledger.game()
        entry = build_round(game.players, center=["Anna=40", "Ben=0"],
                            leftover=["Anna=0", "Ben=10"], caller="Anna")
        ledger.add_round(game.id, entry, [])
        ledger.replace_round(game.id, 1, entry, [])
        print("half-way", flush=True)
        time.sleep(60)
    """
)


def test_a_writer_killed_mid_round_leaves_the_previous_state(cardtally_home):
    ok("game", "new", "--player", "Anna=red-star", "--player", "Ben=red-moon")
    add_round({"Anna": 15, "Ben": 11}, {"Anna": 0, "Ben": 4}, "Anna")
    add_round({"Anna": 12, "Ben": 17}, {"Anna": 3, "Ben": 0}, "Ben")
    before = show()

    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "CARDTALLY_HOME": str(cardtally_home)},
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline() == "half-way\n"
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(10)
    assert writer.returncode == -signal.SIGKILL
    assert (cardtally_home / "cardtally.db-journal").exists()  # it died mid-transaction

    assert show() == before
    assert {s["player"]: s["total"] for s in before["standings"]} == {"Anna": 21, "Ben": 20}
    add_round({"Anna": 5, "Ben": 5}, {"Anna": 1, "Ben": 0}, "Ben")
    assert [r["number"] for r in show()["rounds"]] == [1, 2, 3]
