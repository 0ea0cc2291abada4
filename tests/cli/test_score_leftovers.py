"""``score`` never guesses the leftover piles, and never counts one photo twice.

Leftovers come from photos (``--leftover``), typed counts (``--left NAME=N``) or an explicit
``--no-leftover``; without one of them ``score`` stops with a usage error before any photo is
counted. A photo's bytes given twice (a copy under another name, or the same photo for the
centre and the piles) is refused with both names.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from photo_fakes import fake_vision, round_photos, start_fake_game  # noqa: F401
from test_score import CENTRE_CARDS, LEFTOVER_CARDS, SCORES, Unchanged, fails
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.vision import count as count_module

runner = CliRunner()
HOW = (
    "--leftover PHOTO (photos of the piles), --left NAME=N (typed counts, e.g. --left Ben=3) "
    "or --no-leftover (every pile is empty)"
)


def run(*args: str):
    return runner.invoke(app, list(args))


def saved_round() -> dict:
    result = run("game", "show", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["rounds"][0]


@pytest.fixture(autouse=True)
def setup(fake_vision, cardtally_home: Path):  # noqa: F811
    start_fake_game()


@pytest.fixture
def photos(tmp_path: Path) -> tuple[Path, Path]:
    return round_photos(tmp_path, CENTRE_CARDS, LEFTOVER_CARDS)


@pytest.fixture
def no_counting(monkeypatch: pytest.MonkeyPatch) -> None:
    def counted(*args, **kwargs):
        raise AssertionError("a photo was counted")

    monkeypatch.setattr(count_module, "count_photo", counted)
    monkeypatch.setattr(count_module, "detect_cards", counted)


@pytest.mark.usefixtures("no_counting")
@pytest.mark.parametrize(
    ("more", "message"),
    [
        ([], f"Say what is left in the Ligretto piles: {HOW}."),
        (["--no-leftover", "--left", "Ben=2"], f"Give the leftover piles one way only: {HOW}."),
        (["--leftover", "LEFT", "--no-leftover"], f"Give the leftover piles one way only: {HOW}."),
    ],
    ids=["none", "typed-and-none", "photo-and-none"],
)
def test_leftovers_must_be_given(photos, cardtally_home: Path, more: list[str], message: str):
    before = Unchanged(cardtally_home)
    more = [str(photos[1]) if arg == "LEFT" else arg for arg in more]
    result = run("score", "--center", str(photos[0]), "--caller", "Anna", "--yes", *more)
    assert result.exit_code == 2, result.output
    assert result.stderr.endswith(f"Error: {message}\n")
    assert result.stdout == ""
    before.check()


def test_typed_leftovers(photos):
    result = run("score", "--center", str(photos[0]), "--left", "Ben=2", "--left", "cleo=4",
                 "--caller", "Anna", "--yes")  # fmt: skip
    assert result.exit_code == 0, result.output
    saved = saved_round()
    assert saved["scores"] == SCORES  # the caller's pile is empty
    evidence = saved["evidence"]
    assert (evidence["leftover"], evidence["leftover_source"]) == ([], "typed")
    assert evidence["typed_leftover"] == {"Anna": 0, "Ben": 2, "Cleo": 4}
    assert evidence["counted_leftover"] == {"Anna": 0, "Ben": 2, "Cleo": 4}


def test_typed_leftovers_survive_a_recount(photos):
    assert run("score", "--center", str(photos[0]), "--left", "Ben=2", "--left", "Cleo=4",
               "--fix", "Cleo=pile:+1", "--caller", "Anna", "--yes").exit_code == 0  # fmt: skip
    result = run("round", "recount", "1", "--yes")
    assert result.exit_code == 0, result.output
    assert "The re-count matches round 1; nothing changed." in result.stdout
    assert saved_round()["counts"]["Cleo"] == {"center": 2, "leftover": 5}


@pytest.mark.usefixtures("no_counting")
def test_typed_leftovers_of_every_player(photos, cardtally_home: Path):
    fails(
        cardtally_home,
        "Missing --left for Cleo: give every player's leftover count, 0 included (the "
        "caller's may be left out).",
        "--center", str(photos[0]), "--left", "Ben=2", "--caller", "Anna", "--yes",
    )  # fmt: skip
    fails(
        cardtally_home,
        "Unknown player 'Zoe' in --left. The players are: Anna, Ben, Cleo.",
        "--center", str(photos[0]), "--left", "Zoe=2", "--yes",
    )  # fmt: skip


def test_no_leftover(photos):
    result = run("score", "--center", str(photos[0]), "--no-leftover", "--caller", "Anna", "--yes")
    assert result.exit_code == 0, result.output
    # Every pile empty: the physical checks say what is odd about it.
    saved = saved_round()
    assert saved["scores"] == {"Anna": 5, "Ben": 3, "Cleo": 2}
    assert saved["evidence"]["leftover_source"] == "none"


@pytest.mark.usefixtures("no_counting")
@pytest.mark.parametrize("where", ["centre", "leftover"])
def test_the_same_photo_twice(photos, tmp_path: Path, cardtally_home: Path, where: str):
    copy = tmp_path / "copy.png"
    shutil.copyfile(photos[0], copy)
    args = ["--center", str(photos[0])]
    args += ["--center", str(copy), "--leftover", str(photos[1])] if where == "centre" else [
        "--leftover", str(copy)]  # fmt: skip
    fails(
        cardtally_home,
        f"{photos[0]} and {copy} are the same photo (identical bytes); each photo may be "
        "counted only once.",
        *args, "--caller", "Anna", "--yes",
    )  # fmt: skip


@pytest.mark.usefixtures("no_counting")
def test_count_refuses_the_same_photo_twice(photos, tmp_path: Path):
    copy = tmp_path / "copy.png"
    shutil.copyfile(photos[1], copy)
    result = run("count", str(photos[1]), str(copy))
    assert (result.exit_code, result.stderr) == (
        1,
        f"Error: {photos[1]} and {copy} are the same photo (identical bytes); each photo may "
        "be counted only once.\n",
    )
