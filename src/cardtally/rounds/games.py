"""The user's game ledger and its games as JSON objects (what every front end shows: the
``--json`` of ``game``, ``round`` and ``score``, or a web page).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import CardtallyError
from ..home import ensure_data_home, ledger_path
from ..scoring.entry import parse_seats
from ..scoring.ledger import NEW_GAME_HINT, Game, Ledger
from ..scoring.rules import RuleSet
from ..scoring.standings import GameSummary
from ..vision.decks import players_decks


def open_for_writing() -> Ledger:
    """The user's ledger, created (with the data home) if missing."""
    ensure_data_home()
    ledger = Ledger.open(ledger_path(), create=True)
    assert ledger is not None
    return ledger


def open_for_changes() -> Ledger:
    """The user's ledger for changing a game; a clear error when there is no ledger yet."""
    ensure_data_home()
    ledger = Ledger.open(ledger_path(), create=False)
    if ledger is None:
        raise CardtallyError(f"No game yet. Start one with: {NEW_GAME_HINT}")
    return ledger


def open_for_reading() -> Ledger | None:
    """The user's ledger, or None when there is none yet (nothing is created)."""
    return Ledger.open(ledger_path(), create=False)


def start_game(rules: RuleSet, player_texts: Sequence[str], *, calibrated_only: bool = False
               ) -> Game:
    """Start a game of ``rules`` for the ``NAME=DECK`` players (``game new --player``) and make
    it the current game; the game as stored.

    ``calibrated_only`` refuses a deck nobody has calibrated yet, with the error ``score``
    gives for it (a page that offers the calibrated decks; ``game new`` lets the decks be
    calibrated later).
    """
    seats = parse_seats(rules, player_texts)
    if calibrated_only:
        players_decks({seat.player: seat.deck for seat in seats})
    with open_for_writing() as ledger:
        return ledger.game(ledger.create_game(rules, seats))


def check_no_game_uses(deck: str) -> None:
    """Refuse (before ``decks remove``) a deck someone plays in a game: its rounds could no
    longer be scored or recounted."""
    ledger = open_for_reading()
    if ledger is None:
        return
    with ledger:
        used = ledger.games_with_deck(deck)
    if used:
        games = ", ".join(f"game {game_id} ({player})" for game_id, player in used)
        raise CardtallyError(
            f"Deck {deck!r} is played in {games}; add --force to remove it anyway (then "
            "calibrate it again before scoring that game)."
        )


def read_game(game_id: int | None) -> tuple[Game, int | None]:
    """A game (default: the current one) and the current game's ID, without changing the
    ledger; a clear error when there is no ledger yet."""
    ledger = open_for_reading()
    if ledger is None:
        raise CardtallyError(f"No game yet. Start one with: {NEW_GAME_HINT}")
    with ledger:
        return ledger.game(game_id), ledger.current_game_id()


def rules_json(rules: RuleSet) -> dict[str, Any]:
    """The rule set as the ``rules`` object of a game's JSON."""
    return {
        "name": rules.name,
        "deck_size": rules.deck_size,
        "pile_size": rules.pile_size,
        "points_per_center_card": rules.points_per_center_card,
        "penalty_per_card": rules.penalty_per_card,
        "caller_bonus": rules.caller_bonus,
        "target": rules.target,
        "target_kind": rules.target_kind,
        "max_rounds": rules.max_rounds,
    }


def game_json(game: Game, current_id: int | None) -> dict[str, Any]:
    """The whole game: rules, players, every round with counts and scores, standings."""
    summary = game.summary
    rounds = [round_json(game, number) for number in range(1, len(game.rounds) + 1)]
    return {
        "game": game.id,
        "current": game.id == current_id,
        "created": game.created_at,
        "rules": rules_json(game.rules),
        "players": [{"player": s.player, "deck": s.deck} for s in game.seats],
        "rounds": rounds,
        **standings_json(summary),
    }


def round_json(game: Game, number: int) -> dict[str, Any]:
    """One round: counts, points, running totals, warnings and (photo rounds) evidence."""
    stored = game.round(number)
    scored = game.summary.rounds[number - 1]
    return {
        "number": stored.number,
        "caller": stored.entry.caller,
        "counts": {
            c.player: {"center": c.center_cards, "leftover": c.pile_cards}
            for c in stored.entry.counts
        },
        "scores": dict(scored.scores),
        "totals": dict(scored.totals),
        "winner": scored.winner,
        "warnings": list(stored.warnings),
        "evidence": stored.evidence,
    }


def standings_json(summary: GameSummary) -> dict[str, Any]:
    """The standings, leaders and whether (and when) the game finished, as the
    keys of a game's JSON."""
    return {
        "standings": [
            {
                "player": s.player,
                "deck": s.deck,
                "total": s.total,
                "place": s.place,
                "round_wins": s.round_wins,
            }
            for s in summary.standings
        ],
        "leaders": list(summary.leaders),
        "finished": summary.finished,
        "finished_after_round": summary.finished_after_round,
        "winners": list(summary.winners),
    }
