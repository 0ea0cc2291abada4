"""``cardtally score --card centre:N=PLAYER``: a card of the review image given to a player.

The photos are those of photo_fakes.py: cards on a grid, numbered in reading order in the
review image, so card k is the k-th entry of the list the photo was drawn from.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
from photo_fakes import (
    fake_vision,  # noqa: F401  (fixture)
    round_photos,
    start_fake_game,
    write_photo,
)
from typer.testing import CliRunner

from cardtally.cli import _confirm as confirm_module
from cardtally.cli import _score_run as score_run_module
from cardtally.cli import app
from cardtally.vision import count as count_module

runner = CliRunner()
#: Card 1 is red (Anna's), card 11 a purple back nobody calibrated, card 12 face up.
CENTRE_CARDS = ["red"] * 5 + ["blue"] * 3 + ["yellow"] * 2 + ["purple", "face-up"]
LEFTOVER_CARDS = ["blue"] * 2 + ["yellow"] * 4


def run(*args: str, **kwargs):
    return runner.invoke(app, list(args), **kwargs)


def saved_rounds() -> list[dict]:
    result = run("game", "show", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["rounds"]


def counts(round_json: dict) -> dict[str, tuple[int, int]]:
    return {p: (c["center"], c["leftover"]) for p, c in round_json["counts"].items()}


class Unchanged:
    """Snapshot of the ledger file, ``game show --json`` and the files under ``reviews/``."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.state = self.now()

    def now(self) -> tuple:
        ledger = self.home / "cardtally.db"
        reviews = self.home / "reviews"
        return (
            ledger.read_bytes() if ledger.exists() else None,
            run("game", "show", "--json").output,
            sorted(p for p in reviews.rglob("*") if p.is_file()) if reviews.exists() else [],
        )

    def check(self) -> None:
        assert self.now() == self.state


@pytest.fixture(autouse=True)
def setup(fake_vision, cardtally_home: Path):  # noqa: F811
    start_fake_game()


@pytest.fixture
def photos(tmp_path: Path) -> tuple[Path, Path]:
    return round_photos(tmp_path, CENTRE_CARDS, LEFTOVER_CARDS)


def score(photos: tuple[Path, Path], *more: str, **kwargs):
    return run(
        "score", "--center", str(photos[0]), "--leftover", str(photos[1]), "--caller", "Anna",
        *more, **kwargs,
    )  # fmt: skip


def test_cards_are_given_to_players(photos):
    plain = score(photos, "--yes")
    assert plain.exit_code == 0, plain.output
    assert "Check: centre centre.png: card 11 matches no player's deck\n" in plain.stderr
    assert run("round", "undo").exit_code == 0

    result = score(
        photos, "--card", "centre:11=cleo", "--card", "center:1=Ben", "--card", "centre:12=Cleo",
        "--card", "Pile:3=Anna", "--yes",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Anna    red          4     1" in result.stdout
    assert "Ben     blue         4     2" in result.stdout
    assert "Cleo    yellow       4     3" in result.stdout
    assert "card 11" not in result.stderr  # no longer unknown: nothing to check
    assert "match no player's deck" not in result.stderr
    assert "face up" not in result.stderr
    (saved,) = saved_rounds()
    assert counts(saved) == {"Anna": (4, 1), "Ben": (4, 2), "Cleo": (4, 3)}
    evidence = saved["evidence"]
    assert evidence["card_fixes"] == ["centre:11=cleo", "center:1=Ben", "centre:12=Cleo",
                                      "Pile:3=Anna"]  # fmt: skip
    assert evidence["counted_center"] == {"Anna": 4, "Ben": 4, "Cleo": 4}
    assert evidence["counted_leftover"] == {"Anna": 1, "Ben": 2, "Cleo": 3}
    (centre,) = evidence["center"]
    assert centre["counts"] == {"red": 4, "blue": 4, "yellow": 4}
    assert (centre["cards"], centre["unknown"], centre["face_up"]) == (12, 0, 0)
    assert cv2.imread(centre["review_image"]) is not None


def test_fix_applies_on_top_of_card(photos):
    result = score(photos, "--card", "centre:11=Cleo", "--fix", "Cleo=centre:+1", "--yes")
    assert result.exit_code == 0, result.output
    (saved,) = saved_rounds()
    assert counts(saved)["Cleo"] == (4, 4)
    assert saved["evidence"]["counted_center"]["Cleo"] == 3


def test_photos_named_when_a_set_has_several(photos, tmp_path: Path):
    second = write_photo(tmp_path / "more.png", ["purple", "purple"])
    result = run(
        "score", "--center", str(photos[0]), "--center", str(second), "--no-leftover",
        "--caller", "Anna", "--card", "centre:more.png:2=Ben", "--card", "centre:centre.png:11=Ben", "--yes",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (saved,) = saved_rounds()
    assert counts(saved)["Ben"] == (5, 0)
    assert [p["unknown"] for p in saved["evidence"]["center"]] == [0, 1]


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        (["centre5=Ben"], "Bad --card 'centre5=Ben': write centre:N=PLAYER or leftover:N=PLAYER, e.g. --card centre:5=Anna."),
        (["centre:0=Ben"], "Bad --card 'centre:0=Ben': write centre:N=PLAYER or leftover:N=PLAYER, e.g. --card centre:5=Anna."),
        (["table:5=Ben"], "Bad --card 'table:5=Ben': write centre:N=PLAYER or leftover:N=PLAYER, e.g. --card centre:5=Anna."),
        (["centre:5=Zoe"], "Unknown player 'Zoe' in --card. The players are: Anna, Ben, Cleo."),
        (["centre:5=Ben", "center:5=Cleo"], "--card 'center:5=Cleo' names the same card as --card 'centre:5=Ben'."),
        (["centre:13=Ben"], "--card 'centre:13=Ben': the centre photo centre.png has 12 cards."),
        (["centre:other.png:1=Ben"], "--card 'centre:other.png:1=Ben': no such photo; the centre photos are: centre.png."),
    ],
)  # fmt: skip
def test_errors_change_nothing(photos, cardtally_home: Path, cards: list[str], message: str):
    before = Unchanged(cardtally_home)
    result = score(photos, *(arg for card in cards for arg in ("--card", card)), "--yes")
    assert result.exit_code == 1, result.output
    assert result.stderr.endswith(f"Error: {message}\n"), result.stderr
    assert result.stderr.count("Error: ") == 1
    before.check()


def test_set_errors_are_found_before_counting(photos, tmp_path: Path, monkeypatch,
                                              cardtally_home: Path):
    def no_counting(*args, **kwargs):
        raise AssertionError("counted")

    monkeypatch.setattr(count_module, "count_photo", no_counting)
    monkeypatch.setattr(count_module, "_count_loaded", no_counting)
    second = write_photo(tmp_path / "more.png", ["red"])
    for args, message in [
        (["--center", str(photos[0]), "--card", "leftover:1=Ben"],
         "--card 'leftover:1=Ben': there is no leftover photo."),
        (["--center", str(photos[0]), "--center", str(second), "--card", "centre:1=Ben"],
         "--card 'centre:1=Ben': there are 2 centre photos; name the photo, e.g. --card "
         "centre:centre.png:1=Ben."),
    ]:  # fmt: skip
        before = Unchanged(cardtally_home)
        result = run("score", *args, "--no-leftover", "--yes")
        assert result.exit_code == 1, result.output
        assert result.stderr == f"Error: {message}\n"
        before.check()


# -- round edit --card: after saving ------------------------------------------------------------


def test_saved_cards_are_recorded_by_number(photos):
    assert score(photos, "--card", "centre:1=Ben", "--yes").exit_code == 0
    (saved,) = saved_rounds()
    (centre,) = saved["evidence"]["center"]
    assert centre["card_decks"] == ["blue"] + ["red"] * 4 + ["blue"] * 3 + ["yellow"] * 2 + [
        None, None]  # fmt: skip
    (leftover,) = saved["evidence"]["leftover"]
    assert leftover["card_decks"] == ["blue"] * 2 + ["yellow"] * 4


def test_round_edit_moves_cards(photos):
    assert score(photos, "--fix", "Ben=centre:+1", "--yes").exit_code == 0
    result = run("round", "edit", "1", "--card", "centre:11=Cleo", "--card", "centre:2=ben",
                 "--card", "leftover:6=Anna")  # fmt: skip
    assert result.exit_code == 0, result.output
    (saved,) = saved_rounds()
    # Anna loses card 2 to Ben and gets a leftover card of Cleo's; Cleo gets the unknown card 11
    assert counts(saved) == {"Anna": (4, 1), "Ben": (5, 2), "Cleo": (3, 3)}
    evidence = saved["evidence"]
    assert evidence["card_fixes"] == ["centre:11=Cleo", "centre:2=ben", "leftover:6=Anna"]
    assert evidence["center"][0]["card_decks"][:2] == ["red", "blue"]
    assert evidence["center"][0]["card_decks"][10] == "yellow"
    assert evidence["counted_center"] == {"Anna": 5, "Ben": 3, "Cleo": 2}  # as scored

    # the same card again starts from where the last correction put it
    assert run("round", "edit", "1", "--card", "centre:2=Cleo").exit_code == 0
    assert counts(saved_rounds()[0])["Ben"] == (4, 2)
    assert counts(saved_rounds()[0])["Cleo"] == (4, 3)


def test_round_edit_card_then_counts(photos):
    assert score(photos, "--yes").exit_code == 0
    result = run("round", "edit", "1", "--card", "centre:11=Cleo", "--center", "Cleo=7")
    assert result.exit_code == 0, result.output
    assert counts(saved_rounds()[0])["Cleo"] == (7, 4)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--card", "centre:13=Ben"], "--card 'centre:13=Ben': the centre photo centre.png has 12 cards."),
        (["--card", "centre:x.png:1=Ben"], "--card 'centre:x.png:1=Ben': no such photo; the centre photos are: centre.png."),
        (["--card", "centre:1=Zoe"], "Unknown player 'Zoe' in --card. The players are: Anna, Ben, Cleo."),
    ],
)  # fmt: skip
def test_round_edit_card_errors(photos, cardtally_home: Path, args: list[str], message: str):
    assert score(photos, "--yes").exit_code == 0
    before = Unchanged(cardtally_home)
    result = run("round", "edit", "1", *args)
    assert result.exit_code == 1, result.output
    assert result.stderr == f"Error: {message}\n"
    before.check()


def test_round_edit_card_needs_a_record(photos, cardtally_home: Path):
    assert run("round", "add", "--center", "Anna=5", "--center", "Ben=3", "--center", "Cleo=2",
               "--leftover", "Anna=0", "--leftover", "Ben=2", "--leftover", "Cleo=4",
               "--caller", "Anna").exit_code == 0  # fmt: skip
    assert score(photos, "--yes").exit_code == 0
    assert run("round", "edit", "2", "--center", "Anna=0").exit_code == 0
    for number, message in [
        (1, "Round 1 keeps no record of its cards (it was typed in by hand, or scored before "
            "cardtally kept one); correct its counts with --center NAME=N or --leftover NAME=N."),
        (2, "--card centre:3=Ben would leave Anna with -1 cards; the round's counts were changed "
            "by hand since it was scored. Correct them with --center NAME=N or --leftover NAME=N."),
    ]:  # fmt: skip
        before = Unchanged(cardtally_home)
        result = run("round", "edit", str(number), "--card", "centre:3=Ben")
        assert result.exit_code == 1, result.output
        assert result.stderr == f"Error: {message}\n"
        before.check()


# -- at the prompt, before saving ------------------------------------------------------------------

PROMPT = ("Correct cards by number (centre:5=Cleo) or counts (Ben=centre:+1), n not to save, or "
          "press Enter to save:")


@pytest.fixture
def terminal(monkeypatch):
    monkeypatch.setattr(confirm_module, "stdin_is_terminal", lambda: True)


@pytest.mark.usefixtures("terminal")
def test_cards_to_check_can_be_corrected_at_the_prompt(photos, cardtally_home: Path):
    result = score(photos, input="centre:99=Cleo\ncentre:11=Cleo, center:1=Ben\ny\n")
    assert result.exit_code == 0, result.output
    assert result.stderr.count(PROMPT) == 2, result.stderr  # asked again after the bad answer
    assert ("--card 'centre:99=Cleo': the centre photo centre.png has 12 cards. Nothing "
            "changed; try again, or press Enter.\n") in result.stderr  # fmt: skip
    # the proposal is shown again, corrected, before the question
    assert result.stdout.count("not saved yet") == 2
    assert "Cleo    yellow       3     4" in result.stdout.split("not saved yet")[2]
    (saved,) = saved_rounds()
    assert counts(saved) == {"Anna": (4, 0), "Ben": (4, 2), "Cleo": (3, 4)}
    evidence = saved["evidence"]
    assert evidence["card_fixes"] == ["centre:11=Cleo", "center:1=Ben"]
    assert evidence["center"][0]["card_decks"][:1] == ["blue"]
    review = Path(evidence["center"][0]["review_image"])
    assert review.parent.parent.parent == cardtally_home / "reviews" and cv2.imread(str(review)) is not None


@pytest.mark.usefixtures("terminal")
def test_enter_keeps_the_count(photos):
    result = score(photos, "--card", "centre:1=Ben", input="\ny\n")
    assert result.exit_code == 0, result.output
    assert result.stderr.count(PROMPT) == 1
    (saved,) = saved_rounds()
    assert counts(saved)["Ben"] == (4, 2) and counts(saved)["Cleo"] == (2, 4)
    assert saved["evidence"]["card_fixes"] == ["centre:1=Ben"]


@pytest.mark.usefixtures("terminal")
def test_corrected_then_declined_saves_nothing(photos, cardtally_home: Path):
    before = Unchanged(cardtally_home)
    result = score(photos, input="centre:11=Cleo\nn\n")
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith(
        "Not saved (you declined). Correct with --card or --fix and run score again.\n")
    assert "Error" not in result.stderr
    before.check()


def test_no_prompt_with_yes_or_without_a_terminal(photos):
    result = score(photos, "--yes", input="centre:11=Cleo\n")
    assert result.exit_code == 0, result.output
    assert PROMPT not in result.stderr
    assert counts(saved_rounds()[0])["Cleo"] == (2, 4)


@pytest.mark.usefixtures("terminal")
def test_a_photo_changed_before_its_review_is_drawn_again(photos, monkeypatch,
                                                          cardtally_home: Path):
    real_ask = score_run_module.ask_corrections

    def ask_after_the_photo_changed(*args, **kwargs):
        write_photo(photos[0], ["red"] * 12)
        return real_ask(*args, **kwargs)

    monkeypatch.setattr(score_run_module, "ask_corrections", ask_after_the_photo_changed)
    before = Unchanged(cardtally_home)
    result = score(photos, input="centre:11=Cleo\ny\n")
    assert result.exit_code == 1, result.output
    assert result.stderr.endswith(
        f"Error: {photos[0]} changed while the round was being scored; run score again.\n")
    before.check()


@pytest.mark.usefixtures("terminal")
def test_counts_can_be_corrected_at_the_prompt_too(photos):
    # Anna has no leftover cards: -1 is refused; then a card and a count in one answer,
    # apart by a space only
    result = score(photos, input="Anna=pile:-1\ncentre:11=Cleo Ben=centre:+2\ny\n")
    assert result.exit_code == 0, result.output
    assert ("--fix 'Anna=pile:-1' would leave Anna with -1 cards; counts cannot be negative. "
            "Nothing changed; try again, or press Enter.\n") in result.stderr  # fmt: skip
    (saved,) = saved_rounds()
    assert counts(saved) == {"Anna": (5, 0), "Ben": (5, 2), "Cleo": (3, 4)}
    assert saved["evidence"]["fixes"] == ["Ben=centre:+2"]
    assert saved["evidence"]["card_fixes"] == ["centre:11=Cleo"]
    assert saved["evidence"]["counted_center"] == {"Anna": 5, "Ben": 3, "Cleo": 3}
