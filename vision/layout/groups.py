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
#: A row's cards agree on their turn within this (degrees, circular spread).
ROW_TURN_SPREAD_DEG = 6.0
#: ... and their centres lie within this share of a short side of the row's line.
ROW_LINE_TOLERANCE = 0.2
#: A fan's turns span at least this much (degrees).
FAN_MIN_SPAN_DEG = 12.0


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


def group_cards(cards: LayoutCards) -> tuple[CardGroup, ...]:
    """The photo's groups; every card is in exactly one."""
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
        _, sv, vt = np.linalg.svd(centres - mean, full_matrices=False)
        axis = vt[0]
        along = (centres - mean) @ axis
        across = (centres - mean) @ vt[1] if len(vt) > 1 else np.zeros(len(idx))
        order = tuple(int(i) for i in idx[np.argsort(along)])
        spread = _circular_spread_deg(turns[idx])
        if spread <= ROW_TURN_SPREAD_DEG and np.abs(across).max() <= ROW_LINE_TOLERANCE * short_px:
            out.append(CardGroup("row", order, axis_xy=(float(axis[0]), float(axis[1]))))
            continue
        span = np.degrees(np.ptp(np.unwrap(2 * turns[idx][np.argsort(along)]) / 2))
        if span >= FAN_MIN_SPAN_DEG:
            pivot = _pivot(centres, turns[idx])
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
