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
        "Corrections: --fix Ben=pile:-1, --card centre:4=Cleo.\n"
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
