"""``cardtally score``: a saved round and its evidence; every failure exact and harmless.

Every failing case asserts the exact message and exit code, that the ledger file and
``game show --json`` are unchanged, and that no review folder is left behind. The vision stage
is the stand-in of photo_fakes.py; the shipped models are exercised in test_score_e2e.py.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from photo_fakes import (
    BAD_PHOTO_IDS,
    BAD_PHOTOS,
    IMAGE_WH,
    calibrate,
    fake_identify,
    fake_vision,  # noqa: F401  (fixture)
    odd_format_writers,
    picture,
    write_photo,
)
from typer.testing import CliRunner

from cardtally.cli import _confirm as confirm_module
from cardtally.cli import app
from cardtally.rounds.doubts import cards_to_check
from cardtally.scoring.ledger import Ledger
from cardtally.scoring.rounds import PlayerCounts, RoundEntry
from cardtally.vision import count as count_module
from cardtally.vision.count import CountResult, PhotoCount
from cardtally.vision.detect_classical import detect_cards_classical
from cardtally.vision.detections import UNKNOWN, CardIdentities

runner = CliRunner()
CENTRE_CARDS = ["red"] * 5 + ["blue"] * 3 + ["yellow"] * 2
LEFTOVER_CARDS = ["blue"] * 2 + ["yellow"] * 4
SCORES = {"Anna": 5, "Ben": -1, "Cleo": -6}  # caller Anna: 5-0, 3-2*2, 2-4*2


def run(*args: str, **kwargs):
    return runner.invoke(app, list(args), **kwargs)


def show() -> dict:
    result = run("game", "show", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(autouse=True)
def setup(fake_vision, cardtally_home: Path):  # noqa: F811
    calibrate("red", "blue", "yellow")


@pytest.fixture
def game(cardtally_home: Path) -> None:
    result = run("game", "new", "-p", "Anna=red", "-p", "Ben=blue", "-p", "Cleo=yellow")
    assert result.exit_code == 0, result.output


@pytest.fixture
def photos(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_photo(tmp_path / "centre.png", CENTRE_CARDS),
        write_photo(tmp_path / "left.png", LEFTOVER_CARDS),
    )


class Unchanged:
    """Snapshot of the ledger (bytes and ``game show --json``) to compare after a failure."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.ledger = home / "cardtally.db"
        self.data = self.ledger.read_bytes() if self.ledger.exists() else None
        self.game = self.shown()

    @staticmethod
    def shown() -> tuple[int, str]:
        result = run("game", "show", "--json")
        return result.exit_code, result.output

    def check(self) -> None:
        now = self.ledger.read_bytes() if self.ledger.exists() else None
        assert now == self.data, "the ledger file changed"
        assert self.shown() == self.game
        reviews = self.home / "reviews"
        left = [p for p in reviews.rglob("*") if p.is_file()] if reviews.exists() else []
        assert left == [], "a review folder was left behind"


def fails(home: Path, message: str, *args: str, **kwargs) -> None:
    """``score ARGS`` fails with exactly ``Error: message`` and changes nothing."""
    before = Unchanged(home)
    result = run("score", *args, **kwargs)
    assert result.exit_code == 1, result.output
    # (after the progress lines; a typed answer has no newline on stderr under CliRunner)
    assert result.stderr.endswith(f"Error: {message}\n"), result.stderr
    assert result.stderr.count("Error: ") == 1
    if "input" not in kwargs:  # CliRunner echoes typed input on stdout
        assert result.stdout == ""
    before.check()


def score_args(photos: tuple[Path, Path], *more: str) -> list[str]:
    return ["--center", str(photos[0]), "--leftover", str(photos[1]), "--caller", "Anna", *more]


# -- success -------------------------------------------------------------------------------------


@pytest.mark.usefixtures("game")
def test_scores_a_round_with_evidence(photos, cardtally_home: Path):
    result = run("score", *score_args(photos), "--yes")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "Round 1 of game 1 (ligretto), saved:\n"
        "player  deck    centre  left  points  total\n"
        "Anna    red          5     0      +5      5\n"
        "Ben     blue         3     2      -1     -1\n"
        "Cleo    yellow       2     4      -6     -6\n"
        "Called out: Anna.\n"
        "Round 1 of game 1 saved.\n"
        "Leader: Anna (5 points).\n"
    )
    review_dir = next((cardtally_home / "reviews" / "game-1").iterdir())
    assert result.stderr == (
        "centre: centre.png: 10 cards\n"
        "leftover: left.png: 6 cards\n"
        f"Review images: {review_dir}\n"
    )
    saved = show()["rounds"][0]
    assert saved["scores"] == SCORES and saved["caller"] == "Anna"
    evidence = saved["evidence"]
    assert evidence["source"] == "photos" and evidence["fixes"] == []
    assert evidence["counted_center"] == {"Anna": 5, "Ben": 3, "Cleo": 2}
    assert evidence["counted_leftover"] == {"Anna": 0, "Ben": 2, "Cleo": 4}
    (centre,) = evidence["center"]
    assert centre["path"] == str(photos[0].resolve())
    assert centre["sha256"] == hashlib.sha256(photos[0].read_bytes()).hexdigest()
    assert (centre["cards"], centre["unknown"], centre["face_up"]) == (10, 0, 0)
    assert centre["counts"] == {"red": 5, "blue": 3, "yellow": 2}
    assert Path(centre["review_image"]).parent == review_dir
    assert cv2.imread(centre["review_image"]) is not None


@pytest.mark.usefixtures("game")
def test_json_output_and_fixes(photos):
    result = run(
        "score", *score_args(photos), "--fix", "ben=centre:+1", "--fix", "Cleo=pile:-1", "-y",
        "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["round"] == 1
    saved = data["rounds"][0]
    assert saved["counts"]["Ben"] == {"center": 4, "leftover": 2}
    assert saved["counts"]["Cleo"] == {"center": 2, "leftover": 3}
    assert saved["evidence"]["fixes"] == ["ben=centre:+1", "Cleo=pile:-1"]
    assert saved["evidence"]["counted_center"]["Ben"] == 3  # as counted, before the fix
    # the round's table goes to stderr with --json; with --yes it is shown once saved
    assert "Round 1 of game 1 (ligretto), saved:\n" in result.stderr
    assert "not saved" not in result.stderr


@pytest.mark.usefixtures("game")
def test_prompt_on_a_terminal(photos, monkeypatch, cardtally_home: Path):
    monkeypatch.setattr(confirm_module, "stdin_is_terminal", lambda: True)
    before = Unchanged(cardtally_home)
    result = run("score", *score_args(photos), input="n\n")
    # Saying no is no error: a plain message, exit 0, nothing saved.
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith(
        "Not saved (you declined). Correct with --card or --fix and run score again.\n")
    assert "Error" not in result.stderr
    assert "Round 1 of game 1 (ligretto), not saved yet:\n" in result.stdout
    before.check()
    result = run("score", *score_args(photos), input="y\n")
    assert result.exit_code == 0, result.output
    assert "Save this round? [Y/n]:" in result.stderr
    assert show()["rounds"][0]["scores"] == SCORES


@pytest.mark.usefixtures("game")
@pytest.mark.parametrize("name", ["deep.png", "alpha.png", "phone.jpg"])
def test_odd_formats_score_right(tmp_path: Path, photos, name: str):
    centre = tmp_path / name
    odd_format_writers(CENTRE_CARDS)[name](centre)
    result = run("score", *score_args((centre, photos[1])), "--yes")
    assert result.exit_code == 0, result.output
    assert show()["rounds"][0]["scores"] == SCORES


@pytest.mark.usefixtures("game")
def test_no_cards_is_warned_and_saved_as_zero(tmp_path: Path, photos):
    empty = write_photo(tmp_path / "empty.png", [])
    result = run("score", "--center", str(empty), "--leftover", str(photos[1]), "--yes")
    assert result.exit_code == 0, result.output
    assert "Warning: No cards found in the centre photo empty.png.\n" in result.stderr
    assert show()["rounds"][0]["counts"]["Anna"] == {"center": 0, "leftover": 0}


@pytest.mark.usefixtures("game")
def test_face_up_and_unknown_cards_are_warned_not_scored(tmp_path: Path, photos):
    centre = write_photo(tmp_path / "c.png", CENTRE_CARDS + ["purple"] * 2 + ["face-up"] * 3)
    result = run("score", *score_args((centre, photos[1])), "--yes")
    assert result.exit_code == 0, result.output
    assert "Warning: 2 centre card(s) match no player's deck and are not scored.\n" in (
        result.stderr
    )
    assert "Warning: 3 centre card(s) lie face up and are not scored.\n" in result.stderr
    # Numbered as in the review image: rows of 8 cards, read left to right.
    assert "Check: centre c.png: cards 11, 12 match no player's deck\n" in result.stderr
    assert "Round 1 is saved with the warning(s) above" in result.stderr
    saved = show()["rounds"][0]
    assert saved["scores"] == SCORES
    assert saved["warnings"] == [
        "2 centre card(s) match no player's deck and are not scored.",
        "3 centre card(s) lie face up and are not scored.",
    ]


@pytest.mark.usefixtures("game")
def test_face_up_only(tmp_path: Path, photos):
    centre = write_photo(tmp_path / "fronts.png", ["face-up"] * 4)
    result = run("score", *score_args((centre, photos[1])), "--yes")
    assert result.exit_code == 0, result.output
    assert "Warning: 4 centre card(s) lie face up and are not scored.\n" in result.stderr
    assert show()["rounds"][0]["scores"] == {"Anna": 0, "Ben": -4, "Cleo": -8}


# -- failures: nothing saved, nothing left behind ------------------------------------------------


@pytest.mark.usefixtures("game")
@pytest.mark.parametrize("where", ["--center", "--leftover"])
@pytest.mark.parametrize(("name", "make", "message"), BAD_PHOTOS, ids=BAD_PHOTO_IDS)
def test_bad_photos(tmp_path, photos, cardtally_home, where, name, make, message):
    path = tmp_path / name
    make(path)
    centre, leftover = (path, photos[1]) if where == "--center" else (photos[0], path)
    fails(cardtally_home, message.format(path=path), *score_args((centre, leftover)), "--yes")


@pytest.mark.usefixtures("game")
def test_not_confirmed_without_a_terminal(photos, cardtally_home: Path):
    fails(
        cardtally_home,
        "Not saved: confirm with --yes when cardtally is not run in a terminal.",
        *score_args(photos),
    )


def test_no_game_creates_no_ledger(photos, cardtally_home: Path):
    fails(
        cardtally_home,
        "No game yet. Start one with: cardtally game new --player NAME=DECK --player NAME=DECK",
        *score_args(photos),
        "--yes",
    )
    assert not (cardtally_home / "cardtally.db").exists()


def test_ledger_without_games(photos, cardtally_home: Path):
    cardtally_home.mkdir(exist_ok=True)
    Ledger.open(cardtally_home / "cardtally.db", create=True).close()
    fails(
        cardtally_home,
        "No game yet. Start one with: cardtally game new --player NAME=DECK --player NAME=DECK",
        *score_args(photos),
        "--yes",
    )


@pytest.mark.usefixtures("game")
def test_no_such_game(photos, cardtally_home: Path):
    fails(
        cardtally_home,
        "No game 7 in the ledger; see: cardtally game list",
        *score_args(photos),
        "--game",
        "7",
        "--yes",
    )


@pytest.mark.usefixtures("game")
def test_decks_not_calibrated(photos, cardtally_home: Path):
    assert run("decks", "remove", "blue", "--force").exit_code == 0
    fails(
        cardtally_home,
        "Ben's deck 'blue' is not calibrated. Calibrate each deck first: "
        "cardtally calibrate DECK PHOTO...",
        *score_args(photos),
        "--yes",
    )
    for deck in ("red", "yellow"):
        assert run("decks", "remove", deck, "--force").exit_code == 0
    fails(
        cardtally_home,
        "Anna's deck 'red', Ben's deck 'blue', Cleo's deck 'yellow' are not calibrated. "
        "Calibrate each deck first: cardtally calibrate DECK PHOTO...",
        *score_args(photos),
        "--yes",
    )


@pytest.mark.usefixtures("game")
def test_deck_made_by_another_embedder(photos, cardtally_home: Path):
    profile = cardtally_home / "decks" / "blue.json"
    data = json.loads(profile.read_text())
    data["embedder_version"] = "sha256:old"
    profile.write_text(json.dumps(data))
    result = run("score", *score_args(photos), "--yes")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: The deck profile {profile} was made with embedder")


@pytest.mark.usefixtures("game")
@pytest.mark.parametrize(
    ("fix", "message"),
    [
        ("Anna+1", "Bad --fix 'Anna+1': write NAME=centre:+N or NAME=pile:-N, e.g. --fix Anna=centre:+1."),
        ("Anna=centre:1", "Bad --fix 'Anna=centre:1': write NAME=centre:+N or NAME=pile:-N, e.g. --fix Anna=centre:+1."),
        ("Zoe=centre:+1", "Unknown player 'Zoe' in --fix. The players are: Anna, Ben, Cleo."),
        ("Ben=pile:-3", "--fix 'Ben=pile:-3' would leave Ben with -1 cards; counts cannot be negative."),
    ],
)  # fmt: skip
def test_fix_errors(photos, cardtally_home: Path, fix: str, message: str):
    fails(cardtally_home, message, *score_args(photos), "--fix", fix, "--yes")


@pytest.mark.usefixtures("game")
def test_fix_syntax_is_checked_before_counting(photos, monkeypatch, cardtally_home: Path):
    def no_counting(*args, **kwargs):
        raise AssertionError("counted")

    monkeypatch.setattr(count_module, "count_photo", no_counting)
    fails(
        cardtally_home,
        "Unknown player 'Zoe' in --fix. The players are: Anna, Ben, Cleo.",
        *score_args(photos),
        "--fix",
        "Zoe=centre:+1",
        "--yes",
    )


@pytest.mark.usefixtures("game")
def test_other_input_errors(photos, cardtally_home: Path):
    fails(
        cardtally_home,
        "Unknown player 'Zoe' in --caller. The players are: Anna, Ben, Cleo.",
        "--center", str(photos[0]), "--no-leftover", "--caller", "Zoe", "--yes",
    )  # fmt: skip
    fails(
        cardtally_home,
        "Give the photo(s) of the centre cards with --center PHOTO (or use --snap).",
        "--leftover", str(photos[1]), "--yes",
    )  # fmt: skip
    fails(
        cardtally_home,
        "Give either --snap or --center/--leftover photos, not both.",
        "--snap", "--center", str(photos[0]), "--yes",
    )  # fmt: skip
    fails(
        cardtally_home,
        f"{photos[0]} is given twice; each photo may be counted only once.",
        "--center", str(photos[0]), "--leftover", str(photos[0]), "--yes",
    )  # fmt: skip


def test_usage_errors_exit_2(photos):
    assert run("score", "--center").exit_code == 2
    assert run("score", "--center", str(photos[0]), "--game", "one").exit_code == 2


@pytest.mark.usefixtures("game")
def test_finished_game(photos, cardtally_home: Path):
    assert run("round", "add", "--center", "Anna=99", "--center", "Ben=0", "--center", "Cleo=0",
               "--leftover", "Anna=0", "--leftover", "Ben=1", "--leftover", "Cleo=1",
               "--caller", "Anna").exit_code == 0  # fmt: skip
    fails(
        cardtally_home,
        "Game 1 is finished: Anna won (99 points). Add the round anyway with --force.",
        *score_args(photos),
        "--yes",
    )
    result = run("score", *score_args(photos), "--yes", "--force")
    assert result.exit_code == 0, result.output


@pytest.mark.usefixtures("game")
def test_game_changed_while_counting(photos, monkeypatch, cardtally_home: Path):
    """Another cardtally adds a round meanwhile: this one is not saved over it."""

    def identify_and_interfere(image_bgr, detections, decks):
        ledger = Ledger.open(cardtally_home / "cardtally.db", create=False)
        assert ledger is not None
        with ledger:
            if not ledger.game().rounds:
                counts = tuple(PlayerCounts(p, 1, 1) for p in ("Anna", "Ben", "Cleo"))
                ledger.add_round(1, RoundEntry(counts), [])
        return fake_identify(image_bgr, detections, decks)

    monkeypatch.setattr(count_module, "identify", identify_and_interfere)
    result = run("score", *score_args(photos), "--yes")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        "Error: Not saved: game 1 changed while the photos were being counted (it now has 1 "
        "rounds). Check it with 'cardtally game show' and run score again."
    )
    rounds = show()["rounds"]
    assert len(rounds) == 1 and rounds[0]["evidence"] is None
    assert not any(p.is_file() for p in (cardtally_home / "reviews").rglob("*"))


@pytest.mark.usefixtures("game")
def test_interrupted_count_leaves_nothing(photos, monkeypatch, cardtally_home: Path):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    before = Unchanged(cardtally_home)
    monkeypatch.setattr(count_module, "identify", interrupted)
    result = run("score", *score_args(photos), "--yes")
    assert result.exit_code == 130  # Ctrl-C
    before.check()


# -- --snap ----------------------------------------------------------------------------------------


def write_video(path: Path, image) -> Path:
    height, width = image.shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (width, height))
    for _ in range(3):
        writer.write(image)
    writer.release()
    return path


@pytest.mark.usefixtures("game")
def test_snap_takes_centre_then_leftover(tmp_path: Path, cardtally_home: Path):
    video = write_video(tmp_path / "camera.avi", picture(CENTRE_CARDS))
    result = run("score", "--snap", "--camera", str(video), "--caller", "Anna", "--yes")
    assert result.exit_code == 0, result.output
    review_dir = next((cardtally_home / "reviews" / "game-1").iterdir())
    lines = result.stderr.splitlines()
    assert lines[:4] == [
        "Photograph the centre cards (spread backs up in rows), then press Enter.",
        f"Saved the centre photo: {review_dir / 'centre.jpg'}",
        "Photograph the leftover Ligretto piles (spread backs up), then press Enter.",
        f"Saved the leftover photo: {review_dir / 'leftover.jpg'}",
    ]
    evidence = show()["rounds"][0]["evidence"]
    assert [p["path"] for p in evidence["center"] + evidence["leftover"]] == [
        str(review_dir / "centre.jpg"),
        str(review_dir / "leftover.jpg"),
    ]
    # The stand-in camera shows the same cards twice.
    assert evidence["counted_center"] == evidence["counted_leftover"] == {
        "Anna": 5, "Ben": 3, "Cleo": 2,
    }  # fmt: skip


@pytest.mark.usefixtures("game")
def test_snap_keeps_the_photos_when_not_saved(tmp_path: Path, cardtally_home: Path):
    video = write_video(tmp_path / "camera.avi", picture(CENTRE_CARDS))
    before = cardtally_home.joinpath("cardtally.db").read_bytes()
    result = run("score", "--snap", "--camera", str(video), "--fix", "Ben=centre:-9", "--yes")
    assert result.exit_code == 1
    review_dir = next((cardtally_home / "reviews" / "game-1").iterdir())
    photos = [review_dir / "centre.jpg", review_dir / "leftover.jpg"]
    assert sorted(review_dir.iterdir()) == photos  # the review images are gone
    assert result.stderr.splitlines()[-2:] == [
        f"The photos taken are kept: {photos[0]}, {photos[1]}",
        "Error: --fix 'Ben=centre:-9' would leave Ben with -6 cards; counts cannot be negative.",
    ]
    assert cardtally_home.joinpath("cardtally.db").read_bytes() == before


@pytest.mark.usefixtures("game")
def test_snap_camera_error(tmp_path: Path, cardtally_home: Path):
    before = Unchanged(cardtally_home)
    result = run("score", "--snap", "--camera", str(tmp_path / "nope.avi"), "--yes")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ")
    before.check()


def test_cards_to_check_are_named_by_their_review_numbers(tmp_path: Path):
    image = picture(["red", "blue", "purple", "red"])
    detections = detect_cards_classical(image)
    slot = np.round((detections.centre_xy[:, 0] - 40) / 56).astype(int)
    deck_index = np.array([0, 1, UNKNOWN, 0])[slot]
    confidence = np.array([0.95, 0.4, 0.95, 0.95], np.float32)[slot]
    photo = PhotoCount(tmp_path / "c.png", IMAGE_WH, detections,
                       CardIdentities(deck_index, confidence, ("red", "blue")))
    result = CountResult((photo,), ("red", "blue"))
    assert cards_to_check(result, "centre") == [
        "centre c.png: card 2 looks like blue (40% sure)",
        "centre c.png: card 3 matches no player's deck",
    ]


def test_a_card_two_sibling_decks_tie_on_is_named_with_both(tmp_path: Path):
    image = picture(["red", "blue", "purple", "red"])
    detections = detect_cards_classical(image)
    slot = np.round((detections.centre_xy[:, 0] - 40) / 56).astype(int)
    deck_index = np.array([0, UNKNOWN, UNKNOWN, 0])[slot]
    tied_decks = np.array([[-1, -1], [1, 0], [-1, -1], [-1, -1]])[slot]
    photo = PhotoCount(tmp_path / "c.png", IMAGE_WH, detections,
                       CardIdentities(deck_index, np.full((4,), 0.95, np.float32), ("red", "blue"),
                                      tied_decks))
    result = CountResult((photo,), ("red", "blue"))
    assert cards_to_check(result, "centre") == [
        "centre c.png: card 2 could be blue or red (the detail that tells them apart does not show)",
        "centre c.png: card 3 matches no player's deck",
    ]


@pytest.mark.usefixtures("game")
def test_undo_removes_the_rounds_review_folder(photos, cardtally_home: Path):
    assert run("score", *score_args(photos), "--yes").exit_code == 0
    assert run("score", *score_args(photos), "--yes").exit_code == 0
    first, second = sorted((cardtally_home / "reviews" / "game-1").iterdir())
    assert any(second.iterdir())
    result = run("round", "undo")
    assert result.exit_code == 0, result.output
    assert sorted((cardtally_home / "reviews" / "game-1").iterdir()) == [first]
    assert run("round", "undo").exit_code == 0
    assert not any((cardtally_home / "reviews" / "game-1").iterdir())
    assert all(p.is_file() for p in photos)  # the user's photos stay


@pytest.mark.usefixtures("game")
def test_undo_keeps_the_photos_taken_with_snap(tmp_path: Path, cardtally_home: Path):
    video = write_video(tmp_path / "camera.avi", picture(CENTRE_CARDS))
    result = run("score", "--snap", "--camera", str(video), "--caller", "Anna", "--yes")
    assert result.exit_code == 0, result.output
    review_dir = next((cardtally_home / "reviews" / "game-1").iterdir())
    result = run("round", "undo")
    assert result.exit_code == 0, result.output
    photos = [review_dir / "centre.jpg", review_dir / "leftover.jpg"]
    assert sorted(review_dir.iterdir()) == photos  # the review images and cards are gone
    assert result.stderr == f"The photos taken are kept: {photos[0]}, {photos[1]}\n"
