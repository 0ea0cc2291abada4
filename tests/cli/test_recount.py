"""``cardtally round recount N``: re-count a photo-scored round from its saved evidence.

"New models" are simulated by swapping the stand-in identify of photo_fakes.py for one that
takes yellow cards for red ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
from photo_fakes import (
    fake_identify,
    fake_vision,  # noqa: F401  (fixture)
    picture,
    round_photos,
    start_fake_game,
)
from typer.testing import CliRunner

from cardtally.cli import _confirm as confirm_module
from cardtally.cli import app
from cardtally.scoring.ledger import Ledger
from cardtally.scoring.rounds import PlayerCounts, RoundEntry
from cardtally.vision import count as count_module
from cardtally.vision.detections import UNKNOWN, CardIdentities

runner = CliRunner()
CENTRE_CARDS = ["red"] * 5 + ["blue"] * 3 + ["yellow"] * 2
LEFTOVER_CARDS = ["blue"] * 2 + ["yellow"] * 4


def run(*args: str, **kwargs):
    return runner.invoke(app, list(args), **kwargs)


def show() -> dict:
    result = run("game", "show", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def counts(round_json: dict) -> dict[str, tuple[int, int]]:
    return {p: (c["center"], c["leftover"]) for p, c in round_json["counts"].items()}


def yellow_looks_red(image_bgr, detections, decks) -> CardIdentities:
    ids = fake_identify(image_bgr, detections, decks)
    index = ids.deck_index.copy()
    index[index == decks.names.index("yellow")] = decks.names.index("red")
    return CardIdentities(index, ids.confidence, ids.deck_names)


@pytest.fixture(autouse=True)
def setup(fake_vision, cardtally_home: Path):  # noqa: F811
    start_fake_game()


@pytest.fixture
def photos(tmp_path: Path) -> tuple[Path, Path]:
    return round_photos(tmp_path, CENTRE_CARDS, LEFTOVER_CARDS)


@pytest.fixture
def scored(photos) -> dict:
    """Round 1 scored from the photos, with a --fix; returns its JSON."""
    result = run(
        "score", "--center", str(photos[0]), "--leftover", str(photos[1]), "--caller", "Anna",
        "--fix", "Ben=centre:+1", "--yes",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return show()["rounds"][0]


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


class Unchanged:
    """Snapshot of the ledger file, ``game show --json`` and the review files."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.data = (home / "cardtally.db").read_bytes()
        self.game = show()
        self.reviews = files_under(home / "reviews")

    def check(self) -> None:
        assert (self.home / "cardtally.db").read_bytes() == self.data
        assert show() == self.game
        assert files_under(self.home / "reviews") == self.reviews


def fails(home: Path, message: str, *args: str, **kwargs) -> None:
    before = Unchanged(home)
    result = run("round", "recount", *args, **kwargs)
    assert result.exit_code == 1, result.output
    assert result.stderr.endswith(f"Error: {message}\n"), result.stderr
    assert result.stderr.count("Error: ") == 1
    before.check()


def test_same_models_change_nothing(scored, cardtally_home: Path):
    before = Unchanged(cardtally_home)
    result = run("round", "recount", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "Re-count of round 1 of game 1 (saved -> re-counted):\n"
        "player  deck    centre  left  points\n"
        "Anna    red          5     0      +5\n"
        "Ben     blue         4     2      +0\n"
        "Cleo    yellow       2     4      -6\n"
        "The re-count matches round 1; nothing changed.\n"
        "Leader: Anna (5 points).\n"
    )
    before.check()


def test_recount_with_new_models(scored, monkeypatch, cardtally_home: Path):
    old_reviews = [p["review_image"] for p in scored["evidence"]["center"]]
    monkeypatch.setattr(count_module, "identify", yellow_looks_red)
    result = run("round", "recount", "1", "--yes")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "Re-count of round 1 of game 1 (saved -> re-counted):\n"
        "player  deck    centre    left    points\n"
        "Anna    red     5 -> 7  0 -> 4  +5 -> -1\n"
        "Ben     blue         4       2        +0\n"
        "Cleo    yellow  2 -> 0  4 -> 0  -6 -> +0\n"
        "Round 1 of game 1 re-counted and saved.\n"
        "Leaders (shared first place): Ben and Cleo (0 points).\n"
    )
    assert "Warning: Anna called out but has 4 cards left in the pile.\n" in result.stderr
    saved = show()["rounds"][0]
    assert counts(saved) == {"Anna": (7, 4), "Ben": (4, 2), "Cleo": (0, 0)}  # fix re-applied
    assert saved["caller"] == "Anna"
    assert "Anna called out but has 4 cards left in the pile." in saved["warnings"]
    evidence = saved["evidence"]
    assert evidence["counted_center"] == {"Anna": 7, "Ben": 3, "Cleo": 0}
    assert evidence["fixes"] == ["Ben=centre:+1"]
    assert [p["sha256"] for p in evidence["center"]] == [
        p["sha256"] for p in scored["evidence"]["center"]
    ]
    (recount,) = evidence["recounts"]
    assert recount["previous_center"] == {"Anna": 5, "Ben": 4, "Cleo": 2}
    assert recount["previous_leftover"] == {"Anna": 0, "Ben": 2, "Cleo": 4}
    new_review = evidence["center"][0]["review_image"]
    assert cv2.imread(new_review) is not None
    assert not any(Path(p).exists() for p in old_reviews)
    assert files_under(cardtally_home / "reviews") == sorted(
        Path(p[kept]) for p in evidence["center"] + evidence["leftover"]
        for kept in ("review_image", "cards_file")
    )


def yellow_is_unknown(image_bgr, detections, decks) -> CardIdentities:
    ids = fake_identify(image_bgr, detections, decks)
    index = ids.deck_index.copy()
    index[index == decks.names.index("yellow")] = UNKNOWN
    return CardIdentities(index, ids.confidence, ids.deck_names)


def test_a_changed_recount_names_the_cards_to_check(scored, monkeypatch):
    monkeypatch.setattr(count_module, "identify", yellow_is_unknown)
    result = run("round", "recount", "1", "--yes")
    assert result.exit_code == 0, result.output
    # Numbered as in the review images: rows of 8 cards, read left to right.
    assert "Check: centre centre.png: cards 9, 10 match no player's deck\n" in result.stderr
    assert "Check: leftover left.png: cards 3, 4, 5, 6 match no player's deck\n" in result.stderr
    assert "Warning: 2 centre card(s) match no player's deck and are not scored.\n" in result.stderr


def test_json(scored, monkeypatch):
    monkeypatch.setattr(count_module, "identify", yellow_looks_red)
    result = run("round", "recount", "1", "--yes", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["round"], data["changed"]) == (1, True)
    assert data["before"]["Cleo"] == {"center": 2, "leftover": 4}
    assert data["after"]["Cleo"] == {"center": 0, "leftover": 0}
    assert data["rounds"][0]["counts"] == data["after"]
    assert "Re-count of round 1" in result.stderr


def test_counts_typed_by_hand_are_kept(scored, monkeypatch):
    assert run("round", "edit", "1", "--center", "Cleo=3").exit_code == 0
    monkeypatch.setattr(count_module, "identify", yellow_looks_red)
    result = run("round", "recount", "1", "--yes")
    assert result.exit_code == 0, result.output
    assert "Kept the corrections: --center Cleo=3.\n" in result.stderr
    assert counts(show()["rounds"][0])["Cleo"] == (3, 0)  # typed: kept; the pile: re-counted


def test_prompt_on_a_terminal(scored, monkeypatch, cardtally_home: Path):
    monkeypatch.setattr(confirm_module, "stdin_is_terminal", lambda: True)
    monkeypatch.setattr(count_module, "identify", yellow_looks_red)
    before = Unchanged(cardtally_home)
    result = run("round", "recount", "1", input="n\n")
    assert result.exit_code == 0, result.output
    assert result.stderr.endswith("Not saved (you declined); round 1 is unchanged.\n")
    assert "Error" not in result.stderr
    before.check()
    result = run("round", "recount", "1", input="y\n")
    assert result.exit_code == 0, result.output
    assert "Replace the counts of round 1? [Y/n]:" in result.stderr
    assert counts(show()["rounds"][0])["Cleo"] == (0, 0)


def test_not_confirmed_without_a_terminal(scored, monkeypatch, cardtally_home: Path):
    monkeypatch.setattr(count_module, "identify", yellow_looks_red)
    fails(
        cardtally_home, "Not saved: confirm with --yes when cardtally is not run in a terminal.",
        "1",
    )  # fmt: skip


def test_typed_in_round(cardtally_home: Path):
    assert run("round", "add", "--center", "Anna=3", "--center", "Ben=2", "--center", "Cleo=1",
               "--leftover", "Anna=0", "--leftover", "Ben=1", "--leftover", "Cleo=1",
               "--caller", "Anna").exit_code == 0  # fmt: skip
    fails(
        cardtally_home, "Round 1 was typed in by hand; there are no photos to re-count.", "1",
        "--yes",
    )  # fmt: skip


def test_missing_and_changed_photos(scored, photos, cardtally_home: Path):
    centre, leftover = photos
    leftover.rename(leftover.with_suffix(".bak"))
    fails(
        cardtally_home, f"Cannot re-count round 1: its photo {leftover.resolve()} is missing.",
        "1", "--yes",
    )  # fmt: skip
    leftover.with_suffix(".bak").rename(leftover)
    cv2.imwrite(str(centre), picture(CENTRE_CARDS + ["red"]))
    fails(
        cardtally_home,
        f"Cannot re-count round 1: its photo {centre.resolve()} has changed since the round was "
        "scored (its SHA-256 differs).",
        "1",
        "--yes",
    )


def test_photo_replaced_while_counting(scored, photos, monkeypatch, cardtally_home: Path):
    leftover = photos[1].resolve()

    def identify_and_replace(image_bgr, detections, decks):
        cv2.imwrite(str(leftover), picture(["red"]))  # read after the centre photo
        return fake_identify(image_bgr, detections, decks)

    before = Unchanged(cardtally_home)
    monkeypatch.setattr(count_module, "identify", identify_and_replace)
    result = run("round", "recount", "1", "--yes")
    assert result.exit_code == 1
    assert result.stderr.endswith(
        f"Error: Cannot re-count round 1: its photo {leftover} changed while it was being "
        "counted.\n"
    )
    before.check()


def test_round_changed_while_counting(scored, monkeypatch, cardtally_home: Path):
    def identify_and_edit(image_bgr, detections, decks):
        assert run("round", "edit", "1", "--center", "Anna=9").exit_code == 0
        return yellow_looks_red(image_bgr, detections, decks)

    monkeypatch.setattr(count_module, "identify", identify_and_edit)
    result = run("round", "recount", "1", "--yes")
    assert result.exit_code == 1
    assert result.stderr.endswith(
        "Error: Not saved: round 1 of game 1 changed while its photos were being counted; run "
        "recount again.\n"
    )
    assert counts(show()["rounds"][0])["Anna"] == (9, 0)


def test_other_errors(scored, cardtally_home: Path):
    fails(cardtally_home, "Game 1 has no round 2 (it has round 1).", "2", "--yes")
    fails(cardtally_home, "No game 4 in the ledger; see: cardtally game list", "1", "--game", "4")
    assert run("decks", "remove", "yellow", "--force").exit_code == 0
    fails(
        cardtally_home,
        "Cleo's deck 'yellow' is not calibrated. Calibrate each deck first: "
        "cardtally calibrate DECK PHOTO...",
        "1",
        "--yes",
    )
    assert run("round", "recount", "one").exit_code == 2


def test_no_ledger(tmp_path: Path, cardtally_home: Path):
    (cardtally_home / "cardtally.db").unlink()
    result = run("round", "recount", "1", "--yes")
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: No game yet. Start one with: cardtally game new --player NAME=DECK --player "
        "NAME=DECK\n",
    )
    assert not (cardtally_home / "cardtally.db").exists()


def test_snapped_photos_survive_a_recount(tmp_path: Path, monkeypatch, cardtally_home: Path):
    video = tmp_path / "camera.avi"
    image = picture(CENTRE_CARDS)
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (480, 360))
    for _ in range(3):
        writer.write(image)
    writer.release()
    result = run("score", "--snap", "--camera", str(video), "--yes")
    assert result.exit_code == 0, result.output
    evidence = show()["rounds"][0]["evidence"]
    photos = [Path(p["path"]) for p in evidence["center"] + evidence["leftover"]]
    monkeypatch.setattr(count_module, "identify", yellow_looks_red)
    result = run("round", "recount", "1", "--yes")
    assert result.exit_code == 0, result.output
    assert all(p.is_file() for p in photos)
    assert counts(show()["rounds"][0])["Anna"] == (7, 7)


def test_ledger_replaces_counts_and_evidence_together(cardtally_home: Path):
    ledger = Ledger.open(cardtally_home / "cardtally.db", create=False)
    assert ledger is not None
    with ledger:
        entry = RoundEntry(tuple(PlayerCounts(p, 1, 0) for p in ("Anna", "Ben", "Cleo")), "Anna")
        ledger.add_round(1, entry, [], evidence={"source": "photos", "n": 1})
        bigger = RoundEntry(tuple(PlayerCounts(p, 2, 0) for p in ("Anna", "Ben", "Cleo")), "Anna")
        ledger.replace_round(1, 1, bigger, ["w"], evidence={"source": "photos", "n": 2})
        stored = ledger.game(1).round(1)
        assert (stored.entry, stored.warnings, stored.evidence) == (
            bigger, ("w",), {"source": "photos", "n": 2},
        )  # fmt: skip
        ledger.replace_round(1, 1, entry, [])  # no evidence given: it stays
        assert ledger.game(1).round(1).evidence == {"source": "photos", "n": 2}
        # A failure inside the transaction keeps both the counts and the evidence.
        wrong = RoundEntry(tuple(PlayerCounts(p, 3, 0) for p in ("Anna", "Ben")))
        with pytest.raises(ValueError):
            ledger.replace_round(1, 1, wrong, [], evidence={"n": 3})
        stored = ledger.game(1).round(1)
        assert (stored.entry, stored.evidence) == (entry, {"source": "photos", "n": 2})
