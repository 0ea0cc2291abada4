"""Game rules, rounds and the game ledger (SQLite). Knows nothing about images.

- :mod:`.rules`: rule sets (ligretto, racing-demon, dutch-blitz, ligretto-2) and house rules;
- :mod:`.rounds`: one round's counts, its scores and its physical checks;
- :mod:`.standings`: totals, places, the end of the game and its winners;
- :mod:`.entry`: typed-in ``NAME=DECK`` / ``NAME=N`` values -> seats and rounds;
- :mod:`.ledger` (with :mod:`.schema`): the SQLite game ledger.
"""

from .ledger import Game, Ledger, StoredRound
from .rounds import PlayerCounts, RoundEntry, physical_warnings, round_scores
from .rules import RuleSet, get_rules, with_overrides
from .standings import GameSummary, Seat, Standing, summarize

__all__ = [
    "Game",
    "GameSummary",
    "Ledger",
    "PlayerCounts",
    "RoundEntry",
    "RuleSet",
    "Seat",
    "Standing",
    "StoredRound",
    "get_rules",
    "physical_warnings",
    "round_scores",
    "summarize",
    "with_overrides",
]
