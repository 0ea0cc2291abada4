"""Totals, shared places, the end of a game and its winners (incl. Ligretto-2 markers)."""

import pytest

from cardtally.scoring.rounds import PlayerCounts, RoundEntry
from cardtally.scoring.rules import get_rules, with_overrides
from cardtally.scoring.standings import Seat, summarize

SEATS3 = (Seat("Anna", "red-star"), Seat("Ben", "red-moon"), Seat("Cleo", "green-star"))
SEATS2 = SEATS3[:2]


def rnd(caller=None, **counts):
    """A round from ``Anna=(centre, pile)`` keyword arguments."""
    return RoundEntry(tuple(PlayerCounts(p, *c) for p, c in counts.items()), caller)


def test_running_totals_and_shared_places():
    rounds = [
        rnd("Anna", Anna=(15, 0), Ben=(11, 4), Cleo=(9, 6)),  # 15, 3, -3
        rnd("Ben", Anna=(12, 3), Ben=(17, 0), Cleo=(10, 5)),  # 6, 17, 0
        rnd("Cleo", Anna=(14, 2), Ben=(9, 7), Cleo=(18, 0)),  # 10, -5, 18
    ]
    summary = summarize(get_rules("ligretto"), SEATS3, rounds)
    assert [dict(r.scores) for r in summary.rounds] == [
        {"Anna": 15, "Ben": 3, "Cleo": -3},
        {"Anna": 6, "Ben": 17, "Cleo": 0},
        {"Anna": 10, "Ben": -5, "Cleo": 18},
    ]
    assert [dict(r.totals) for r in summary.rounds][-1] == {"Anna": 31, "Ben": 15, "Cleo": 15}
    assert [(s.player, s.deck, s.total, s.place) for s in summary.standings] == [
        ("Anna", "red-star", 31, 1),
        ("Ben", "red-moon", 15, 2),
        ("Cleo", "green-star", 15, 2),
    ]
    assert summary.leaders == ("Anna",)
    assert (summary.finished, summary.finished_after_round, summary.winners) == (False, None, ())


def test_no_rounds_everybody_shares_first_place():
    summary = summarize(get_rules("ligretto"), SEATS3, [])
    assert [s.place for s in summary.standings] == [1, 1, 1]
    assert summary.leaders == ("Anna", "Ben", "Cleo")
    assert not summary.finished


@pytest.mark.parametrize(
    ("counts", "places"),
    [
        ([(10, 0), (10, 0), (7, 0)], [1, 1, 3]),
        ([(7, 0), (10, 0), (10, 0)], [3, 1, 1]),
        ([(5, 0), (5, 0), (5, 0)], [1, 1, 1]),
        ([(1, 0), (2, 0), (3, 0)], [3, 2, 1]),
        ([(0, 2), (0, 0), (0, 2)], [2, 1, 2]),  # -4, 0, -4
    ],
)
def test_places_share_equal_totals(counts, places):
    rules = with_overrides(get_rules("ligretto"), target=0, rounds=10)
    round_ = rnd(**{s.player: c for s, c in zip(SEATS3, counts, strict=True)})
    summary = summarize(rules, SEATS3, [round_])
    assert [s.place for s in sorted(summary.standings, key=lambda s: SEATS3.index(
        Seat(s.player, s.deck)))] == places  # fmt: skip


# Ties at the target: everyone who reaches it in the same round; highest total wins; equal
# totals share the place.
@pytest.mark.parametrize(
    ("last_round", "winners", "places"),
    [
        # Anna 80 + 20 = 100, Ben 80 + 19 = 99: both reach 99, Anna is higher and wins.
        ({"Anna": (20, 0), "Ben": (19, 0), "Cleo": (10, 0)}, ("Anna",), [1, 2, 3]),
        # Anna and Ben both at 100: they share first place and both win.
        ({"Anna": (20, 0), "Ben": (20, 0), "Cleo": (10, 0)}, ("Anna", "Ben"), [1, 1, 3]),
        # Only Ben reaches the target, Anna falls back.
        ({"Anna": (10, 8), "Ben": (19, 0), "Cleo": (10, 0)}, ("Ben",), [2, 1, 3]),
        # All three on 100.
        ({"Anna": (20, 0), "Ben": (20, 0), "Cleo": (40, 0)}, ("Anna", "Ben", "Cleo"), [1, 1, 1]),
    ],
)
def test_ties_at_the_target(last_round, winners, places):
    rounds = [
        rnd("Anna", Anna=(40, 0), Ben=(38, 1), Cleo=(30, 0)),  # 40, 36, 30
        rnd("Ben", Anna=(40, 0), Ben=(40, 0), Cleo=(30, 0)),  # 80, 76, 60  (Ben: 76)
        rnd(None, Ben=(4, 0), Anna=(0, 0), Cleo=(0, 0)),  # 80, 80, 60
    ]
    summary_before = summarize(get_rules("ligretto"), SEATS3, rounds)
    assert not summary_before.finished
    assert summary_before.leaders == ("Anna", "Ben")

    summary = summarize(get_rules("ligretto"), SEATS3, [*rounds, rnd(None, **last_round)])
    assert summary.finished
    assert summary.finished_after_round == 4
    assert summary.winners == winners
    assert [s.place for s in sorted(summary.standings, key=lambda s: s.player)] == places


def test_game_ends_after_the_agreed_rounds():
    rules = with_overrides(get_rules("ligretto"), rounds=2)
    one = rnd("Anna", Anna=(10, 0), Ben=(5, 2))
    assert not summarize(rules, SEATS2, [one]).finished
    summary = summarize(rules, SEATS2, [one, one])
    assert (summary.finished, summary.finished_after_round, summary.winners) == (True, 2, ("Anna",))


def test_rounds_played_past_the_end_still_count():
    rules = with_overrides(get_rules("ligretto"), target=20)
    rounds = [
        rnd("Anna", Anna=(25, 0), Ben=(5, 2)),  # 25, 1: Anna reaches 20
        rnd("Ben", Anna=(0, 10), Ben=(40, 0)),  # 5, 41 (added with --force)
    ]
    summary = summarize(rules, SEATS2, rounds)
    assert summary.finished_after_round == 1
    assert summary.winners == ("Ben",)


def test_racing_demon_caller_bonus_counts_towards_the_target():
    rules = get_rules("racing-demon")
    rounds = [rnd("Anna", Anna=(45, 0), Ben=(20, 5))] * 2  # 55 per round for Anna
    summary = summarize(rules, SEATS2, rounds)
    assert summary.rounds[-1].totals == {"Anna": 110, "Ben": 20}
    assert summary.winners == ("Anna",)


# Ligretto-2: the higher round score moves the marker; first to 3 round wins takes the match.
A_WINS = rnd("Anna", Anna=(20, 0), Ben=(10, 5))
B_WINS = rnd("Ben", Anna=(10, 5), Ben=(20, 0))
TIED = rnd(None, Anna=(10, 2), Ben=(10, 2))


def test_ligretto_2_match_ending_3_to_1():
    rules = get_rules("ligretto-2")
    rounds = [A_WINS, B_WINS, TIED, A_WINS, A_WINS]
    summary = summarize(rules, SEATS2, rounds)
    assert [r.winner for r in summary.rounds] == ["Anna", "Ben", None, "Anna", "Anna"]
    assert summary.finished
    assert summary.finished_after_round == 5
    assert summary.winners == ("Anna",)
    assert [(s.player, s.round_wins, s.place) for s in summary.standings] == [
        ("Anna", 3, 1),
        ("Ben", 1, 2),
    ]
    assert not summarize(rules, SEATS2, rounds[:4]).finished


def test_ligretto_2_places_follow_round_wins_not_points():
    rules = get_rules("ligretto-2")
    big_b = rnd("Ben", Anna=(0, 10), Ben=(40, 0))  # Ben +40, Anna -20
    rounds = [A_WINS, A_WINS, big_b]  # Anna: 2 wins, 20 + 20 - 20 = 20; Ben: 1 win, 0+0+40
    summary = summarize(rules, SEATS2, rounds)
    assert [(s.player, s.round_wins, s.total, s.place) for s in summary.standings] == [
        ("Anna", 2, 20, 1),
        ("Ben", 1, 40, 2),
    ]
    assert summary.leaders == ("Anna",)


def test_round_players_must_match_the_seats():
    with pytest.raises(ValueError, match="Round 1 players"):
        summarize(get_rules("ligretto"), SEATS3, [A_WINS])
