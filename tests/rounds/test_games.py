"""``rounds.games``: the ledger opened for each use, and a game as the JSON every front end
shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardtally.errors import CardtallyError
from cardtally.rounds.games import (
    game_json,
    open_for_changes,
    open_for_reading,
    open_for_writing,
    read_game,
)
from cardtally.scoring.entry import build_round
from cardtally.scoring.rules import get_rules
from cardtally.scoring.standings import Seat


def test_no_ledger_yet(cardtally_home: Path):
    assert open_for_reading() is None
    for call in (open_for_changes, lambda: read_game(None)):
        with pytest.raises(CardtallyError, match=r"^No game yet. Start one with: cardtally game new"):
            call()
    assert not (cardtally_home / "cardtally.db").exists()  # reading creates nothing


def test_a_game_as_json():
    with open_for_writing() as ledger:
        game_id = ledger.create_game(get_rules("ligretto"), [Seat("Anna", "a"), Seat("Ben", "b")])
        ledger.add_round(game_id, build_round(["Anna", "Ben"], center=["Anna=10", "Ben=4"],
                                              leftover=["Anna=0", "Ben=3"], caller="Anna"), [])
    game, current = read_game(None)
    data = game_json(game, current)
    assert (data["game"], data["current"], data["rules"]["name"]) == (game_id, True, "ligretto")
    assert data["rounds"][0]["scores"] == {"Anna": 10, "Ben": -2}
    assert data["rounds"][0]["evidence"] is None
    assert [(s["player"], s["total"], s["place"]) for s in data["standings"]] == [
        ("Anna", 10, 1), ("Ben", -2, 2)]
