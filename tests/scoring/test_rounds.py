"""Round scores (worked examples from the rule texts) and the physical checks."""

import pytest

from cardtally.scoring.rounds import (
    PlayerCounts,
    RoundEntry,
    physical_warnings,
    player_score,
    round_scores,
    round_winner,
)
from cardtally.scoring.rules import get_rules, with_overrides


@pytest.mark.parametrize(
    ("rules_name", "center", "pile", "called_out", "points"),
    [
        # Ligretto: 15 in the centre, 4 left in the pile -> 15 - 2*4 = 7.
        ("ligretto", 15, 4, False, 7),
        ("ligretto", 15, 4, True, 7),  # no caller bonus in Ligretto
        # Racing Demon: the same with the +10 for calling out -> 17.
        ("racing-demon", 15, 4, True, 17),
        ("racing-demon", 15, 4, False, 7),
        ("nerts", 20, 0, True, 30),
        ("dutch-blitz", 12, 6, False, 0),
        ("ligretto-2", 3, 10, False, -17),
        ("ligretto", 0, 0, False, 0),
    ],
)
def test_worked_examples(rules_name, center, pile, called_out, points):
    counts = PlayerCounts("Anna", center, pile)
    assert player_score(counts, get_rules(rules_name), called_out=called_out) == points


def test_house_rules_change_the_score():
    rules = with_overrides(get_rules("ligretto"), penalty=3, bonus=5)
    entry = RoundEntry((PlayerCounts("Anna", 15, 0), PlayerCounts("Ben", 15, 4)), caller="Anna")
    assert round_scores(entry, rules) == {"Anna": 20, "Ben": 3}


def test_round_scores_keep_seat_order():
    entry = RoundEntry(
        (PlayerCounts("Cleo", 9, 6), PlayerCounts("Anna", 15, 0), PlayerCounts("Ben", 11, 4)),
        caller="Anna",
    )
    scores = round_scores(entry, get_rules("racing-demon"))
    assert list(scores.items()) == [("Cleo", -3), ("Anna", 25), ("Ben", 3)]


@pytest.mark.parametrize(
    ("scores", "winner"),
    [
        ({"Anna": 7, "Ben": 3}, "Anna"),
        ({"Anna": 7, "Ben": 9}, "Ben"),
        ({"Anna": 7, "Ben": 7}, None),
        ({"Anna": -2, "Ben": -5, "Cleo": -2}, None),
        ({}, None),
    ],
)
def test_round_winner(scores, winner):
    assert round_winner(scores) == winner


LIGRETTO = get_rules("ligretto")


@pytest.mark.parametrize(
    ("counts", "caller", "warnings"),
    [
        ([("Anna", 15, 0), ("Ben", 11, 4)], "Anna", []),
        ([("Anna", 40, 0), ("Ben", 30, 10)], "Anna", []),  # exactly a full deck is fine
        (
            [("Anna", 38, 0), ("Ben", 35, 6)],
            "Anna",
            ["Ben: 35 in the centre + 6 in the pile = 41 cards, more than the 40-card deck."],
        ),
        (
            [("Anna", 15, 0), ("Ben", 11, 12)],
            "Anna",
            ["Ben: 12 cards left in the pile, more than the 10 it starts with."],
        ),
        (
            [("Anna", 15, 1), ("Ben", 11, 4)],
            "Anna",
            ["Anna called out but has 1 card left in the pile."],
        ),
        (
            [("Anna", 15, 3), ("Ben", 11, 4)],
            "Anna",
            ["Anna called out but has 3 cards left in the pile."],
        ),
        (
            [("Anna", 15, 0), ("Ben", 11, 4)],
            None,
            ["Nobody called out, but Anna has an empty pile."],
        ),
        (
            [("Anna", 15, 0), ("Ben", 11, 0), ("Cleo", 3, 0)],
            None,
            ["Nobody called out, but Anna, Ben and Cleo have empty piles."],
        ),
        ([("Anna", 15, 2), ("Ben", 11, 4)], None, []),  # stopped before anyone went out
        (
            [("Anna", 39, 5), ("Ben", 11, 4)],
            "Anna",
            [
                "Anna: 39 in the centre + 5 in the pile = 44 cards, more than the 40-card deck.",
                "Anna called out but has 5 cards left in the pile.",
            ],
        ),
    ],
)
def test_physical_checks(counts, caller, warnings):
    entry = RoundEntry(tuple(PlayerCounts(*c) for c in counts), caller)
    assert physical_warnings(entry, LIGRETTO) == warnings


def test_physical_checks_follow_house_rules():
    rules = with_overrides(get_rules("ligretto"), pile_size=12)
    entry = RoundEntry((PlayerCounts("Anna", 15, 0), PlayerCounts("Ben", 11, 12)), "Anna")
    assert physical_warnings(entry, rules) == []


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"player": "Anna", "center_cards": -1, "pile_cards": 0}, "center_cards"),
        ({"player": "Anna", "center_cards": 1, "pile_cards": -3}, "pile_cards"),
        ({"player": "Anna", "center_cards": "3", "pile_cards": 0}, "center_cards"),
        ({"player": "Anna", "center_cards": True, "pile_cards": 0}, "center_cards"),
    ],
)
def test_player_counts_reject_bad_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        PlayerCounts(**kwargs)


def test_round_entry_checks_players_and_caller():
    with pytest.raises(ValueError, match="twice"):
        RoundEntry((PlayerCounts("Anna", 1, 0), PlayerCounts("Anna", 2, 0)))
    with pytest.raises(ValueError, match="caller"):
        RoundEntry((PlayerCounts("Anna", 1, 0),), caller="Ben")
    entry = RoundEntry((PlayerCounts("Anna", 1, 0), PlayerCounts("Ben", 2, 3)))
    assert entry.players == ("Anna", "Ben")
    assert entry.of("Ben") == PlayerCounts("Ben", 2, 3)
    with pytest.raises(KeyError):
        entry.of("Cleo")
