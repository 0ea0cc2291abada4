"""Card arrangements on the table plane (millimetres): spread, shingled rows, fans, piles, mixed.

A layout is a list of card poses (centre x, centre y, rotation) in z-order, bottom card first.
The geometry only has to be plausible; visibility rules (minimum strip width, >= 20 % of a pile
card visible) are enforced later on the rendered owner map, where they are exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

PRESETS: tuple[str, ...] = ("mixed", "spread", "rows", "fan", "pile", "sorted")
#: A sorted photo: each player's cards pushed into one shingled row, one row per player.
SORTED_ROWS = (2, 6)
SORTED_ROW_CARDS = (3, 40)
GROUP_KINDS: tuple[str, ...] = ("spread", "rows", "fan", "pile")


@dataclass(frozen=True)
class Layout:
    """Card poses in table millimetres, bottom card first.

    poses: (n, 3) float64 rows of (centre_x_mm, centre_y_mm, angle_rad).
    group_kind: per card, the kind of group it belongs to ("spread", "rows", "fan", "pile").
    group_id: (n,) int, which group each card belongs to.
    """

    poses: np.ndarray
    group_kind: tuple[str, ...]
    group_id: np.ndarray


def card_corners_mm(pose, card_wh_mm) -> np.ndarray:
    """Corners TL, TR, BR, BL of a card with ``pose`` = (cx, cy, angle) in table mm, (4, 2)."""
    w, h = card_wh_mm
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    c, s = math.cos(pose[2]), math.sin(pose[2])
    rot = np.array([[c, -s], [s, c]])
    return local @ rot.T + np.asarray(pose[:2])


def _spread(rng, n, card_wh_mm, **_):
    """Non-overlapping cards on a jittered grid; cells sized so rotations cannot overlap."""
    w, h = card_wh_mm
    small_rot = rng.random() < 0.6
    max_rot = math.radians(12) if small_rot else math.pi
    if small_rot:
        cell_w = w * math.cos(max_rot) + h * math.sin(max_rot)
        cell_h = h * math.cos(max_rot) + w * math.sin(max_rot)
    else:
        cell_w = cell_h = math.hypot(w, h)
    gap = rng.uniform(3, 40)
    cell_w, cell_h = cell_w + gap, cell_h + gap
    n_cells = int(math.ceil(n * rng.uniform(1.0, 1.6)))
    cols = max(1, int(round(math.sqrt(n_cells * cell_h / cell_w * rng.uniform(1.0, 1.8)))))
    rows = int(math.ceil(n_cells / cols))
    cells = rng.permutation(rows * cols)[:n]
    out = []
    for k in cells:
        r, c = divmod(int(k), cols)
        jx, jy = rng.uniform(-gap / 2, gap / 2, 2) * 0.9
        angle = rng.uniform(-max_rot, max_rot) + (math.pi if rng.random() < 0.5 else 0)
        out.append((c * cell_w + jx, r * cell_h + jy, angle))
    return out


def _rows(rng, n, card_wh_mm, row_offset_frac=(0.15, 0.6), one_row=False, **_):
    """Shingled rows: each card offset 15-60 % along one side, rows slightly curved; with
    ``one_row`` all ``n`` cards lie in one row (a player's sorted cards)."""
    w, h = card_wh_mm
    out = []
    left = n
    y0 = 0.0
    per_row = int(rng.integers(3, 16))
    while left > 0:
        k = n if one_row else min(left, max(1, per_row + int(rng.integers(-2, 3))))
        frac = rng.uniform(*row_offset_frac)
        along_width = rng.random() < 0.6  # offset along the card's short side (classic row)
        step = frac * (w if along_width else h)
        curve = rng.normal(0, 0.0006)  # mm^-1, bends the row like a hand-laid one
        tilt = rng.normal(0, 0.05)
        extent_y = h if along_width else w
        base_angle = 0.0 if along_width else math.pi / 2
        flip = math.pi if rng.random() < 0.5 else 0.0
        c, si = math.cos(tilt), math.sin(tilt)
        for i in range(k):
            s = (i - (k - 1) / 2) * step
            lx, ly = s, curve * s * s  # row-local position on a gentle parabola
            a = base_angle + flip + math.atan(2 * curve * s) + tilt + rng.normal(0, 0.02)
            out.append((lx * c - ly * si, y0 + lx * si + ly * c + rng.normal(0, 0.6), a))
        if rng.random() < 0.5:  # shingle direction: later cards on top going left or right
            out[-k:] = out[-k:][::-1]
        y0 += extent_y * rng.uniform(1.1, 1.5) + abs(curve) * (k * step) ** 2 / 4
        left -= k
    return out


def _fan(rng, n, card_wh_mm, **_):
    """Hand fans: cards rotated about a pivot near their bottom edge."""
    w, h = card_wh_mm
    out = []
    left = n
    x0 = 0.0
    while left > 0:
        k = min(left, int(rng.integers(3, 13)))
        step = math.radians(rng.uniform(6, 18))
        pivot_below = h * rng.uniform(0.3, 0.5)  # pivot distance from the card centre
        base = rng.uniform(-0.4, 0.4)
        for i in range(k):
            a = base + (i - (k - 1) / 2) * step + rng.normal(0, 0.01)
            cx = x0 + pivot_below * math.sin(a)
            cy = -pivot_below * math.cos(a)
            out.append((cx, cy, a))
        x0 += 2 * (pivot_below + h / 2) * math.sin(min(math.pi / 2, (k / 2 + 1) * step)) + w
        left -= k
    return out


def _pile(rng, n, card_wh_mm, **_):
    """Loose piles: cards dropped around a point with random rotation."""
    w, h = card_wh_mm
    out = []
    left = n
    x0 = 0.0
    while left > 0:
        k = min(left, int(rng.integers(2, 21)))
        spread = h * rng.uniform(0.25, 0.6) * math.sqrt(k / 4)
        for _ in range(k):
            dx, dy = rng.normal(0, spread, 2)
            out.append((x0 + dx, dy, rng.uniform(0, 2 * math.pi)))
        x0 += 2 * spread + 2 * h
        left -= k
    return out


_GROUP_FN = {"spread": _spread, "rows": _rows, "fan": _fan, "pile": _pile}


def _bbox(poses, card_wh_mm) -> np.ndarray:
    pts = np.concatenate([card_corners_mm(p, card_wh_mm) for p in poses])
    return np.array([pts[:, 0].min(), pts[:, 1].min(), pts[:, 0].max(), pts[:, 1].max()])


def make_layout(
    rng: np.random.Generator,
    preset: str,
    n_cards: int,
    card_wh_mm: tuple[float, float],
    row_offset_frac: tuple[float, float] = (0.15, 0.6),
    aspect_wh: float = 1.5,
) -> Layout:
    """Arrange ``n_cards`` for ``preset``; groups are packed into a block of about ``aspect_wh``."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; expected one of {PRESETS}")
    groups: list[tuple[str, int]] = []
    if preset == "sorted":
        # ``n_cards`` is ignored: a sorted photo's size is its rows'
        n_rows = int(rng.integers(SORTED_ROWS[0], SORTED_ROWS[1] + 1))
        groups = [("rows", int(rng.integers(SORTED_ROW_CARDS[0], SORTED_ROW_CARDS[1] + 1)))
                  for _ in range(n_rows)]
    elif preset == "mixed":
        left = n_cards
        while left > 0:
            kind = str(rng.choice(GROUP_KINDS, p=[0.2, 0.35, 0.15, 0.3]))
            k = min(left, int(rng.integers(1, 4)) if kind == "spread" else int(rng.integers(3, 16)))
            groups.append((kind, k))
            left -= k
    else:
        groups.append((preset, n_cards))
    placed: list[tuple[str, int, list]] = []
    for gi, (kind, k) in enumerate(groups):
        poses = _GROUP_FN[kind](rng, k, card_wh_mm, row_offset_frac=row_offset_frac,
                                one_row=preset == "sorted")
        placed.append((kind, gi, poses))
    # shelf-pack the groups' bounding boxes, in random order, with random gaps
    order = rng.permutation(len(placed))
    boxes = [_bbox(placed[i][2], card_wh_mm) for i in range(len(placed))]
    total_area = sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes)
    shelf_w = max(max(b[2] - b[0] for b in boxes), math.sqrt(total_area * aspect_wh) * 1.1)
    x, y, shelf_h = 0.0, 0.0, 0.0
    all_poses, kinds, gids = [], [], []
    for i in order:
        kind, gi, poses = placed[i]
        b = boxes[i]
        bw, bh = b[2] - b[0], b[3] - b[1]
        if x > 0 and x + bw > shelf_w:
            x, y, shelf_h = 0.0, y + shelf_h + rng.uniform(5, 40), 0.0
        dx, dy = x - b[0], y - b[1] + rng.uniform(0, 20)
        for p in poses:
            all_poses.append((p[0] + dx, p[1] + dy, p[2]))
            kinds.append(kind)
            gids.append(gi)
        x += bw + rng.uniform(-15, 40)  # negative gaps let groups touch and overlap a little
        shelf_h = max(shelf_h, bh)
    return Layout(np.asarray(all_poses, np.float64), tuple(kinds), np.asarray(gids, np.int64))


def layout_bbox_mm(layout: Layout, card_wh_mm) -> np.ndarray:
    """(x0, y0, x1, y1) of all card corners in table mm."""
    return _bbox(layout.poses, card_wh_mm)
