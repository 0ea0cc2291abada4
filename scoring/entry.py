"""Typed-in input (``NAME=DECK``, ``NAME=N``) -> validated seats and rounds, with clear errors.

Player names are matched case-insensitively and stored as first written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..errors import CardtallyError, UsageError
from .names import check_deck_name, name_key, player_name
from .rounds import PlayerCounts, RoundEntry
from .rules import RuleSet
from .standings import Seat

CENTER_OPTION = "--center"
LEFTOVER_OPTION = "--leftover"
CALLER_OPTION = "--caller"
MAX_COUNT = 1000  # far above any real deck; keeps typos like 1500 out of the ledger
_ASCII_DIGITS = re.compile(r"[0-9]+\Z")


def parse_seats(rules: RuleSet, texts: Sequence[str]) -> list[Seat]:
    """``["Anna=red-star", ...]`` -> seats, checking syntax, duplicates and the player count."""
    seats: list[Seat] = []
    for text in texts:
        name, sep, deck = (part.strip() for part in text.partition("="))
        if not sep or not name or not deck or "=" in deck:
            raise UsageError(
                f"Bad --player {text!r}: write NAME=DECK, e.g. --player Anna=red-star."
            )
        name = player_name(name)
        check_deck_name(deck)
        for seat in seats:
            if name_key(seat.player) == name_key(name):
                raise CardtallyError(f"Player {name!r} is listed twice.")
            if seat.deck.casefold() == deck.casefold():
                raise CardtallyError(
                    f"Deck '{deck}' is given to both {seat.player} and {name}; "
                    f"each player needs a deck of their own."
                )
        seats.append(Seat(name, deck))
    if rules.min_players == rules.max_players and len(seats) != rules.min_players:
        raise CardtallyError(
            f"A {rules.name} game needs exactly {rules.min_players} players; got {len(seats)}."
        )
    if not rules.min_players <= len(seats) <= rules.max_players:
        raise CardtallyError(
            f"A {rules.name} game needs {rules.min_players} to {rules.max_players} players; "
            f"got {len(seats)}."
        )
    return seats


def resolve_player(name: str, players: Sequence[str], option: str) -> str:
    """The player called ``name`` (any case), as stored; else a clear error."""
    for player in players:
        if name_key(player) == name_key(name):
            return player
    raise CardtallyError(
        f"Unknown player {name!r} in {option}. The players are: {', '.join(players)}."
    )


def parse_counts(option: str, texts: Sequence[str], players: Sequence[str]) -> dict[str, int]:
    """``["Anna=15", "bea=3"]`` -> ``{"Anna": 15, "Bea": 3}`` (players as stored)."""
    counts: dict[str, int] = {}
    for text in texts:
        name, sep, value = (part.strip() for part in text.partition("="))
        if not sep or not name:
            raise CardtallyError(
                f"Bad {option} {text!r}: write NAME=N, a player and a number of cards."
            )
        player = resolve_player(name, players, option)
        if player in counts:
            raise CardtallyError(f"{player} is given twice in {option}.")
        counts[player] = _parse_count(option, text, value)
    return counts


def _parse_count(option: str, text: str, value: str) -> int:
    # Only ASCII digits: int() would also take "٣", "1_000" and "+3".
    if value.startswith("-") and _ASCII_DIGITS.match(value[1:]):
        raise CardtallyError(f"Bad count in {option} {text}: a count cannot be negative.")
    if not _ASCII_DIGITS.match(value):
        raise CardtallyError(
            f"Bad count in {option} {text}: {value!r} is not a whole number of cards."
        )
    count = int(value)
    if count > MAX_COUNT:
        raise CardtallyError(
            f"Bad count in {option} {text}: more than {MAX_COUNT} cards is not a real count."
        )
    return count


def build_round(
    players: Sequence[str],
    *,
    center: Sequence[str] = (),
    leftover: Sequence[str] = (),
    caller: str | None = None,
    base: RoundEntry | None = None,
    clear_caller: bool = False,
) -> RoundEntry:
    """A round from ``NAME=N`` texts.

    Without ``base`` (a new round) every player needs both a centre and a leftover count. With
    ``base`` (editing a round) the given values replace those in ``base``; the rest stay.
    """
    center_counts = parse_counts(CENTER_OPTION, center, players)
    leftover_counts = parse_counts(LEFTOVER_OPTION, leftover, players)
    if caller is not None and clear_caller:
        raise CardtallyError("Give either --caller or --no-caller, not both.")
    new_caller = resolve_player(caller, players, CALLER_OPTION) if caller is not None else None
    if base is None:
        for option, given in ((CENTER_OPTION, center_counts), (LEFTOVER_OPTION, leftover_counts)):
            missing = [p for p in players if p not in given]
            if missing:
                raise CardtallyError(
                    f"Missing {option} for {', '.join(missing)}: "
                    f"give every player's count, 0 included."
                )
        return RoundEntry(
            tuple(PlayerCounts(p, center_counts[p], leftover_counts[p]) for p in players),
            new_caller,
        )
    counts = tuple(
        PlayerCounts(
            p,
            center_counts.get(p, base.of(p).center_cards),
            leftover_counts.get(p, base.of(p).pile_cards),
        )
        for p in players
    )
    if clear_caller:
        final_caller = None
    else:
        final_caller = new_caller if new_caller is not None else base.caller
    return RoundEntry(counts, final_caller)
