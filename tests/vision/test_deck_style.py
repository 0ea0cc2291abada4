"""Deck colours and short labels for the review image."""

import pytest

from cardtally.vision.deck_style import (
    DECK_PALETTE_BGR,
    assign_deck_colours,
    deck_abbreviations,
    deck_colour,
)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["red-star", "blue-moon"], ["RS", "BM"]),
        (["red-star", "red-sun", "red-moon"], ["RST", "RSU", "RM"]),
        (["grey", "green", "purple"], ["GREY", "GREEN", "PUR"]),
        (["anna", "anna_"], ["ANNA1", "ANNA2"]),
    ],
)
def test_deck_abbreviations(names: list[str], expected: list[str]):
    assert list(deck_abbreviations(names).values()) == expected


def test_deck_colours_are_stable_distinct_and_follow_colour_words():
    assert deck_colour("anna") == deck_colour("anna")
    assert deck_colour("red-star") == DECK_PALETTE_BGR[0]
    twelve = [f"player-{k}" for k in range(12)]
    assert len(set(assign_deck_colours(twelve).values())) == 12
    both = assign_deck_colours(["red-star", "red-moon"])
    assert both["red-moon"] == DECK_PALETTE_BGR[0] and both["red-star"] != both["red-moon"]
