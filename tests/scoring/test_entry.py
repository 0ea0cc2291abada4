"""Typed-in players and counts -> seats and rounds, with the exact error messages."""

import pytest

from cardtally.errors import CardtallyError
from cardtally.scoring.entry import build_round, parse_seats
from cardtally.scoring.rounds import PlayerCounts, RoundEntry
from cardtally.scoring.rules import get_rules
from cardtally.scoring.standings import Seat

LIGRETTO = get_rules("ligretto")
PLAYERS = ("Anna", "Ben", "Cleo")


def test_parse_seats():
    assert parse_seats(LIGRETTO, ["Anna=red-star", " Ben = red-moon "]) == [
        Seat("Anna", "red-star"),
        Seat("Ben", "red-moon"),
    ]


@pytest.mark.parametrize(
    ("rules_name", "players", "message"),
    [
        ("ligretto", ["Anna=a"], "A ligretto game needs 2 to 12 players; got 1."),
        ("ligretto", [], "A ligretto game needs 2 to 12 players; got 0."),
        (
            "ligretto",
            [f"P{i}=d{i}" for i in range(13)],
            "A ligretto game needs 2 to 12 players; got 13.",
        ),
        (
            "ligretto-2",
            ["A=a", "B=b", "C=c"],
            "A ligretto-2 game needs exactly 2 players; got 3.",
        ),
        ("ligretto-2", ["A=a"], "A ligretto-2 game needs exactly 2 players; got 1."),
        ("ligretto", ["Anna=a", "anna=b"], "Player 'anna' is listed twice."),
        (
            "ligretto",
            ["Anna=red", "Ben=Red"],
            "Deck 'Red' is given to both Anna and Ben; each player needs a deck of their own.",
        ),
        (
            "ligretto",
            ["Anna"],
            "Bad --player 'Anna': write NAME=DECK, e.g. --player Anna=red-star.",
        ),
        (
            "ligretto",
            ["=red"],
            "Bad --player '=red': write NAME=DECK, e.g. --player Anna=red-star.",
        ),
        (
            "ligretto",
            ["Anna="],
            "Bad --player 'Anna=': write NAME=DECK, e.g. --player Anna=red-star.",
        ),
        (
            "ligretto",
            ["Anna=a=b"],
            "Bad --player 'Anna=a=b': write NAME=DECK, e.g. --player Anna=red-star.",
        ),
    ],
)
def test_parse_seats_errors(rules_name, players, message):
    with pytest.raises(CardtallyError) as info:
        parse_seats(get_rules(rules_name), players)
    assert str(info.value) == message


def test_twelve_players_are_allowed():
    assert len(parse_seats(LIGRETTO, [f"P{i}=d{i}" for i in range(12)])) == 12


def test_build_round_matches_names_case_insensitively():
    entry = build_round(
        PLAYERS,
        center=["anna=15", "BEN=11", "Cleo= 9"],
        leftover=["Cleo=6", "Ben=4", "Anna=0"],
        caller="ANNA",
    )
    assert entry == RoundEntry(
        (PlayerCounts("Anna", 15, 0), PlayerCounts("Ben", 11, 4), PlayerCounts("Cleo", 9, 6)),
        "Anna",
    )


ALL_LEFT = ["Anna=0", "Ben=4", "Cleo=6"]
ALL_CENTER = ["Anna=15", "Ben=11", "Cleo=9"]


@pytest.mark.parametrize(
    ("center", "leftover", "caller", "message"),
    [
        (
            ["Anna=15", "Dan=3"],
            ALL_LEFT,
            None,
            "Unknown player 'Dan' in --center. The players are: Anna, Ben, Cleo.",
        ),
        (
            ALL_CENTER,
            ["Anna=0", "Ben=4", "Eve=1"],
            None,
            "Unknown player 'Eve' in --leftover. The players are: Anna, Ben, Cleo.",
        ),
        (
            ALL_CENTER,
            ALL_LEFT,
            "Dan",
            "Unknown player 'Dan' in --caller. The players are: Anna, Ben, Cleo.",
        ),
        (
            ["Anna=15", "Ben=11"],
            ALL_LEFT,
            None,
            "Missing --center for Cleo: give every player's count, 0 included.",
        ),
        (
            ALL_CENTER,
            ["Anna=0"],
            None,
            "Missing --leftover for Ben, Cleo: give every player's count, 0 included.",
        ),
        (
            ["Anna=-3", "Ben=11", "Cleo=9"],
            ALL_LEFT,
            None,
            "Bad count in --center Anna=-3: a count cannot be negative.",
        ),
        (
            ALL_CENTER,
            ["Anna=0", "Ben=four", "Cleo=6"],
            None,
            "Bad count in --leftover Ben=four: 'four' is not a whole number of cards.",
        ),
        (
            ["Anna=1.5", "Ben=11", "Cleo=9"],
            ALL_LEFT,
            None,
            "Bad count in --center Anna=1.5: '1.5' is not a whole number of cards.",
        ),
        (
            ["Anna=", "Ben=11", "Cleo=9"],
            ALL_LEFT,
            None,
            "Bad count in --center Anna=: '' is not a whole number of cards.",
        ),
        (
            ["Anna=1001", "Ben=11", "Cleo=9"],
            ALL_LEFT,
            None,
            "Bad count in --center Anna=1001: more than 1000 cards is not a real count.",
        ),
        (
            ["Anna15", "Ben=11", "Cleo=9"],
            ALL_LEFT,
            None,
            "Bad --center 'Anna15': write NAME=N, a player and a number of cards.",
        ),
        (
            ["Anna=15", "anna=3", "Cleo=9"],
            ALL_LEFT,
            None,
            "Anna is given twice in --center.",
        ),
    ],
)
def test_build_round_errors(center, leftover, caller, message):
    with pytest.raises(CardtallyError) as info:
        build_round(PLAYERS, center=center, leftover=leftover, caller=caller)
    assert str(info.value) == message


BASE = RoundEntry(
    (PlayerCounts("Anna", 15, 0), PlayerCounts("Ben", 11, 4), PlayerCounts("Cleo", 9, 6)), "Anna"
)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"center": ["Ben=12"]}, ((15, 0), (12, 4), (9, 6), "Anna")),
        ({"leftover": ["cleo=0"], "caller": "Cleo"}, ((15, 0), (11, 4), (9, 0), "Cleo")),
        ({"clear_caller": True}, ((15, 0), (11, 4), (9, 6), None)),
        ({}, ((15, 0), (11, 4), (9, 6), "Anna")),
    ],
)
def test_build_round_edits_only_what_is_given(changes, expected):
    entry = build_round(PLAYERS, base=BASE, **changes)
    assert [(c.center_cards, c.pile_cards) for c in entry.counts] == list(expected[:3])
    assert entry.caller == expected[3]


def test_caller_and_no_caller_together():
    with pytest.raises(CardtallyError) as info:
        build_round(PLAYERS, base=BASE, caller="Ben", clear_caller=True)
    assert str(info.value) == "Give either --caller or --no-caller, not both."
