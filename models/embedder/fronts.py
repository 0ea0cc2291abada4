"""Face-up card fronts for training the face-up head: Ligretto-style numbers and ordinary cards.

Used only while ``cardtally.models.synth.designs.random_front`` is not available, and mixed with
it when it is, so that the head sees more than one renderer's idea of a front.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..synth.fronts import CARD_WH

_LIGRETTO_BGR = ((40, 40, 215), (60, 160, 40), (200, 90, 30), (30, 200, 240))
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX)


def _text(img, text, centre_xy, height_px, colour, font, thickness_scale=1.8):
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = height_px / max(th, 1)
    thickness = max(1, int(scale * thickness_scale))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    org = (int(centre_xy[0] - tw / 2), int(centre_xy[1] + th / 2))
    cv2.putText(img, text, org, font, scale, colour, thickness, cv2.LINE_AA)


def _pip(img, kind, centre_xy, r, colour):
    cx, cy = centre_xy
    if kind == 0:  # diamond
        pts = np.array([[cx, cy - r], [cx + 0.75 * r, cy], [cx, cy + r], [cx - 0.75 * r, cy]])
        cv2.fillConvexPoly(img, pts.astype(np.int32), colour, cv2.LINE_AA)
    elif kind == 1:  # heart-ish
        cv2.circle(img, (int(cx - r / 2), int(cy - r / 3)), int(r / 2), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx + r / 2), int(cy - r / 3)), int(r / 2), colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - r, cy - r / 4], [cx + r, cy - r / 4], [cx, cy + r]])
        cv2.fillConvexPoly(img, pts.astype(np.int32), colour, cv2.LINE_AA)
    elif kind == 2:  # club-ish
        for dx, dy in ((0, -0.45), (-0.45, 0.1), (0.45, 0.1)):
            cv2.circle(img, (int(cx + dx * r), int(cy + dy * r)), int(r * 0.42), colour, -1,
                       cv2.LINE_AA)
        cv2.rectangle(img, (int(cx - r * 0.1), int(cy)), (int(cx + r * 0.1), int(cy + r)), colour, -1)
    else:  # spade-ish
        pts = np.array([[cx, cy - r], [cx + r * 0.8, cy + r * 0.3], [cx - r * 0.8, cy + r * 0.3]])
        cv2.fillConvexPoly(img, pts.astype(np.int32), colour, cv2.LINE_AA)
        cv2.rectangle(img, (int(cx - r * 0.1), int(cy)), (int(cx + r * 0.1), int(cy + r)), colour, -1)


def random_front(rng: np.random.Generator, card_wh: tuple[int, int] = CARD_WH) -> np.ndarray:
    """A random face-up card, HxWx3 uint8 BGR: Ligretto number card or an ordinary playing card."""
    w, h = card_wh
    font = _FONTS[int(rng.integers(0, len(_FONTS)))]
    if rng.random() < 0.5:  # Ligretto: coloured card, big number, small corner numbers
        colour = np.array(_LIGRETTO_BGR[int(rng.integers(0, 4))], np.float32)
        colour = np.clip(colour + rng.normal(0, 18, 3), 0, 255)
        img = np.empty((h, w, 3), np.uint8)
        img[:] = colour.astype(np.uint8)
        if rng.random() < 0.6:  # white frame
            b = int(w * rng.uniform(0.03, 0.08))
            cv2.rectangle(img, (0, 0), (w - 1, h - 1), (245, 245, 245), b * 2)
        number = str(int(rng.integers(1, 11)))
        ink = (255, 255, 255) if rng.random() < 0.7 else (20, 20, 20)
        if rng.random() < 0.5:
            cv2.ellipse(img, (w // 2, h // 2), (int(w * 0.36), int(h * 0.28)), 0, 0, 360,
                        (250, 250, 250), -1, cv2.LINE_AA)
            ink = tuple(int(v) for v in colour)
        _text(img, number, (w / 2, h / 2), h * rng.uniform(0.25, 0.4), ink, font)
        for cx, cy in ((0.14 * w, 0.1 * h), (0.86 * w, 0.9 * h)):
            _text(img, number, (cx, cy), h * 0.07, ink if rng.random() < 0.5 else (250, 250, 250),
                  font, 1.2)
        return img
    paper = rng.integers(225, 256, 3)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = paper.astype(np.uint8)
    red = rng.random() < 0.5
    ink = (30, 30, 200) if red else (25, 25, 25)
    kind = int(rng.integers(0, 2)) if red else int(rng.integers(2, 4))
    rank = str(rng.choice(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]))
    for cx, cy, flip in ((0.12 * w, 0.09 * h, False), (0.88 * w, 0.91 * h, True)):
        _text(img, rank, (cx, cy), h * 0.055, ink, font, 1.2)
        _pip(img, kind, (cx, cy + (-1 if flip else 1) * h * 0.08), h * 0.025, ink)
    if rank in ("J", "Q", "K") or rng.random() < 0.15:  # court card: a framed picture
        cv2.rectangle(img, (int(0.22 * w), int(0.16 * h)), (int(0.78 * w), int(0.84 * h)), ink, 2)
        for _ in range(int(rng.integers(4, 12))):
            c = tuple(int(v) for v in rng.integers(0, 256, 3))
            p = (int(rng.uniform(0.25, 0.75) * w), int(rng.uniform(0.2, 0.8) * h))
            cv2.circle(img, p, int(rng.uniform(0.03, 0.15) * w), c, -1, cv2.LINE_AA)
    else:
        count = 1 if rank == "A" else (int(rank) if rank.isdigit() else 1)
        cols = 1 if count <= 3 else 2
        rows = int(np.ceil(count / cols))
        k = 0
        for r in range(rows):
            for c in range(cols):
                if k >= count:
                    break
                x = w * (0.5 if cols == 1 else (0.33 + 0.34 * c))
                y = h * (0.5 if rows == 1 else 0.22 + 0.56 * r / (rows - 1))
                _pip(img, kind, (x, y), h * (0.12 if count == 1 else 0.045), ink)
                k += 1
    return img
