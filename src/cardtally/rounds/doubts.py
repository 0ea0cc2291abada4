"""How much the cards to check could change each player's points (the question of ``score``).

A card identified with little confidence could be anyone else's; an unknown card anyone's; a
card tied between two sibling decks either one's. Each such card in the centre is worth
``points_per_center_card`` to whoever owns it, in a pile ``-penalty_per_card``: the question
before saving says, per player, how far the round's points could move; ``cards_to_check``
names the cards by their numbers in the review images.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..scoring.rules import RuleSet
from ..vision.count import CountResult
from ..vision.detections import UNKNOWN
from ..vision.doubt import LOW_CONFIDENCE
from ..vision.label_layout import card_numbers


def point_swings(
    results: Mapping[str, CountResult], player_of: Mapping[str, str], players: Sequence[str],
    rules: RuleSet,
) -> dict[str, tuple[int, int]]:
    """Each player's (most points lost, most points won) if the cards to check are someone
    else's; ``results`` by set label (``centre``, ``leftover``)."""
    down = dict.fromkeys(players, 0)
    up = dict.fromkeys(players, 0)
    for label, result in results.items():
        worth = rules.points_per_center_card if label == "centre" else -rules.penalty_per_card
        for photo in result.photos:
            ids = photo.identities
            for i in range(len(ids)):
                if ids.deck_index[i] >= 0 and ids.confidence[i] < LOW_CONFIDENCE:
                    now = player_of.get(ids.deck_name(i) or "")
                    could = [p for p in players if p != now]
                elif ids.deck_index[i] == UNKNOWN:
                    now = None
                    tied = ids.ties(i)
                    could = [player_of[d] for d in tied if d in player_of] if tied else list(players)
                else:
                    continue
                for player in could:  # the card is theirs: they win (or lose) its worth
                    up[player] += max(worth, 0)
                    down[player] += min(worth, 0)
                if now is not None:  # ... and whoever has it now loses it
                    up[now] += max(-worth, 0)
                    down[now] += min(-worth, 0)
    return {p: (down[p], up[p]) for p in players if down[p] or up[p]}


def swing_text(swings: Mapping[str, tuple[int, int]]) -> str:
    """``Anna -1 to +2, Ben up to +1`` (players whose points cannot move are left out)."""
    parts = []
    for player, (down, up) in swings.items():
        if down and up:
            parts.append(f"{player} {down:+d} to {up:+d}")
        elif up:
            parts.append(f"{player} up to {up:+d}")
        else:
            parts.append(f"{player} down to {down:+d}")
    return ", ".join(parts)


def cards_to_check(result: CountResult, label: str = "",
                   nobody: str = "no player's deck") -> list[str]:
    """Human lines for the cards a user should look at, by their numbers in the review image:
    those the identification was unsure about, those two sibling decks tie on, and those that
    match ``nobody``."""
    lines = []
    for photo in result.photos:
        ids = photo.identities
        numbers = card_numbers(photo.detections)
        where = f"{label} {photo.path.name}".strip()
        unsure = np.flatnonzero((ids.deck_index >= 0) & (ids.confidence < LOW_CONFIDENCE))
        for i in sorted(unsure, key=lambda k: numbers[k]):
            lines.append(
                f"{where}: card {numbers[i]} looks like {ids.deck_name(i)} "
                f"({ids.confidence[i]:.0%} sure)"
            )
        untied = ids.deck_index == UNKNOWN
        for i in sorted(np.flatnonzero(untied), key=lambda k: numbers[k]):
            if pair := ids.ties(i):
                lines.append(f"{where}: card {numbers[i]} could be {pair[0]} or {pair[1]} "
                             "(the detail that tells them apart does not show)")
                untied[i] = False
        unknown = sorted(int(n) for n in numbers[untied])
        if unknown:
            listed = ", ".join(str(n) for n in unknown)
            lines.append(f"{where}: card{'s' if len(unknown) > 1 else ''} {listed} "
                         f"match{'es' if len(unknown) == 1 else ''} {nobody}")
    return lines
