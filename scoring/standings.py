"""Totals, places and the end of a game, computed from its rounds.

Places: highest total first (for Ligretto-2: most round wins first); equal values share the place
and the next place is skipped (1, 1, 3). A game is finished after the first round in which
someone reaches the target or the agreed number of rounds is played. Rounds added after that
(``--force``) still count: the winners are whoever is first after the last round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .rounds import RoundEntry, round_scores, round_winner
from .rules import RuleSet


@dataclass(frozen=True)
class Seat:
    """A player and the deck (by its calibrated name) they play with."""

    player: str
    deck: str


@dataclass(frozen=True)
class ScoredRound:
    """One round's points and the running totals after it (both keyed by player, seat order)."""

    number: int
    scores: Mapping[str, int]
    totals: Mapping[str, int]
    winner: str | None  # strictly highest round score; None on a tie (Ligretto-2: no marker)


@dataclass(frozen=True)
class Standing:
    """One player's place in a game: deck, total points and round wins."""
    player: str
    deck: str
    total: int
    round_wins: int
    place: int


@dataclass(frozen=True)
class GameSummary:
    """A game's scored rounds, standings, leaders and, once finished, winners."""
    rounds: tuple[ScoredRound, ...]
    standings: tuple[Standing, ...]  # by place, then seat order
    finished: bool
    finished_after_round: int | None
    winners: tuple[str, ...]  # empty until finished
    leaders: tuple[str, ...]  # everyone in first place now (all players before round 1)


def summarize(rules: RuleSet, seats: Sequence[Seat], rounds: Sequence[RoundEntry]) -> GameSummary:
    """Score ``rounds`` (round 1 first) of a game played by ``seats`` under ``rules``."""
    totals = {seat.player: 0 for seat in seats}
    wins = {seat.player: 0 for seat in seats}
    scored = []
    finished_after = None
    for number, entry in enumerate(rounds, start=1):
        if set(entry.players) != set(totals):
            raise ValueError(f"Round {number} players {entry.players} != seats {tuple(totals)}")
        scores = round_scores(entry, rules)
        for player, points in scores.items():
            totals[player] += points
        winner = round_winner(scores)
        if winner is not None:
            wins[winner] += 1
        ordered = {seat.player: scores[seat.player] for seat in seats}
        scored.append(ScoredRound(number, ordered, dict(totals), winner))
        if finished_after is None and _game_over(rules, number, totals, wins):
            finished_after = number

    rank_value = wins if rules.target_kind == "round-wins" else totals
    places = _places(rank_value)
    standings = sorted(
        (
            Standing(s.player, s.deck, totals[s.player], wins[s.player], places[s.player])
            for s in seats
        ),
        key=lambda standing: standing.place,
    )
    leaders = tuple(s.player for s in standings if s.place == 1)
    finished = finished_after is not None
    return GameSummary(
        rounds=tuple(scored),
        standings=tuple(standings),
        finished=finished,
        finished_after_round=finished_after,
        winners=leaders if finished else (),
        leaders=leaders,
    )


def _game_over(
    rules: RuleSet, rounds_played: int, totals: Mapping[str, int], wins: Mapping[str, int]
) -> bool:
    if rules.max_rounds is not None and rounds_played >= rules.max_rounds:
        return True
    if not rules.target:
        return False
    reached = wins if rules.target_kind == "round-wins" else totals
    return max(reached.values()) >= rules.target


def _places(values: Mapping[str, int]) -> dict[str, int]:
    """Competition ranking, highest value first: 10, 10, 7 -> places 1, 1, 3."""
    ordered = sorted(values.values(), reverse=True)
    return {player: ordered.index(value) + 1 for player, value in values.items()}
