"""Rule sets: the numbers a game is scored by (DESIGN.md section 2).

Every number is a default; a game may override any of them (house rules). A :class:`RuleSet` is
frozen: overriding returns a new one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from ..errors import CardtallyError

#: What a game's ``target`` counts: total points, or round wins (Ligretto-2's marker).
TargetKind = Literal["points", "round-wins"]

MAX_PLAYERS = 12


@dataclass(frozen=True)
class RuleSet:
    """How one game is scored and when it ends.

    ``target`` is the points total that ends the game (``target_kind == "points"``) or the number
    of round wins that wins the match (``"round-wins"``); 0 means no target, the game then ends
    after ``max_rounds`` rounds.
    """

    name: str
    deck_size: int
    pile_size: int
    points_per_center_card: int
    penalty_per_card: int
    caller_bonus: int
    target: int
    target_kind: TargetKind = "points"
    max_rounds: int | None = None
    min_players: int = 2
    max_players: int = MAX_PLAYERS

    def __post_init__(self) -> None:
        checks = {
            "deck_size": self.deck_size >= 1,
            "pile_size": 1 <= self.pile_size <= self.deck_size,
            "penalty_per_card": self.penalty_per_card >= 0,
            "caller_bonus": self.caller_bonus >= 0,
            "target": self.target >= 0,
            "max_rounds": self.max_rounds is None or self.max_rounds >= 1,
        }
        for field_name, ok in checks.items():
            if not ok:
                raise ValueError(f"RuleSet.{field_name} out of range: {self!r}")
        if self.target == 0 and self.max_rounds is None:
            raise ValueError(f"RuleSet needs a target or a number of rounds: {self!r}")

    def describe_end(self) -> str:
        """How the game ends, in words: ``first to 99 points or 10 rounds``."""
        parts = []
        if self.target:
            unit = "points" if self.target_kind == "points" else "round wins"
            parts.append(f"first to {self.target} {unit}")
        if self.max_rounds is not None:
            parts.append(f"{self.max_rounds} rounds")
        return " or ".join(parts)


RULE_SETS: dict[str, RuleSet] = {
    rules.name: rules
    for rules in (
        RuleSet(
            "ligretto",
            deck_size=40,
            pile_size=10,
            points_per_center_card=1,
            penalty_per_card=2,
            caller_bonus=0,
            target=99,
        ),
        RuleSet(
            "racing-demon",
            deck_size=52,
            pile_size=13,
            points_per_center_card=1,
            penalty_per_card=2,
            caller_bonus=10,
            target=100,
        ),
        RuleSet(
            "dutch-blitz",
            deck_size=40,
            pile_size=10,
            points_per_center_card=1,
            penalty_per_card=2,
            caller_bonus=0,
            target=75,
        ),
        RuleSet(
            "ligretto-2",
            deck_size=49,
            pile_size=10,
            points_per_center_card=1,
            penalty_per_card=2,
            caller_bonus=0,
            target=3,
            target_kind="round-wins",
            min_players=2,
            max_players=2,
        ),
    )
}

ALIASES: dict[str, str] = {"nerts": "racing-demon", "pounce": "racing-demon"}

DEFAULT_RULES = "ligretto"


def rule_set_names() -> str:
    """The rule set names for messages: ``ligretto, racing-demon (aliases: nerts, pounce), ...``."""
    names = []
    for name in RULE_SETS:
        aliases = sorted(alias for alias, target in ALIASES.items() if target == name)
        names.append(f"{name} (aliases: {', '.join(aliases)})" if aliases else name)
    return ", ".join(names)


def get_rules(name: str) -> RuleSet:
    """The rule set called ``name`` (or one of its aliases), case-insensitive."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    try:
        return RULE_SETS[key]
    except KeyError:
        raise CardtallyError(
            f"Unknown rule set '{name}'. Choose one of: {rule_set_names()}."
        ) from None


# Option name (as the CLI spells it) -> (RuleSet field, smallest allowed value).
OVERRIDES: dict[str, tuple[str, int]] = {
    "penalty": ("penalty_per_card", 0),
    "bonus": ("caller_bonus", 0),
    "target": ("target", 0),
    "rounds": ("max_rounds", 1),
    "pile-size": ("pile_size", 1),
    "deck-size": ("deck_size", 1),
}


#: No house rule needs a larger number; larger ones (typos, 2**63) stay out of the ledger.
MAX_RULE_NUMBER = 1_000_000


def with_overrides(rules: RuleSet, **values: int | None) -> RuleSet:
    """``rules`` with house-rule numbers replaced; keys as in :data:`OVERRIDES` (``pile_size``
    for ``--pile-size``). ``None`` keeps the default. Raises :class:`CardtallyError` naming the
    option when a value is out of range."""
    changes: dict[str, int] = {}
    for key, value in values.items():
        option = key.replace("_", "-")
        if option not in OVERRIDES:
            raise TypeError(f"Unknown rule override {key!r}")
        if value is None:
            continue
        field_name, smallest = OVERRIDES[option]
        if value < smallest:
            raise CardtallyError(f"--{option} must be {smallest} or more; got {value}.")
        if value > MAX_RULE_NUMBER:
            raise CardtallyError(f"--{option} must be at most {MAX_RULE_NUMBER}; got {value}.")
        changes[field_name] = value
    merged = {**dataclasses.asdict(rules), **changes}
    if merged["pile_size"] > merged["deck_size"]:
        raise CardtallyError(
            f"The pile ({merged['pile_size']} cards) cannot be larger than the deck "
            f"({merged['deck_size']} cards); check --pile-size and --deck-size."
        )
    if merged["target"] == 0 and merged["max_rounds"] is None:
        raise CardtallyError("--target 0 means no target: give the number of rounds with --rounds.")
    new = dataclasses.replace(rules, **changes) if changes else rules  # type: ignore[arg-type]
    return new
