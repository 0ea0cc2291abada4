"""Cards grouped as players lay them: shingled rows, fans, piles, and cards lying alone.

Two cards belong to one group when their card-size rectangles overlap. A group whose cards
share one turn and whose centres lie along a line is a row (its axis and the order of its cards
along it are what the fit stage walks); one whose turns fan out along its cards is a fan (its
pivot is where the cards' long axes meet); any other overlapping group is a pile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cards import CARD_ASPECT, LayoutCards

KINDS = ("row", "fan", "pile", "alone")
#: Consecutive cards of a row turn by at most this (degrees; a hand-laid row bends gently) ...
ROW_TURN_STEP_DEG = 6.0
#: ... and the step between their centres runs within this of one of their sides (degrees).
ROW_STEP_ANGLE_DEG = 15.0
#: Consecutive cards of a fan turn the same way by this much (degrees; fans step 6-18) ...
FAN_TURN_STEP_DEG = (3.0, 25.0)
#: ... with centres at most this many short sides apart.
FAN_MAX_GAP = 0.6
#: Share of consecutive pairs that must agree with a kind.
PAIR_SHARE = 0.8


@dataclass(frozen=True)
class CardGroup:
    """One group: ``kind`` in :data:`KINDS`, its cards (indices into the photo's cards, in
    order along the axis for rows and fans), the unit ``axis_xy`` a row runs along (None
    otherwise) and a fan's ``pivot_xy`` (None otherwise)."""

    kind: str
    card_index: tuple[int, ...]
    axis_xy: tuple[float, float] | None = None
    pivot_xy: tuple[float, float] | None = None


def card_turns(quad_xy: np.ndarray) -> np.ndarray:
    """Each card's long-axis direction (radians, mod pi) from its rectangle (TL->TR is long)."""
    along = quad_xy[:, 1] - quad_xy[:, 0]
    return np.arctan2(along[:, 1], along[:, 0]) % np.pi


def overlapping(quad_xy: np.ndarray) -> np.ndarray:
    """(n, n) bool: whether two convex quads overlap (separating-axis test on the two side
    directions of each rectangle)."""
    n = len(quad_xy)
    sides = np.roll(quad_xy, -1, axis=1) - quad_xy  # (n, 4, 2)
    separated = np.zeros((n, n), bool)
    for k in range(2):
        axis = np.stack([-sides[:, k, 1], sides[:, k, 0]], axis=-1)  # (n, 2): card i's normal
        proj = np.einsum("ic,jpc->ijp", axis, quad_xy)  # every quad j on card i's axis
        own = proj[np.arange(n), np.arange(n)]
        lo_i, hi_i = own.min(axis=1)[:, None], own.max(axis=1)[:, None]
        apart = (proj.max(axis=2) < lo_i) | (proj.min(axis=2) > hi_i)
        separated |= apart | apart.T
    out = ~separated
    np.fill_diagonal(out, False)
    return out


def _components(adjacent: np.ndarray) -> list[list[int]]:
    n = len(adjacent)
    seen = np.zeros(n, bool)
    groups = []
    for start in range(n):
        if seen[start]:
            continue
        stack, members = [start], []
        seen[start] = True
        while stack:
            i = stack.pop()
            members.append(i)
            for j in np.nonzero(adjacent[i] & ~seen)[0]:
                seen[j] = True
                stack.append(int(j))
        groups.append(sorted(members))
    return groups


def _circular_spread_deg(turns: np.ndarray) -> float:
    """Spread of directions mod 180 degrees (degrees), from the doubled-angle resultant."""
    r = np.hypot(np.cos(2 * turns).mean(), np.sin(2 * turns).mean())
    return float(np.degrees(0.5 * np.sqrt(max(0.0, -2 * np.log(max(r, 1e-9))))))


def _turn_steps_deg(turns: np.ndarray) -> np.ndarray:
    """Signed turn differences (degrees, mod 180 to [-90, 90)) between consecutive cards."""
    d = np.degrees(np.diff(turns))
    return (d + 90.0) % 180.0 - 90.0


def _steps_along_card_axes(centres: np.ndarray, turns: np.ndarray) -> np.ndarray:
    """Per consecutive pair, whether the step between their centres runs along one of the
    cards' sides (within :data:`ROW_STEP_ANGLE_DEG`), as it does in a shingled row."""
    step = np.diff(centres, axis=0)
    step_dir = np.arctan2(step[:, 1], step[:, 0])
    rel = np.degrees(step_dir - turns[:-1]) % 90.0
    return np.minimum(rel, 90.0 - rel) <= ROW_STEP_ANGLE_DEG


def group_cards(cards: LayoutCards) -> tuple[CardGroup, ...]:
    """The photo's groups; every card is in exactly one.

    Cards are ordered along their group's main direction; a group is a row when consecutive
    cards keep their turn and step along a side of the cards, a fan when consecutive cards
    turn the same way by a few degrees about nearly one point, otherwise a pile.
    """
    n = len(cards)
    if n == 0:
        return ()
    quads = cards.quad_xy.astype(np.float64)
    turns = card_turns(quads)
    short_px = cards.card_long_px / CARD_ASPECT
    out = []
    for members in _components(overlapping(quads)):
        if len(members) == 1:
            out.append(CardGroup("alone", (members[0],)))
            continue
        idx = np.array(members)
        centres = cards.centre_xy[idx].astype(np.float64)
        mean = centres.mean(axis=0)
        _, _, vt = np.linalg.svd(centres - mean, full_matrices=False)
        axis = vt[0]
        order_idx = idx[np.argsort((centres - mean) @ axis)]
        ordered = cards.centre_xy[order_idx].astype(np.float64)
        ordered_turns = turns[order_idx]
        order = tuple(int(i) for i in order_idx)
        steps = _turn_steps_deg(ordered_turns)
        gaps = np.linalg.norm(np.diff(ordered, axis=0), axis=1)
        straight = (np.abs(steps) <= ROW_TURN_STEP_DEG) & _steps_along_card_axes(ordered, ordered_turns)
        if straight.mean() >= PAIR_SHARE:
            out.append(CardGroup("row", order, axis_xy=(float(axis[0]), float(axis[1]))))
            continue
        same_way = max((steps >= FAN_TURN_STEP_DEG[0]).mean(), (steps <= -FAN_TURN_STEP_DEG[0]).mean())
        close = (np.abs(steps) <= FAN_TURN_STEP_DEG[1]) & (gaps <= FAN_MAX_GAP * short_px)
        if same_way >= PAIR_SHARE and close.mean() >= PAIR_SHARE:
            pivot = _pivot(ordered, ordered_turns)
            if pivot is not None:
                out.append(CardGroup("fan", order, pivot_xy=pivot))
                continue
        out.append(CardGroup("pile", tuple(members)))
    return tuple(out)


def _pivot(centres: np.ndarray, turns: np.ndarray) -> tuple[float, float] | None:
    """Least-squares meeting point of the cards' long axes (None when they are parallel)."""
    normals = np.stack([-np.sin(turns), np.cos(turns)], axis=1)
    a = normals
    b = (normals * centres).sum(axis=1)
    ata = a.T @ a
    if np.linalg.cond(ata) > 1e6:
        return None
    p = np.linalg.solve(ata, a.T @ b)
    return float(p[0]), float(p[1])
