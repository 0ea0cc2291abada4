"""Hands and pens lying *over* the cards: they hide parts of cards, so they go into the owner
map as table (-1) and the visibility rules see them like any other cover.

Drawn in canvas pixels (they are above the table, not on it) before the lens, as an
anti-aliased alpha in a bounding box; the id buffer takes the pixels with alpha >= 50 %.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

_SKIN_BGR = ((120, 150, 205), (95, 125, 180), (70, 95, 140), (50, 70, 105), (150, 175, 225))


@dataclass(frozen=True)
class Occluder:
    """Something lying over the cards: its box origin, coverage and colour inside the box."""
    x0: int
    y0: int
    alpha: np.ndarray  # uint8, 255 = fully covered
    colour: np.ndarray  # HxWx3 float32 BGR of the occluder inside its box
    kind: str


def _hand(rng, canvas_wh, scale_px: float) -> Occluder:
    """Palm and fingers reaching in from an edge of the photo."""
    cw, ch = canvas_wh
    side = int(rng.integers(4))
    t = rng.uniform(0.15, 0.85)
    palm = scale_px * rng.uniform(0.8, 1.1)  # palm width ~ card height
    depth = palm * rng.uniform(0.3, 1.6)  # palm centre to the photo's edge: the arm reaches out
    if side == 0:
        cx, cy, ang = t * cw, depth, math.pi / 2
    elif side == 1:
        cx, cy, ang = t * cw, ch - depth, -math.pi / 2
    elif side == 2:
        cx, cy, ang = depth, t * ch, 0.0
    else:
        cx, cy, ang = cw - depth, t * ch, math.pi
    ang += rng.normal(0, 0.3)
    r = int(palm * 2.2)
    x0, y0 = int(cx) - r, int(cy) - r
    a = np.zeros((2 * r, 2 * r), np.uint8)
    ca, sa = math.cos(ang), math.sin(ang)
    # the arm comes from behind the palm (opposite to where the fingers point)
    back = (r - ca * palm * 2.5, r - sa * palm * 2.5)
    cv2.line(a, (int(back[0]), int(back[1])), (r, r), 255, int(palm * 0.8), cv2.LINE_AA)
    cv2.ellipse(a, (r, r), (int(palm * 0.55), int(palm * 0.5)), math.degrees(ang), 0, 360, 255,
                -1, cv2.LINE_AA)
    spread = rng.uniform(0.08, 0.3)
    for k in range(4):
        off = (k - 1.5) * palm * 0.22
        fa = ang + (k - 1.5) * spread * 0.3
        bx, by = r + ca * palm * 0.35 - sa * off, r + sa * palm * 0.35 + ca * off
        length = palm * rng.uniform(0.6, 0.9) * (1.0 if k in (1, 2) else 0.85)
        ex, ey = bx + math.cos(fa) * length, by + math.sin(fa) * length
        cv2.line(a, (int(bx), int(by)), (int(ex), int(ey)), 255, max(2, int(palm * 0.17)),
                 cv2.LINE_AA)
    # thumb
    ta = ang + rng.choice([-1, 1]) * rng.uniform(0.7, 1.2)
    tx, ty = r + math.cos(ta) * palm * 0.75, r + math.sin(ta) * palm * 0.75
    cv2.line(a, (r, r), (int(tx), int(ty)), 255, max(2, int(palm * 0.2)), cv2.LINE_AA)
    a = cv2.GaussianBlur(a, (0, 0), max(0.6, palm * 0.01))
    skin = np.asarray(_SKIN_BGR[int(rng.integers(len(_SKIN_BGR)))], np.float32) * rng.uniform(
        0.85, 1.1)
    # rounded shading: brighter in the middle of the shape, darker at its rim
    dist = cv2.distanceTransform((a > 127).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.7 + 0.3 * np.clip(dist / max(palm * 0.12, 1.0), 0, 1)
    colour = shade[..., None] * skin[None, None, :]
    return Occluder(x0, y0, a, colour.astype(np.float32), "hand")


def _pen(rng, canvas_wh, scale_px: float) -> Occluder:
    cw, ch = canvas_wh
    length = scale_px * rng.uniform(1.2, 1.8)
    width = max(3.0, scale_px * rng.uniform(0.07, 0.1))
    r = int(length / 2 + width) + 2
    cx, cy = rng.uniform(0.2, 0.8) * cw, rng.uniform(0.2, 0.8) * ch
    ang = rng.uniform(0, math.pi)
    a = np.zeros((2 * r, 2 * r), np.uint8)
    dx, dy = math.cos(ang) * length / 2, math.sin(ang) * length / 2
    cv2.line(a, (int(r - dx), int(r - dy)), (int(r + dx), int(r + dy)), 255, int(width),
             cv2.LINE_AA)
    base = np.asarray(rng.integers(20, 230, 3), np.float32)
    colour = np.broadcast_to(base, (2 * r, 2 * r, 3)).astype(np.float32)
    return Occluder(int(cx) - r, int(cy) - r, a, colour, "pen")


def random_occluders(rng: np.random.Generator, canvas_wh, card_h_px: float, prob: float
                     ) -> list[Occluder]:
    """With probability ``prob``, a hand or a pen over the scene (sized by the cards)."""
    if rng.random() >= prob:
        return []
    if rng.random() < 0.7:
        return [_hand(rng, canvas_wh, card_h_px)]
    return [_pen(rng, canvas_wh, card_h_px)]


def _clip(occ: Occluder, shape):
    h, w = occ.alpha.shape
    x0, y0 = max(0, occ.x0), max(0, occ.y0)
    x1, y1 = min(shape[1], occ.x0 + w), min(shape[0], occ.y0 + h)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1, (slice(y0 - occ.y0, y1 - occ.y0), slice(x0 - occ.x0, x1 - occ.x0))


def fill_occluders(ids: np.ndarray, occluders: list[Occluder]) -> None:
    """Mark covered pixels as table (-1) in the id buffer, in place."""
    for occ in occluders:
        c = _clip(occ, ids.shape)
        if c is not None:
            x0, y0, x1, y1, sl = c
            ids[y0:y1, x0:x1][occ.alpha[sl] >= 128] = -1


def draw_occluders(canvas: np.ndarray, occluders: list[Occluder]) -> None:
    """Composite occluders (with a soft shadow below them) onto the float32 canvas."""
    for occ in occluders:
        c = _clip(occ, canvas.shape)
        if c is None:
            continue
        x0, y0, x1, y1, sl = c
        roi = canvas[y0:y1, x0:x1]
        a = occ.alpha[sl].astype(np.float32) / 255.0
        shadow = cv2.GaussianBlur(a, (0, 0), max(2.0, a.shape[0] * 0.03))
        roi *= (1 - 0.35 * shadow)[..., None]
        roi += (occ.colour[sl] - roi) * a[..., None]
