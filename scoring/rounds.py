"""One round: what each player had at "Ligretto stop!", its scores and its physical checks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .rules import RuleSet


@dataclass(frozen=True)
class PlayerCounts:
    """One player's cards at the end of a round."""

    player: str
    center_cards: int
    pile_cards: int

    def __post_init__(self) -> None:
        for field_name in ("center_cards", "pile_cards"):
            value = getattr(self, field_name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(
                    f"PlayerCounts.{field_name} must be an int >= 0; got {value!r} "
                    f"for {self.player!r}"
                )


@dataclass(frozen=True)
class RoundEntry:
    """Every player's counts for one round, in seat order, and who called out (if anyone)."""

    counts: tuple[PlayerCounts, ...]
    caller: str | None = None

    def __post_init__(self) -> None:
        names = [c.player for c in self.counts]
        if len(set(names)) != len(names):
            raise ValueError(f"RoundEntry lists a player twice: {names}")
        if self.caller is not None and self.caller not in names:
            raise ValueError(f"RoundEntry.caller {self.caller!r} is not one of {names}")

    @property
    def players(self) -> tuple[str, ...]:
        """The round's players, in the order of its counts."""
        return tuple(c.player for c in self.counts)

    def of(self, player: str) -> PlayerCounts:
        """The counts of ``player`` (KeyError if not in this round)."""
        for counts in self.counts:
            if counts.player == player:
                return counts
        raise KeyError(player)


def player_score(counts: PlayerCounts, rules: RuleSet, *, called_out: bool) -> int:
    """centre x points per card - pile x penalty (+ caller bonus)."""
    score = counts.center_cards * rules.points_per_center_card
    score -= counts.pile_cards * rules.penalty_per_card
    if called_out:
        score += rules.caller_bonus
    return score


def round_scores(entry: RoundEntry, rules: RuleSet) -> dict[str, int]:
    """Each player's points for the round, in seat order."""
    return {
        c.player: player_score(c, rules, called_out=c.player == entry.caller) for c in entry.counts
    }


def round_winner(scores: Mapping[str, int]) -> str | None:
    """The player with the strictly highest round score; ``None`` on a tie for the top."""
    if not scores:
        return None
    best = max(scores.values())
    leaders = [player for player, score in scores.items() if score == best]
    return leaders[0] if len(leaders) == 1 else None


def physical_warnings(entry: RoundEntry, rules: RuleSet) -> list[str]:
    """What in ``entry`` cannot happen with real cards, one sentence per problem.

    Checks: centre + pile fits in the deck; the pile is no larger than at the start; the caller's
    pile is empty; if nobody called out, nobody's pile is empty.
    """
    warnings = []
    for c in entry.counts:
        if c.center_cards + c.pile_cards > rules.deck_size:
            warnings.append(
                f"{c.player}: {c.center_cards} in the centre + {c.pile_cards} in the pile = "
                f"{c.center_cards + c.pile_cards} cards, more than the {rules.deck_size}-card deck."
            )
        if c.pile_cards > rules.pile_size:
            warnings.append(
                f"{c.player}: {c.pile_cards} cards left in the pile, more than the "
                f"{rules.pile_size} it starts with."
            )
    if entry.caller is not None:
        left = entry.of(entry.caller).pile_cards
        if left:
            card_s = "card" if left == 1 else "cards"
            warnings.append(f"{entry.caller} called out but has {left} {card_s} left in the pile.")
    else:
        empty = [c.player for c in entry.counts if c.pile_cards == 0]
        if empty:
            verb = "has an empty pile" if len(empty) == 1 else "have empty piles"
            warnings.append(f"Nobody called out, but {_join(empty)} {verb}.")
    return warnings


def _join(names: list[str]) -> str:
    """``Anna``, ``Anna and Bea``, ``Anna, Bea and Cem``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
