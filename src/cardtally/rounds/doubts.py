"""How much the cards to check could change each player's points (the question of ``score``).

A card identified with little confidence could be anyone else's; an unknown card anyone's; a
card tied between two sibling decks either one's. Each such card in the centre is worth
``points_per_center_card`` to whoever owns it, in a pile ``-penalty_per_card``: the question
before saving says, per player, how far the round's points could move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..scoring.rules import RuleSet
from ..vision.count import CountResult
from ..vision.detections import UNKNOWN
from ..vision.doubt import LOW_CONFIDENCE


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
