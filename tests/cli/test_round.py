"""``cardtally round add|edit|undo``: output, warnings, bad input, finished games, busy ledger."""

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.scoring import ledger as ledger_module

runner = CliRunner()
FULL = [
    "--center", "Anna=15", "--center", "Ben=11", "--centre", "Cleo=9",
    "--leftover", "Anna=0", "--leftover", "Ben=4", "--leftover", "Cleo=6",
    "--caller", "Anna",
]  # fmt: skip


def run(*args: str):
    return runner.invoke(app, list(args))


def ok(*args: str):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(autouse=True)
def game():
    ok("game", "new", "-p", "Anna=red-star", "-p", "Ben=red-moon", "-p", "Cleo=green-star")


def totals() -> dict[str, int]:
    data = json.loads(ok("game", "show", "--json").stdout)
    return {s["player"]: s["total"] for s in data["standings"]}


def test_add_round():
    result = ok("round", "add", *FULL)
    assert result.stdout == (
        "Round 1 of game 1 (ligretto):\n"
        "player  centre  left  points  total\n"
        "Anna        15     0     +15     15\n"
        "Ben         11     4      +3      3\n"
        "Cleo         9     6      -3     -3\n"
        "Called out: Anna.\n"
        "Leader: Anna (15 points).\n"
    )
    assert result.stderr == ""


def test_add_round_json():
    data = json.loads(ok("round", "add", *FULL, "--json").stdout)
    assert data["round"] == 1
    assert data["rounds"][0]["scores"] == {"Anna": 15, "Ben": 3, "Cleo": -3}
    assert data["standings"][0] == {
        "player": "Anna", "deck": "red-star", "total": 15, "place": 1, "round_wins": 1,
    }  # fmt: skip


def test_names_are_matched_case_insensitively():
    args = [a.lower() if "=" in a or a == "Anna" else a for a in FULL]
    data = json.loads(ok("round", "add", *args, "--json").stdout)
    assert data["rounds"][0]["caller"] == "Anna"
    assert list(data["rounds"][0]["scores"]) == ["Anna", "Ben", "Cleo"]


WARNED = [
    "--center", "Anna=15", "--center", "Ben=38", "--center", "Cleo=9",
    "--leftover", "Anna=2", "--leftover", "Ben=4", "--leftover", "Cleo=11",
    "--caller", "Anna",
]  # fmt: skip
WARNINGS = [
    "Ben: 38 in the centre + 4 in the pile = 42 cards, more than the 40-card deck.",
    "Cleo: 11 cards left in the pile, more than the 10 it starts with.",
    "Anna called out but has 2 cards left in the pile.",
]


def test_physical_check_warnings_are_shown_and_kept():
    result = ok("round", "add", *WARNED)
    assert result.stderr == (
        "".join(f"Warning: round 1: {w}\n" for w in WARNINGS)
        + "Round 1 is saved with the warning(s) above; correct it with: "
        "cardtally round edit 1 --center NAME=N --leftover NAME=N\n"
    )
    data = json.loads(ok("game", "show", "--json").stdout)
    assert data["rounds"][0]["warnings"] == WARNINGS
    assert (
        "  round 1: Anna called out but has 2 cards left in the pile.\n"
        in ok("game", "show").stdout
    )
    # Correcting the round clears its warnings.
    ok("round", "edit", "1", "--center", "Ben=30", "--leftover", "Cleo=10", "--leftover", "Anna=0")
    assert json.loads(ok("game", "show", "--json").stdout)["rounds"][0]["warnings"] == []


def test_strict_refuses_and_saves_nothing():
    result = run("round", "add", *WARNED, "--strict")
    assert result.exit_code == 1
    assert result.stderr == "Error: Not saved (--strict): " + " ".join(WARNINGS) + "\n"
    assert json.loads(ok("game", "show", "--json").stdout)["rounds"] == []
    ok("round", "add", *FULL, "--strict")


def test_nobody_called_out_but_a_pile_is_empty():
    args = FULL[:-2]
    result = ok("round", "add", *args)
    assert result.stderr.splitlines()[0] == (
        "Warning: round 1: Nobody called out, but Anna has an empty pile."
    )
    result = run("round", "add", *args, "--strict")
    assert result.stderr == (
        "Error: Not saved (--strict): Nobody called out, but Anna has an empty pile.\n"
    )


PLAYERS = "The players are: Anna, Ben, Cleo."


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"Anna=15": "Dan=15"}, f"Unknown player 'Dan' in --center. {PLAYERS}"),
        ({"Ben=4": "Zoe=4"}, f"Unknown player 'Zoe' in --leftover. {PLAYERS}"),
        ({"Anna": "Dan"}, f"Unknown player 'Dan' in --caller. {PLAYERS}"),
        ({"Anna=15": "Anna=-1"}, "Bad count in --center Anna=-1: a count cannot be negative."),
        ({"Ben=4": "Ben=-4"}, "Bad count in --leftover Ben=-4: a count cannot be negative."),
        (
            {"Anna=15": "Anna=fifteen"},
            "Bad count in --center Anna=fifteen: 'fifteen' is not a whole number of cards.",
        ),
        ({"Ben=4": "Ben=4.5"}, "Bad count in --leftover Ben=4.5: '4.5' is not a whole number of cards."),
        ({"Anna=15": "Anna15"}, "Bad --center 'Anna15': write NAME=N, a player and a number of cards."),
        ({"Anna=15": "Ben=15"}, "Ben is given twice in --center."),
        ({"Cleo=9": None}, "Missing --center for Cleo: give every player's count, 0 included."),
        ({"Ben=4": None}, "Missing --leftover for Ben: give every player's count, 0 included."),
    ],
)  # fmt: skip
def test_add_bad_input(change, error):
    args = []
    skip_next = False
    for i, arg in enumerate(FULL):
        if skip_next:
            skip_next = False
            continue
        if arg.startswith("--") and FULL[i + 1] in change and change[FULL[i + 1]] is None:
            skip_next = True
            continue
        args.append(change.get(arg, arg) or arg)
    result = run("round", "add", *args)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == f"Error: {error}\n"
    assert json.loads(ok("game", "show", "--json").stdout)["rounds"] == []


def test_finished_game_needs_force():
    ok("game", "new", "--target", "20", "-p", "Anna=a", "-p", "Ben=b")
    win = ["--center", "Anna=25", "--center", "Ben=3", "--leftover", "Anna=0",
           "--leftover", "Ben=2", "--caller", "Anna"]  # fmt: skip
    ok("round", "add", *win)
    result = run("round", "add", *win)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: Game 2 is finished: Anna won (25 points). Add the round anyway with --force.\n"
    )
    result = ok("round", "add", *win, "--force")
    assert result.stdout.endswith("Winner: Anna (50 points).\n")
    # Correcting and undoing rounds of a finished game need no --force.
    ok("round", "edit", "1", "--center", "Anna=20")
    ok("round", "undo")


def test_edit_round():
    ok("round", "add", *FULL)
    ok("round", "add", *FULL)
    result = ok("round", "edit", "1", "--center", "Ben=20", "--leftover", "Cleo=0",
                "--caller", "Cleo")  # fmt: skip
    assert result.stdout == (
        "Round 1 of game 1 (ligretto):\n"
        "player  centre  left  points  total\n"
        "Anna        15     0     +15     15\n"
        "Ben         20     4     +12     12\n"
        "Cleo         9     0      +9      9\n"
        "Called out: Cleo.\n"
        "Leader: Anna (30 points).\n"
    )
    assert result.stderr == ""
    assert totals() == {"Anna": 30, "Ben": 15, "Cleo": 6}
    ok("round", "edit", "2", "--no-caller", "--leftover", "Anna=1")
    data = json.loads(ok("game", "show", "--json").stdout)
    assert data["rounds"][1]["caller"] is None
    assert data["rounds"][1]["counts"]["Anna"] == {"center": 15, "leftover": 1}
    assert totals() == {"Anna": 28, "Ben": 15, "Cleo": 6}


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["5", "--center", "Anna=1"], "Game 1 has no round 5 (it has rounds 1-2)."),
        (["0", "--center", "Anna=1"], "Game 1 has no round 0 (it has rounds 1-2)."),
        (["1"], "Nothing to change: give --center, --leftover, --card, --caller or --no-caller."),
        (["1", "--caller", "Ben", "--no-caller"], "Give either --caller or --no-caller, not both."),
        (["1", "--center", "Dan=3"], f"Unknown player 'Dan' in --center. {PLAYERS}"),
        (["1", "--leftover", "Ben=-2"], "Bad count in --leftover Ben=-2: a count cannot be negative."),
        (["1", "--game", "4", "--center", "Anna=1"], "No game 4 in the ledger; see: cardtally game list"),
    ],
)  # fmt: skip
def test_edit_bad_input(args, error):
    ok("round", "add", *FULL)
    ok("round", "add", *FULL)
    result = run("round", "edit", *args)
    assert result.exit_code == 1
    assert result.stderr == f"Error: {error}\n"
    assert totals() == {"Anna": 30, "Ben": 6, "Cleo": -6}


def test_edit_a_round_of_a_game_without_rounds():
    result = run("round", "edit", "1", "--center", "Anna=1")
    assert (result.exit_code, result.stderr) == (1, "Error: Game 1 has no rounds yet.\n")


def test_edit_round_number_must_be_a_number():
    result = run("round", "edit", "first", "--center", "Anna=1")
    assert result.exit_code == 2


def test_undo():
    ok("round", "add", *FULL)
    ok("round", "add", *FULL)
    result = ok("round", "undo")
    assert result.stdout == (
        "Removed round 2 of game 1.\n"
        "place  player  deck        total\n"
        "    1  Anna    red-star       15\n"
        "    2  Ben     red-moon        3\n"
        "    3  Cleo    green-star     -3\n"
        "Leader: Anna (15 points).\n"
    )
    data = json.loads(ok("round", "undo", "--json").stdout)
    assert (data["round"], data["rounds"]) == (1, [])
    result = run("round", "undo")
    assert (result.exit_code, result.stderr) == (1, "Error: Game 1 has no rounds to undo.\n")


def test_game_option_targets_another_game():
    ok("game", "new", "-p", "Dan=d", "-p", "Eve=e")  # game 2 is now current
    ok("round", "add", *FULL, "--game", "1")
    assert json.loads(ok("game", "show", "1", "--json").stdout)["rounds"][0]["number"] == 1
    assert json.loads(ok("game", "show", "--json").stdout)["rounds"] == []
    ok("round", "undo", "--game", "1")
    assert json.loads(ok("game", "show", "1", "--json").stdout)["rounds"] == []


def test_busy_ledger(cardtally_home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ledger_module, "BUSY_TIMEOUT_S", 0.05)
    other = sqlite3.connect(cardtally_home / "cardtally.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another cardtally in the middle of writing
    try:
        for command in (["round", "add", *FULL], ["round", "undo"], ["game", "new", "-p", "A=a",
                                                                       "-p", "B=b"]):  # fmt: skip
            result = run(*command)
            assert result.exit_code == 1
            assert result.stderr == (
                "Error: The game ledger is busy (another cardtally is writing); try again.\n"
            )
        assert ok("game", "show", "--json").stdout  # reading still works
    finally:
        other.execute("ROLLBACK")
        other.close()
    ok("round", "add", *FULL)


@pytest.mark.parametrize("command", [["round", "add", *FULL], ["round", "edit", "1", "--center",
                                     "Anna=1"], ["round", "undo"]])  # fmt: skip
def test_round_commands_without_a_ledger_create_nothing(command, cardtally_home: Path):
    (cardtally_home / "cardtally.db").unlink()
    result = run(*command)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: No game yet. Start one with: "
        "cardtally game new --player NAME=DECK --player NAME=DECK\n"
    )
    assert list(cardtally_home.iterdir()) == []
