"""``cardtally game new|list|show|export``, including every bad input with its exact error."""

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardtally.cli import app

runner = CliRunner()
RULE_NAMES = "ligretto, racing-demon (aliases: nerts, pounce), dutch-blitz, ligretto-2"
THREE = ["-p", "Anna=red-star", "-p", "Ben=red-moon", "-p", "Cleo=green-star"]


def run(*args: str):
    return runner.invoke(app, list(args))


def ok(*args: str):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


def play_round(center: str, leftover: str, caller: str | None = None, *extra: str):
    args = ["round", "add"]
    for item in center.split():
        args += ["--center", item]
    for item in leftover.split():
        args += ["--leftover", item]
    if caller:
        args += ["--caller", caller]
    return ok(*args, *extra)


def test_new_game(cardtally_home: Path):
    result = ok("game", "new", *THREE)
    assert result.stdout == (
        "Started game 1: ligretto, first to 99 points (-2 per pile card).\n"
        "Players: Anna (red-star), Ben (red-moon), Cleo (green-star).\n"
        "It is now the current game.\n"
    )
    assert result.stderr == ""
    assert (cardtally_home / "cardtally.db").is_file()


def test_new_game_with_house_rules_json():
    result = ok(
        "game", "new", "--rules", "pounce", "--player", "Anna=a", "--player", "Ben=b",
        "--penalty", "3", "--bonus", "5", "--target", "50", "--rounds", "6",
        "--pile-size", "12", "--deck-size", "54", "--json",
    )  # fmt: skip
    data = json.loads(result.stdout)
    assert data["game"] == 1
    assert data["current"] is True
    assert data["rules"] == {
        "name": "racing-demon",
        "deck_size": 54,
        "pile_size": 12,
        "points_per_center_card": 1,
        "penalty_per_card": 3,
        "caller_bonus": 5,
        "target": 50,
        "target_kind": "points",
        "max_rounds": 6,
    }
    assert data["players"] == [{"player": "Anna", "deck": "a"}, {"player": "Ben", "deck": "b"}]
    assert data["rounds"] == []
    assert data["standings"] == [
        {"player": "Anna", "deck": "a", "total": 0, "place": 1, "round_wins": 0},
        {"player": "Ben", "deck": "b", "total": 0, "place": 1, "round_wins": 0},
    ]
    assert (data["finished"], data["winners"]) == (False, [])


TWELVE = [a for i in range(12) for a in ("-p", f"P{i}=deck{i}")]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--rules", "foo", *THREE], f"Unknown rule set 'foo'. Choose one of: {RULE_NAMES}."),
        (["-p", "Anna=a"], "A ligretto game needs 2 to 12 players; got 1."),
        ([], "A ligretto game needs 2 to 12 players; got 0."),
        ([*TWELVE, "-p", "Extra=x"], "A ligretto game needs 2 to 12 players; got 13."),
        (["--rules", "ligretto-2", *THREE], "A ligretto-2 game needs exactly 2 players; got 3."),
        (["--rules", "ligretto-2", "-p", "A=a"], "A ligretto-2 game needs exactly 2 players; got 1."),
        (["-p", "Anna=a", "-p", "Anna=b"], "Player 'Anna' is listed twice."),
        (
            ["-p", "Anna=red", "-p", "Ben=red"],
            "Deck 'red' is given to both Anna and Ben; each player needs a deck of their own.",
        ),
        ([*THREE, "--penalty", "-1"], "--penalty must be 0 or more; got -1."),
        ([*THREE, "--rounds", "0"], "--rounds must be 1 or more; got 0."),
        ([*THREE, "--target", "0"], "--target 0 means no target: give the number of rounds with --rounds."),
        (
            [*THREE, "--pile-size", "50"],
            "The pile (50 cards) cannot be larger than the deck (40 cards); "
            "check --pile-size and --deck-size.",
        ),
    ],
)  # fmt: skip
def test_new_game_bad_input(args, error, cardtally_home: Path):
    result = run("game", "new", *args)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == f"Error: {error}\n"
    assert not (cardtally_home / "cardtally.db").exists()


@pytest.mark.parametrize("player", ["Anna", "=a", "Anna=", "Anna=a=b"])
def test_malformed_player_is_a_usage_error(player: str, cardtally_home: Path):
    result = run("game", "new", "-p", player, "-p", "Ben=b")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"Error: Bad --player '{player}': write NAME=DECK, e.g. --player Anna=red-star.\n")
    assert not (cardtally_home / "cardtally.db").exists()


def test_twelve_players_and_ligretto_2_with_two():
    ok("game", "new", *TWELVE)
    ok("game", "new", "--rules", "ligretto-2", "-p", "A=a", "-p", "B=b")


@pytest.mark.parametrize(
    "args",
    [
        ["--penalty", "two", *THREE],
        ["--target", "1.5", *THREE],
        ["--colour", "red", *THREE],
    ],
)
def test_typer_usage_errors_exit_2(args):
    result = run("game", "new", *args)
    assert result.exit_code == 2
    assert "Usage: cardtally game new" in result.stderr


def test_unwritable_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("CARDTALLY_HOME", str(blocker / "home"))
    result = run("game", "new", *THREE)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: Cannot create the data home {blocker / 'home'}: Not a directory. "
        "Set CARDTALLY_HOME to a writable folder.\n"
    )


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can write anywhere")
def test_read_only_data_home(cardtally_home: Path):
    cardtally_home.mkdir()
    cardtally_home.chmod(0o500)
    try:
        result = run("game", "new", *THREE)
    finally:
        cardtally_home.chmod(0o700)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: The data home {cardtally_home} is not writable. "
        "Set CARDTALLY_HOME to a writable folder.\n"
    )


def _broken_message(path: Path, reason: str) -> str:
    return (
        f"Error: The game ledger {path} cannot be used ({reason}). Move it aside "
        f"(e.g. mv '{path}' '{path}.broken') and run the command again to start a new ledger.\n"
    )


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"game 1: Anna 12, Ben 7\n", "not an SQLite database"),
        (b"SQLite format 3\x00" + b"\x5a" * 3000, "damaged: file is not a database"),
    ],
)
@pytest.mark.parametrize(
    "command",
    [
        ["game", "new", *THREE],
        ["game", "list"],
        ["game", "show"],
        ["game", "export"],
        ["round", "add", "--center", "Anna=1"],
        ["round", "undo"],
    ],
)
def test_corrupt_ledger_is_named_and_never_replaced(cardtally_home: Path, content, reason, command):
    cardtally_home.mkdir()
    ledger = cardtally_home / "cardtally.db"
    ledger.write_bytes(content)
    result = run(*command)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == _broken_message(ledger, reason)
    assert ledger.read_bytes() == content
    assert sorted(p.name for p in cardtally_home.iterdir()) == ["cardtally.db"]


def test_list_without_games(cardtally_home: Path):
    result = ok("game", "list")
    assert result.stdout == ""
    assert result.stderr == (
        "No games yet. Start one with: cardtally game new --player NAME=DECK --player NAME=DECK\n"
    )
    assert json.loads(ok("game", "list", "--json").stdout) == {"current": None, "games": []}
    assert not cardtally_home.exists()  # reading creates nothing


def test_list_games():
    ok("game", "new", *THREE)
    play_round("Anna=15 Ben=11 Cleo=9", "Anna=0 Ben=4 Cleo=6", "Anna")
    ok("game", "new", "--rules", "nerts", "--target", "10", "-p", "Dan=x", "-p", "Eve=y")
    play_round("Dan=8 Eve=20", "Dan=3 Eve=0", "Eve")
    ok("game", "new", "-p", "Fay=x", "-p", "Gus=y")
    result = ok("game", "list")
    assert result.stdout == (
        "   id  rules         rounds  players          status\n"
        "    1  ligretto           1  Anna, Ben, Cleo  Anna leading\n"
        "    2  racing-demon       1  Dan, Eve         won by Eve\n"
        "*   3  ligretto           0  Fay, Gus         not started\n"
    )
    data = json.loads(ok("game", "list", "--json").stdout)
    assert data["current"] == 3
    assert [(g["game"], g["rounds"], g["finished"], g["winners"]) for g in data["games"]] == [
        (1, 1, False, []),
        (2, 1, True, ["Eve"]),
        (3, 0, False, []),
    ]


@pytest.mark.parametrize("command", [["game", "show"], ["game", "export"], ["round", "undo"]])
def test_no_game_yet(command):
    result = run(*command)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: No game yet. Start one with: "
        "cardtally game new --player NAME=DECK --player NAME=DECK\n"
    )


def test_show_text():
    ok("game", "new", *THREE)
    play_round("Anna=15 Ben=11 Cleo=9", "Anna=0 Ben=4 Cleo=6", "Anna")
    play_round("Anna=12 Ben=17 Cleo=10", "Anna=3 Ben=1 Cleo=5", "Ben")
    result = ok("game", "show")
    assert result.stdout == (
        "Game 1: ligretto, first to 99 points (-2 per pile card); 2 rounds played.\n"
        "Players: Anna (red-star), Ben (red-moon), Cleo (green-star).\n"
        "\n"
        "round      Anna       Ben     Cleo  called out\n"
        "1      15 (+15)    3 (+3)  -3 (-3)  Anna\n"
        "2       21 (+6)  18 (+15)  -3 (+0)  Ben\n"
        "\n"
        "Warnings:\n"
        "  round 2: Ben called out but has 1 card left in the pile.\n"
        "\n"
        "place  player  deck        total\n"
        "    1  Anna    red-star       21\n"
        "    2  Ben     red-moon       18\n"
        "    3  Cleo    green-star     -3\n"
        "\n"
        "Leader: Anna (21 points).\n"
    )
    assert all(len(line) <= 80 for line in result.stdout.splitlines())


def test_show_without_rounds():
    ok("game", "new", "-p", "Anna=a", "-p", "Ben=b")
    assert ok("game", "show").stdout == (
        "Game 1: ligretto, first to 99 points (-2 per pile card); 0 rounds played.\n"
        "Players: Anna (a), Ben (b).\n"
        "\n"
        "No rounds yet. Add one with: cardtally round add --center NAME=N ... "
        "--leftover NAME=N ...\n"
        "\n"
        "place  player  deck  total\n"
        "    1  Anna    a         0\n"
        "    1  Ben     b         0\n"
        "\n"
        "Leaders (shared first place): Anna and Ben (0 points).\n"
    )


def test_show_finished_game_with_shared_win():
    ok("game", "new", "--target", "20", "-p", "Anna=a", "-p", "Ben=b", "-p", "Cleo=c")
    play_round("Anna=22 Ben=22 Cleo=5", "Anna=0 Ben=1 Cleo=3", "Anna")  # 22, 20, -1
    play_round("Anna=0 Ben=2 Cleo=5", "Anna=1 Ben=0 Cleo=3", "Ben", "--force")  # 20, 22, -2
    play_round("Anna=2 Ben=0 Cleo=1", "Anna=0 Ben=0 Cleo=3", "Anna", "--force")  # 22, 22, -7
    result = ok("game", "show")
    assert result.stdout.endswith(
        "Winners (shared first place): Anna and Ben (22 points).\nFinished after round 1.\n"
    )
    data = json.loads(ok("game", "show", "--json").stdout)
    assert data["finished"] is True
    assert data["finished_after_round"] == 1
    assert data["winners"] == ["Anna", "Ben"]
    assert [(s["player"], s["total"], s["place"]) for s in data["standings"]] == [
        ("Anna", 22, 1),
        ("Ben", 22, 1),
        ("Cleo", -7, 3),
    ]


def test_show_ligretto_2_match():
    ok("game", "new", "--rules", "ligretto-2", "-p", "Anna=a", "-p", "Ben=b")
    anna_wins = ("Anna=20 Ben=10", "Anna=0 Ben=5", "Anna")
    play_round(*anna_wins)
    play_round("Anna=10 Ben=20", "Anna=5 Ben=0", "Ben")
    play_round(*anna_wins)
    play_round("Anna=10 Ben=10", "Anna=2 Ben=2")  # tie: nobody moves the marker
    play_round(*anna_wins)
    result = ok("game", "show")
    assert "round      Anna       Ben  called out  round win\n" in result.stdout
    assert "4       46 (+6)   26 (+6)  -           tie\n" in result.stdout
    assert result.stdout.endswith(
        "place  player  deck  total  round wins\n"
        "    1  Anna    a        66           3\n"
        "    2  Ben     b        26           1\n"
        "\n"
        "Winner: Anna (3 round wins, 66 points).\n"
        "Finished after round 5.\n"
    )
    result = run("round", "add", "--center", "Anna=1", "--center", "Ben=1",
                 "--leftover", "Anna=1", "--leftover", "Ben=1")  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: Game 1 is finished: Anna won (3 round wins, 66 points). "
        "Add the round anyway with --force.\n"
    )


def test_show_picks_a_game():
    ok("game", "new", "-p", "Anna=a", "-p", "Ben=b")
    ok("game", "new", "-p", "Cleo=c", "-p", "Dan=d")
    assert json.loads(ok("game", "show", "--json").stdout)["game"] == 2
    assert json.loads(ok("game", "show", "1", "--json").stdout)["game"] == 1
    assert json.loads(ok("game", "show", "--game", "1", "--json").stdout)["current"] is False
    result = run("game", "show", "7")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: No game 7 in the ledger; see: cardtally game list\n",
    )
    result = run("game", "show", "1", "--game", "2")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: Two different games given: 1 and --game 2.\n",
    )


def test_export_csv_and_json():
    ok("game", "new", "-p", "Anna=red-star", "-p", "Ben=red-moon")
    play_round("Anna=15 Ben=11", "Anna=0 Ben=4", "Anna")
    play_round("Anna=12 Ben=17", "Anna=3 Ben=0", "Ben")
    expected_csv = (
        "game,round,player,deck,center,leftover,called_out,points,total\n"
        "1,1,Anna,red-star,15,0,1,15,15\n"
        "1,1,Ben,red-moon,11,4,0,3,3\n"
        "1,2,Anna,red-star,12,3,0,6,21\n"
        "1,2,Ben,red-moon,17,0,1,17,20\n"
    )
    assert ok("game", "export").stdout == expected_csv
    assert ok("game", "export", "1", "--csv").stdout == expected_csv
    data = json.loads(ok("game", "export", "--json").stdout)
    assert data == json.loads(ok("game", "show", "--json").stdout)
    assert data["rounds"][1] == {
        "number": 2,
        "caller": "Ben",
        "counts": {"Anna": {"center": 12, "leftover": 3}, "Ben": {"center": 17, "leftover": 0}},
        "scores": {"Anna": 6, "Ben": 17},
        "totals": {"Anna": 21, "Ben": 20},
        "winner": "Ben",
        "warnings": [],
        "evidence": None,
    }
    result = run("game", "export", "--csv", "--json")
    assert (result.exit_code, result.stderr) == (1, "Error: Choose one of --csv and --json.\n")
