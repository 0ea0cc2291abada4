"""``cardtally decks [--json]`` and ``cardtally decks remove DECK`` with their exact messages."""

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from cardtally.cli import app
from cardtally.vision.decks import DeckProfile, write_profile
from cardtally.vision.embed import embedder_version

runner = CliRunner()


def add_deck(name: str, version: str | None = None) -> Path:
    protos = np.eye(2, 128, dtype=np.float32)
    return write_profile(DeckProfile(name=name, prototypes=protos, threshold=0.5,
                                     embedder_version=version or embedder_version(), n_cards=9,
                                     created="2026-01-02T03:04:05+00:00"))


def test_no_decks():
    result = runner.invoke(app, ["decks", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"decks": []}
    result = runner.invoke(app, ["decks"])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == "No decks calibrated yet; run 'cardtally calibrate DECK PHOTO...'.\n"


def test_list_and_remove():
    add_deck("red-star")
    add_deck("anna", version="sha256:old")
    listed = json.loads(runner.invoke(app, ["decks", "--json"]).stdout)["decks"]
    assert [(d["name"], d["cards"], d["prototypes"], d["compatible"]) for d in listed] == [
        ("anna", 9, 2, False), ("red-star", 9, 2, True)]
    table = runner.invoke(app, ["decks"]).stdout.splitlines()
    assert table == [
        "DECK      CARDS  CALIBRATED                 STATUS",
        "anna          9  2026-01-02T03:04:05+00:00  recalibrate (made by another embedder)",
        "red-star      9  2026-01-02T03:04:05+00:00  ok",
    ]
    result = runner.invoke(app, ["decks", "remove", "anna"])
    assert (result.exit_code, result.stderr) == (0, "Removed deck 'anna'.\n")
    result = runner.invoke(app, ["decks", "remove", "anna"])
    assert (result.exit_code, result.stderr) == (1, "Error: No such deck: anna\n")


def test_remove_json(cardtally_home: Path):
    add_deck("red-star")
    result = runner.invoke(app, ["decks", "remove", "red-star", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "removed": "red-star", "profile": str(cardtally_home / "decks" / "red-star.json")}
    assert result.stderr == "Removed deck 'red-star'.\n"
    assert json.loads(runner.invoke(app, ["decks", "--json"]).stdout) == {"decks": []}


def test_corrupt_profile(cardtally_home: Path):
    path = add_deck("blue")
    path.write_text('{"format_version": 1, "name": "blue"')
    result = runner.invoke(app, ["decks"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: The deck profile {path} is corrupt (not valid JSON); remove it with "
        "'cardtally decks remove blue' and calibrate the deck again.\n"
    )
    assert runner.invoke(app, ["decks", "remove", "blue"]).exit_code == 0
