"""``round recount`` keeps the round's hand corrections, or refuses unless told to drop them;
``round edit --card`` draws the review image again.

"New models" are simulated by a detector that no longer finds one card (so the others are
numbered anew): the card given by hand is found again by its place in the photo.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from photo_fakes import SLOTS, fake_vision, round_photos, start_fake_game  # noqa: F401
from test_score_cards import CENTRE_CARDS, LEFTOVER_CARDS, Unchanged, counts
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.scoring.ledger import Ledger
from cardtally.vision import count as count_module
from cardtally.vision.detect_classical import detect_cards_classical

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def saved_round() -> dict:
    return json.loads(run("game", "show", "--json").stdout)["rounds"][0]


def missing_card(slot: int):
    """A detector that does not find the card drawn at ``SLOTS[slot]``."""
    def detect(image_bgr):
        found = detect_cards_classical(image_bgr)
        far = np.linalg.norm(found.centre_xy - np.array(SLOTS[slot]), axis=1) > 10
        return found[far]
    return detect


@pytest.fixture(autouse=True)
def setup(fake_vision, cardtally_home: Path):  # noqa: F811
    start_fake_game()


@pytest.fixture
def photos(tmp_path: Path) -> tuple[Path, Path]:
    return round_photos(tmp_path, CENTRE_CARDS, LEFTOVER_CARDS)


def score(photos, *more: str):
    result = run("score", "--center", str(photos[0]), "--leftover", str(photos[1]),
                 "--caller", "Anna", "--yes", *more)  # fmt: skip
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("how", ["score", "round edit"])
def test_cards_given_by_hand_are_given_again(photos, monkeypatch, how: str):
    if how == "score":
        score(photos, "--card", "centre:11=Cleo")
    else:
        score(photos)
        assert run("round", "edit", "1", "--card", "centre:11=Cleo").exit_code == 0
    monkeypatch.setattr(count_module, "detect_cards", missing_card(0))  # Anna's card 1
    result = run("round", "recount", "1", "--yes")
    assert result.exit_code == 0, result.output
    assert "Kept the corrections: --card centre:centre.png:10=Cleo.\n" in result.stderr
    saved = saved_round()
    assert counts(saved)["Cleo"] == (3, 4) and counts(saved)["Anna"] == (4, 0)
    (card,) = saved["evidence"]["hand_cards"]
    assert (card["number"], card["player"]) == (10, "Cleo")  # numbered anew
    assert saved["evidence"]["center"][0]["card_decks"][9] == "yellow"


def test_refused_when_the_card_is_not_found_again(photos, monkeypatch, cardtally_home: Path):
    score(photos, "--card", "centre:11=Cleo")
    monkeypatch.setattr(count_module, "detect_cards", missing_card(10))  # the card given
    before = Unchanged(cardtally_home)
    result = run("round", "recount", "1", "--yes")
    assert result.exit_code == 1, result.output
    assert result.stderr.endswith(
        "Error: Cannot re-count round 1 and keep its correction --card centre:centre.png:11=Cleo: "
        "the re-count finds no card in its place. Re-count with --drop-corrections to drop the "
        "corrections, then correct the round again with round edit.\n"
    )
    before.check()
    result = run("round", "recount", "1", "--yes", "--drop-corrections")
    assert result.exit_code == 0, result.output
    assert "Dropped the corrections: --card centre:centre.png:11=Cleo.\n" in result.stderr
    saved = saved_round()
    assert counts(saved)["Cleo"] == (2, 4) and saved["evidence"]["hand_cards"] == []
    assert saved["evidence"]["corrections"][-1]["command"] == "round recount --drop-corrections"


def test_older_rounds_without_the_record(photos, cardtally_home: Path):
    """A round saved before cardtally kept the cards' places: its --card corrections cannot
    be given again."""
    score(photos, "--card", "centre:11=Cleo")
    with Ledger.open(cardtally_home / "cardtally.db") as ledger:
        game = ledger.game()
        stored = game.round(1)
        evidence = {k: v for k, v in stored.evidence.items()
                    if k not in ("corrections", "hand_cards")}  # fmt: skip
        with ledger.transaction():
            ledger.replace_round(game.id, 1, stored.entry, list(stored.warnings), evidence=evidence)
    before = Unchanged(cardtally_home)
    result = run("round", "recount", "1", "--yes")
    assert (result.exit_code, result.stderr) == (1, (
        "Error: Cannot re-count round 1 and keep its corrections: --card centre:11=Cleo (saved "
        "without the cards' places). Re-count with --drop-corrections to drop them, then correct "
        "the round again with round edit.\n"
    ))  # fmt: skip
    before.check()
    result = run("round", "recount", "1", "--yes", "--drop-corrections")
    assert result.exit_code == 0, result.output
    assert counts(saved_round())["Cleo"] == (2, 4)


def test_round_edit_card_draws_the_review_image_again(photos):
    score(photos)
    review = Path(saved_round()["evidence"]["center"][0]["review_image"])
    before = cv2.imread(str(review))
    result = run("round", "edit", "1", "--card", "centre:11=Cleo")
    assert result.exit_code == 0, result.output
    assert f"Review image drawn again: {review}\n" in result.stderr
    after = cv2.imread(str(review))
    assert after.shape == before.shape and np.abs(after.astype(int) - before).max() > 100
    # Drawn as score --card draws it: the same picture, byte for byte.
    assert run("round", "undo").exit_code == 0
    score(photos, "--card", "centre:11=Cleo")
    fresh = cv2.imread(saved_round()["evidence"]["center"][0]["review_image"])
    assert np.array_equal(fresh, after)


def test_round_edit_card_without_the_photo(photos):
    score(photos)
    photos[0].rename(photos[0].with_suffix(".bak"))
    result = run("round", "edit", "1", "--card", "centre:11=Cleo")
    assert result.exit_code == 0, result.output
    assert (f"Warning: the review image of centre.png is not drawn again: its photo "
            f"{photos[0].resolve()} is missing.\n") in result.stderr  # fmt: skip
    assert counts(saved_round())["Cleo"] == (3, 4)
