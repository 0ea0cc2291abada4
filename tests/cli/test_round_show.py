"""``cardtally round show N``: one round, with its photos, review images and corrections."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from photo_fakes import (
    fake_vision,  # noqa: F401  (fixture)
    round_photos,
    start_fake_game,
)
from typer.testing import CliRunner

from cardtally.cli import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture
def game(fake_vision, cardtally_home: Path) -> None:  # noqa: F811
    start_fake_game()


@pytest.mark.usefixtures("game")
def test_a_photo_round(tmp_path: Path, cardtally_home: Path):
    centre, left = round_photos(tmp_path, ["red"] * 3 + ["purple"], ["blue"] * 2)
    assert run("round", "add", "--center", "Anna=1", "--center", "Ben=2", "--center", "Cleo=3",
               "--leftover", "Anna=0", "--leftover", "Ben=0", "--leftover", "Cleo=0",
               "--caller", "Ben").exit_code == 0  # fmt: skip
    scored = run("score", "--center", str(centre), "--leftover", str(left), "--caller", "Anna",
                 "--card", "centre:4=Cleo", "--fix", "Ben=pile:-1", "--yes")  # fmt: skip
    assert scored.exit_code == 0, scored.output
    review_dir = next((cardtally_home / "reviews" / "game-1").iterdir())
    trail = json.loads(run("round", "show", "2", "--json").stdout)["round"]["evidence"]["corrections"]
    at = trail[0]["at"]
    assert trail == [
        {"at": at, "command": "score", "text": "--card centre:centre.png:4=Cleo",
         "changes": [{"player": "Cleo", "set": "centre", "before": 0, "after": 1}]},
        {"at": at, "command": "score", "text": "--fix Ben=pile:-1",
         "changes": [{"player": "Ben", "set": "leftover", "before": 2, "after": 1}]},
    ]  # fmt: skip

    result = run("round", "show", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "Round 2 of game 1 (ligretto):\n"
        "player  centre  left  points  total\n"
        "Anna         3     0      +3      4\n"
        "Ben          0     1      -2      0\n"
        "Cleo         1     0      +1      4\n"
        "Called out: Anna.\n"
        "Scored from photos:\n"
        f"  centre photo: {centre.resolve()} (4 cards found)\n"
        f"    review image: {review_dir / 'centre-1-centre-review.jpg'}\n"
        f"  leftover photo: {left.resolve()} (2 cards found)\n"
        f"    review image: {review_dir / 'leftover-2-left-review.jpg'}\n"
        "Corrections:\n"
        f"  {at}  score --card centre:centre.png:4=Cleo: Cleo centre 0 -> 1\n"
        f"  {at}  score --fix Ben=pile:-1: Ben leftover 2 -> 1\n"
    )
    assert run("round", "show", "1").stdout.endswith("Called out: Ben.\nTyped in by hand.\n")

    data = json.loads(run("round", "show", "2", "--json").stdout)
    assert data["game"] == 1 and data["round"]["number"] == 2
    assert data["round"]["counts"]["Cleo"] == {"center": 1, "leftover": 0}
    assert data["round"]["evidence"]["card_fixes"] == ["centre:4=Cleo"]
    assert data["round"] == json.loads(run("game", "show", "--json").stdout)["rounds"][1]


@pytest.mark.usefixtures("game")
def test_errors():
    result = run("round", "show", "1")
    assert (result.exit_code, result.stderr) == (1, "Error: Game 1 has no rounds yet.\n")
    result = run("round", "show", "1", "--game", "7")
    assert (result.exit_code, result.stderr) == (1, "Error: No game 7 in the ledger; see: cardtally game list\n")


def test_no_ledger(cardtally_home: Path):
    result = run("round", "show", "1")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: No game yet. Start one with: cardtally game new")
    assert not (cardtally_home / "cardtally.db").exists()


@pytest.mark.usefixtures("game")
def test_corrections_after_saving(tmp_path: Path):
    """``round edit`` adds to the trail, with what each edit changed; a round typed in by hand
    gets one too."""
    centre, left = round_photos(tmp_path, ["red"] * 3 + ["purple"], ["blue"] * 2)
    assert run("round", "add", "--center", "Anna=1", "--center", "Ben=2", "--center", "Cleo=3",
               "--leftover", "Anna=0", "--leftover", "Ben=1", "--leftover", "Cleo=1",
               "--caller", "Anna").exit_code == 0  # fmt: skip
    assert run("score", "--center", str(centre), "--leftover", str(left), "--caller", "Anna",
               "--yes").exit_code == 0  # fmt: skip
    assert run("round", "edit", "1", "--center", "Ben=4").exit_code == 0
    assert run("round", "edit", "2", "--card", "centre:4=Cleo").exit_code == 0
    assert run("round", "edit", "2", "--center", "Anna=2", "--caller", "Ben").exit_code == 0

    typed = json.loads(run("round", "show", "1", "--json").stdout)["round"]["evidence"]
    (edit,) = typed["corrections"]
    assert typed["source"] == "hand"
    assert (edit["command"], edit["text"], edit["changes"]) == (
        "round edit", "--center Ben=4", [{"player": "Ben", "set": "centre", "before": 2, "after": 4}]
    )
    shown = run("round", "show", "1").stdout
    assert shown.endswith(f"Typed in by hand.\nCorrections:\n  {edit['at']}  round edit "
                          "--center Ben=4: Ben centre 2 -> 4\n")  # fmt: skip

    trail = json.loads(run("round", "show", "2", "--json").stdout)["round"]["evidence"]["corrections"]
    assert [(c["command"], c["text"], c["changes"]) for c in trail] == [
        ("round edit", "--card centre:4=Cleo",
         [{"player": "Cleo", "set": "centre", "before": 0, "after": 1}]),
        ("round edit", "--center Anna=2 --caller Ben",
         [{"player": "Anna", "set": "centre", "before": 3, "after": 2}]),
    ]  # fmt: skip
    assert run("round", "show", "2").stdout.endswith(
        "Corrections:\n"
        f"  {trail[0]['at']}  round edit --card centre:4=Cleo: Cleo centre 0 -> 1\n"
        f"  {trail[1]['at']}  round edit --center Anna=2 --caller Ben: Anna centre 3 -> 2\n"
    )
