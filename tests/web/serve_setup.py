"""The sample game the page tests play: the bundled sample photos and decks."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.rounds.games import read_game

runner = CliRunner()
SAMPLES = resources.files("cardtally.samples")
TRUTH = json.loads(SAMPLES.joinpath("truth.json").read_text())


def sample_bytes(name: str) -> bytes:
    """A photo of the sample round (centre.jpg, leftover.jpg)."""
    return SAMPLES.joinpath("round1", name).read_bytes()


def calibrate_samples(home: Path) -> Path:
    """The three sample decks calibrated with ``cardtally calibrate`` in ``home``; their folder."""
    for deck in TRUTH["players"].values():
        photo = home / f"{deck}.jpg"
        photo.write_bytes(SAMPLES.joinpath("calibration", f"{deck}.jpg").read_bytes())
        result = runner.invoke(app, ["calibrate", deck, str(photo)],
                               env={"CARDTALLY_HOME": str(home)})
        assert result.exit_code == 0, result.output
    return home / "decks"


def new_game(home: Path, decks: Path) -> None:
    """The sample game (Anna, Ben, Cleo with their decks) in the data home ``home``."""
    shutil.copytree(decks, home / "decks")
    players = [f"--player={p}={d}" for p, d in TRUTH["players"].items()]
    result = runner.invoke(app, ["game", "new", *players], env={"CARDTALLY_HOME": str(home)})
    assert result.exit_code == 0, result.output


def comparable(stored: dict) -> dict:
    """A saved round without the paths of its photos, review images and cards files and the
    times of its corrections (they differ between the two runs); counts, scores, warnings, SHA-256s, every card's deck and the
    corrections stay."""
    evidence = dict(stored["evidence"])
    for key in ("center", "leftover"):
        evidence[key] = [{k: v for k, v in photo.items()
                          if k not in ("path", "review_image", "cards_file")}
                         for photo in evidence[key]]
    evidence["hand_cards"] = [{k: v for k, v in card.items() if k != "photo"}
                              for card in evidence["hand_cards"]]
    evidence["corrections"] = [{k: v for k, v in c.items() if k != "at"}
                               for c in evidence["corrections"]]
    return {**stored, "evidence": evidence}


def read_game_in(home: Path):
    """The current game of the data home ``home`` (and the current game's ID)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CARDTALLY_HOME", str(home))
        return read_game(None)
