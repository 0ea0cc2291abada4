"""Small vector symbols (star, moon, heart, suits ...) drawn with OpenCV, anti-aliased.

Shared by the back designs (family symbols, emblems) and the card fronts (suit pips).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

SYMBOL_NAMES: tuple[str, ...] = (
    "star", "moon", "heart", "clover", "diamond", "spade", "sun", "triangle",
    "drop", "cross", "flower", "crown",
)

_SHIFT = 4  # fixed-point bits for sub-pixel polygon vertices
_ONE = 1 << _SHIFT


def _poly(img: np.ndarray, pts_xy: np.ndarray, colour) -> None:
    pts = np.round(np.asarray(pts_xy, np.float64) * _ONE).astype(np.int32)
    cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, _SHIFT)


def _disc(img: np.ndarray, c_xy, r: float, colour) -> None:
    c = (int(round(c_xy[0] * _ONE)), int(round(c_xy[1] * _ONE)))
    cv2.circle(img, c, max(1, int(round(r * _ONE))), colour, -1, cv2.LINE_AA, _SHIFT)


def _star_xy(cx: float, cy: float, r: float, points: int = 5, inner: float = 0.42) -> np.ndarray:
    a = -math.pi / 2 + np.arange(2 * points) * math.pi / points
    rr = np.where(np.arange(2 * points) % 2 == 0, r, r * inner)
    return np.stack([cx + rr * np.cos(a), cy + rr * np.sin(a)], 1)


def _heart_xy(cx: float, cy: float, r: float, flip: bool = False) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, 48, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    s = r / 16.5
    y = -y if flip else y
    return np.stack([cx + x * s, cy + (y + (1.5 if not flip else -1.5)) * s], 1)


def draw_symbol(img: np.ndarray, name: str, centre_xy, size_px: float, colour) -> None:
    """Draw symbol ``name`` centred at ``centre_xy``, about ``size_px`` tall, in place.

    The shape is rasterised into an anti-aliased mask first and then blended, so shapes with
    holes (the moon's crescent) work on any background.
    """
    h, w = img.shape[:2]
    r = size_px / 2.0
    x0, y0 = int(max(0, centre_xy[0] - 1.2 * r - 2)), int(max(0, centre_xy[1] - 1.2 * r - 2))
    x1, y1 = int(min(w, centre_xy[0] + 1.2 * r + 3)), int(min(h, centre_xy[1] + 1.2 * r + 3))
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    _shape(mask, name, float(centre_xy[0]) - x0, float(centre_xy[1]) - y0, r)
    a = (mask.astype(np.float32) * (1.0 / 255.0))[..., None]
    roi = img[y0:y1, x0:x1].astype(np.float32)
    col = np.asarray(colour, np.float32).reshape(1, 1, -1)
    img[y0:y1, x0:x1] = (roi + (col - roi) * a + 0.5).astype(np.uint8)


def _shape(m: np.ndarray, name: str, cx: float, cy: float, r: float) -> None:
    c = 255
    if name == "star":
        _poly(m, _star_xy(cx, cy, r), c)
    elif name == "moon":
        _disc(m, (cx, cy), r, c)
        _disc(m, (cx + 0.45 * r, cy - 0.2 * r), 0.85 * r, 0)
    elif name == "heart":
        _poly(m, _heart_xy(cx, cy, r), c)
    elif name == "clover":
        for dx, dy in ((0, -0.45), (-0.45, 0.12), (0.45, 0.12)):
            _disc(m, (cx + dx * r, cy + dy * r), 0.42 * r, c)
        _poly(m, [(cx - 0.1 * r, cy), (cx + 0.1 * r, cy), (cx + 0.25 * r, cy + r),
                  (cx - 0.25 * r, cy + r)], c)
    elif name == "diamond":
        _poly(m, [(cx, cy - r), (cx + 0.72 * r, cy), (cx, cy + r), (cx - 0.72 * r, cy)], c)
    elif name == "spade":
        _poly(m, _heart_xy(cx, cy - 0.1 * r, 0.9 * r, flip=True), c)
        _poly(m, [(cx - 0.08 * r, cy), (cx + 0.08 * r, cy), (cx + 0.3 * r, cy + r),
                  (cx - 0.3 * r, cy + r)], c)
    elif name == "sun":
        _poly(m, _star_xy(cx, cy, r, points=12, inner=0.7), c)
    elif name == "triangle":
        _poly(m, [(cx, cy - r), (cx + 0.9 * r, cy + 0.7 * r), (cx - 0.9 * r, cy + 0.7 * r)], c)
    elif name == "drop":
        t = np.linspace(0, 2 * math.pi, 40, endpoint=False)
        x = 0.62 * r * np.sin(t) * np.abs(np.sin(t / 2))
        y = r * np.cos(t)
        _poly(m, np.stack([cx + x, cy - y], 1), c)
    elif name == "cross":
        k = 0.3 * r
        _poly(m, [(cx - k, cy - r), (cx + k, cy - r), (cx + k, cy + r), (cx - k, cy + r)], c)
        _poly(m, [(cx - r, cy - k), (cx + r, cy - k), (cx + r, cy + k), (cx - r, cy + k)], c)
    elif name == "flower":
        for k in range(6):
            a = k * math.pi / 3
            _disc(m, (cx + 0.5 * r * math.cos(a), cy + 0.5 * r * math.sin(a)), 0.42 * r, c)
        _disc(m, (cx, cy), 0.3 * r, 0)
    elif name == "crown":
        _poly(m, [(cx - r, cy + 0.6 * r), (cx - r, cy - 0.6 * r), (cx - 0.5 * r, cy),
                  (cx, cy - 0.8 * r), (cx + 0.5 * r, cy), (cx + r, cy - 0.6 * r),
                  (cx + r, cy + 0.6 * r)], c)
    else:
        raise ValueError(f"unknown symbol {name!r}; expected one of {SYMBOL_NAMES}")
