"""Rule sets, aliases and house-rule overrides (DESIGN.md section 2)."""

import pytest

from cardtally.errors import CardtallyError
from cardtally.scoring.rules import RULE_SETS, RuleSet, get_rules, with_overrides

RULE_NAMES = "ligretto, racing-demon (aliases: nerts, pounce), dutch-blitz, ligretto-2"


@pytest.mark.parametrize(
    ("name", "deck", "pile", "penalty", "bonus", "target", "kind", "players"),
    [
        ("ligretto", 40, 10, 2, 0, 99, "points", (2, 12)),
        ("racing-demon", 52, 13, 2, 10, 100, "points", (2, 12)),
        ("dutch-blitz", 40, 10, 2, 0, 75, "points", (2, 12)),
        ("ligretto-2", 49, 10, 2, 0, 3, "round-wins", (2, 2)),
    ],
)
def test_rule_sets_match_the_design(name, deck, pile, penalty, bonus, target, kind, players):
    rules = get_rules(name)
    assert (rules.name, rules.deck_size, rules.pile_size) == (name, deck, pile)
    assert (rules.points_per_center_card, rules.penalty_per_card, rules.caller_bonus) == (
        1,
        penalty,
        bonus,
    )
    assert (rules.target, rules.target_kind, rules.max_rounds) == (target, kind, None)
    assert (rules.min_players, rules.max_players) == players


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("nerts", "racing-demon"),
        ("pounce", "racing-demon"),
        ("Pounce", "racing-demon"),
        (" LIGRETTO ", "ligretto"),
        ("Dutch-Blitz", "dutch-blitz"),
    ],
)
def test_aliases_and_case(given, expected):
    assert get_rules(given) is RULE_SETS[expected]


@pytest.mark.parametrize("name", ["foo", "", "ligretto2", "racing demon"])
def test_unknown_rule_set(name):
    with pytest.raises(CardtallyError) as info:
        get_rules(name)
    assert str(info.value) == f"Unknown rule set '{name}'. Choose one of: {RULE_NAMES}."


def test_overrides_replace_only_what_is_given():
    base = get_rules("ligretto")
    rules = with_overrides(
        base, penalty=3, bonus=5, target=50, rounds=8, pile_size=12, deck_size=44
    )
    assert (rules.penalty_per_card, rules.caller_bonus, rules.target) == (3, 5, 50)
    assert (rules.max_rounds, rules.pile_size, rules.deck_size) == (8, 12, 44)
    assert rules.name == "ligretto"
    assert with_overrides(base, penalty=None, target=None) is base
    assert base.penalty_per_card == 2  # frozen default untouched


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"penalty": -1}, "--penalty must be 0 or more; got -1."),
        ({"bonus": -10}, "--bonus must be 0 or more; got -10."),
        ({"target": -5}, "--target must be 0 or more; got -5."),
        ({"rounds": 0}, "--rounds must be 1 or more; got 0."),
        ({"pile_size": 0}, "--pile-size must be 1 or more; got 0."),
        ({"deck_size": 0}, "--deck-size must be 1 or more; got 0."),
        (
            {"pile_size": 41},
            "The pile (41 cards) cannot be larger than the deck (40 cards); "
            "check --pile-size and --deck-size.",
        ),
        (
            {"deck_size": 8},
            "The pile (10 cards) cannot be larger than the deck (8 cards); "
            "check --pile-size and --deck-size.",
        ),
        ({"target": 0}, "--target 0 means no target: give the number of rounds with --rounds."),
    ],
)
def test_bad_overrides(overrides, message):
    with pytest.raises(CardtallyError) as info:
        with_overrides(get_rules("ligretto"), **overrides)
    assert str(info.value) == message


def test_target_zero_with_rounds_plays_a_fixed_number_of_rounds():
    rules = with_overrides(get_rules("ligretto"), target=0, rounds=5)
    assert rules.describe_end() == "5 rounds"


@pytest.mark.parametrize(
    ("name", "overrides", "text"),
    [
        ("ligretto", {}, "first to 99 points"),
        ("racing-demon", {"rounds": 10}, "first to 100 points or 10 rounds"),
        ("ligretto-2", {}, "first to 3 round wins"),
    ],
)
def test_describe_end(name, overrides, text):
    assert with_overrides(get_rules(name), **overrides).describe_end() == text


def test_rule_set_rejects_impossible_numbers():
    with pytest.raises(ValueError, match="pile_size"):
        RuleSet("x", deck_size=5, pile_size=6, points_per_center_card=1, penalty_per_card=2,
                caller_bonus=0, target=10)  # fmt: skip
    with pytest.raises(ValueError, match="target or a number of rounds"):
        RuleSet("x", deck_size=40, pile_size=10, points_per_center_card=1, penalty_per_card=2,
                caller_bonus=0, target=0)  # fmt: skip
