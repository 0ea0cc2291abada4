"""``RoundEvidence``: written to the ledger's JSON and read back, old and damaged rows too."""

from __future__ import annotations

import json

from cardtally.rounds.evidence import (
    Correction,
    CountChange,
    PhotoEvidence,
    Recount,
    RoundEvidence,
)
from cardtally.rounds.hand_cards import HandCard
from cardtally.rounds.leftovers import TYPED, Leftovers

PHOTO = PhotoEvidence("/p/centre.png", "ab" * 32, "/r/centre-review.jpg", "/r/centre-cards.npz",
                      {"red": 2, "blue": 1}, unknown=1, face_up=0, cards=4,
                      card_decks=("red", None, "blue", "red"))
FULL = RoundEvidence(
    source="photos", center=(PHOTO,), leftover=(), fixes=("Ben=centre:+1",),
    card_fixes=("centre:2=Cleo",), counted_center={"Anna": 2, "Ben": 1, "Cleo": 1},
    counted_leftover={"Anna": 0, "Ben": 3, "Cleo": 0},
    leftovers=Leftovers(TYPED, {"Anna": 0, "Ben": 3, "Cleo": 0}),
    hand_cards=(HandCard("centre", "/p/centre.png", 2, "Cleo", ((1.0, 2.0),) * 4, None),),
    corrections=(Correction("2026-01-01T00:00:00+00:00", "score", "--card centre:2=Cleo",
                            (CountChange("Cleo", "centre", 0, 1),)),),
    typed_counts={"centre": {"Ben": 2}},
    recounts=(Recount("2026-01-02T00:00:00+00:00", {"Anna": 2}, {"Anna": 0}),),
)


def test_round_trip_through_the_ledgers_json():
    stored = json.loads(json.dumps(FULL.to_json()))
    assert RoundEvidence.from_json(stored) == FULL
    assert stored["center"][0]["card_decks"] == ["red", None, "blue", "red"]
    assert stored["leftover_source"] == "typed" and stored["hand_cards"][0]["set"] == "centre"


def test_a_round_never_corrected_has_no_evidence_and_a_hand_round_only_its_trail():
    assert RoundEvidence.from_json(None) is None
    hand = RoundEvidence("hand", corrections=FULL.corrections)
    assert hand.to_json() == {"source": "hand",
                              "corrections": [FULL.corrections[0].to_json()]}  # fmt: skip
    assert RoundEvidence.from_json(hand.to_json()) == hand


def test_an_older_round_lacks_the_trail_and_the_cards():
    old = {"source": "photos", "center": [{"path": "/p/c.jpg", "sha256": "cd"}], "leftover": [],
           "fixes": ["Ben=centre:+1"]}
    evidence = RoundEvidence.from_json(old)
    assert evidence is not None and evidence.complete
    assert evidence.corrections is None and evidence.recounts is None
    assert evidence.center[0].card_decks is None and evidence.center[0].cards is None
    assert evidence.leftovers == Leftovers("photos") and evidence.fixes == ("Ben=centre:+1",)


def test_a_damaged_row_is_read_as_far_as_it_goes():
    assert RoundEvidence.from_json(["not", "a", "dict"]).complete is False
    bad_photo = {"source": "photos", "center": [{"path": 3}], "leftover": []}
    assert RoundEvidence.from_json(bad_photo).complete is False
    assert RoundEvidence.from_json({"source": "photos", "center": "x"}).complete is False
    junk = {**FULL.to_json(), "hand_cards": [{"set": "centre"}, "x"], "corrections": [7],
            "typed_counts": {"centre": {"Ben": "many"}}, "counted_center": ["a"]}
    evidence = RoundEvidence.from_json(junk)
    assert evidence is not None and evidence.complete
    assert (evidence.hand_cards, evidence.corrections, evidence.typed_counts) == ((), (), {})
    assert evidence.counted_center is None
