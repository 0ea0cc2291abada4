"""Card fronts for face-up cards: Ligretto-style number cards and ordinary playing cards.

Face-up cards are in the scene so the detector learns to find them and the counter learns to
leave them out; their exact look matters less than being clearly "a front".
"""

from __future__ import annotations

import cv2
import numpy as np

from ...vision.geometry import CARD_LONG_MM, CARD_SHORT_MM
from .symbols import draw_symbol

#: The raster of every rendered card, front and back: the card's shape at 4 px/mm (236 x 364).
CARD_WH: tuple[int, int] = (4 * CARD_SHORT_MM, 4 * CARD_LONG_MM)

# Ligretto's four front colours, BGR
LIGRETTO_COLOURS = ((40, 40, 210), (60, 150, 40), (190, 110, 30), (30, 200, 240))
_SUITS = (("heart", (30, 30, 200)), ("diamond", (30, 30, 200)), ("spade", (25, 25, 25)),
          ("clover", (25, 25, 25)))
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
# pip positions (x, y) in units of the pip area, for ranks 2..10
_PIPS = {
    2: [(0.5, 0), (0.5, 1)], 3: [(0.5, 0), (0.5, 0.5), (0.5, 1)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)], 5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1),
        (1, 1)],
    10: [(0, 0), (1, 0), (0.5, 1 / 6), (0, 1 / 3), (1, 1 / 3), (0, 2 / 3), (1, 2 / 3),
         (0.5, 5 / 6), (0, 1), (1, 1)],
}


def _put_centred(img, text, centre_xy, height_px, colour, thickness, font=cv2.FONT_HERSHEY_DUPLEX):
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thickness)
    scale = height_px / max(th, 1)
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    org = (int(centre_xy[0] - tw / 2), int(centre_xy[1] + th / 2))
    cv2.putText(img, text, org, font, scale, colour, thickness, cv2.LINE_AA)


def ligretto_front(rng: np.random.Generator, card_wh=CARD_WH, number: int | None = None,
                   colour_index: int | None = None) -> np.ndarray:
    """A Ligretto-like front: white rim, coloured face, big number 1-10, small corner numbers."""
    w, h = card_wh
    number = int(rng.integers(1, 11)) if number is None else number
    ci = int(rng.integers(4)) if colour_index is None else colour_index
    colour = LIGRETTO_COLOURS[ci]
    img = np.full((h, w, 3), 245, np.uint8)
    rim = int(w * 0.06)
    cv2.rectangle(img, (rim, rim), (w - 1 - rim, h - 1 - rim), colour, -1)
    text = str(number)
    thick = max(2, w // 22)
    cv2.ellipse(img, (w // 2, h // 2), (int(w * 0.36), int(h * 0.3)), 0, 0, 360, (250, 250, 250),
                -1, cv2.LINE_AA)
    _put_centred(img, text, (w / 2, h / 2), h * 0.3, colour, thick)
    for cx, cy, _flip in ((w * 0.18, h * 0.1, False), (w * 0.82, h * 0.9, True)):
        _put_centred(img, text, (cx, cy), h * 0.07, (250, 250, 250), max(1, thick // 3))
    return img


def playing_card_front(rng: np.random.Generator, card_wh=CARD_WH, court_style: str = "flat") -> np.ndarray:
    """An ordinary playing card: white face, corner index, suit pips or a court picture.

    ``court_style`` "flat" paints a court card's picture as two colour bands (what every
    benchmark split was rendered with); "figure" paints a busy, many-coloured picture with
    printed lines, closer to real court cards, whose printed lines a detector must not take
    for card edges.
    """
    w, h = card_wh
    rank = str(rng.choice(_RANKS))
    suit, ink = _SUITS[int(rng.integers(4))]
    img = np.full((h, w, 3), 0, np.uint8)
    img[:] = rng.integers(232, 252, 3).astype(np.uint8)
    thick = max(1, w // 70)
    for x, y, up in ((0.1, 0.08, True), (0.9, 0.92, False)):
        _put_centred(img, rank, (w * x, h * y), h * 0.055, ink, thick)
        dy = 0.075 if up else -0.075
        draw_symbol(img, suit, (w * x, h * (y + dy)), h * 0.05, ink)
    x0, x1, y0, y1 = w * 0.28, w * 0.72, h * 0.17, h * 0.83
    if rank in ("J", "Q", "K"):
        cv2.rectangle(img, (int(w * 0.22), int(h * 0.15)), (int(w * 0.78), int(h * 0.85)), ink, 2,
                      cv2.LINE_AA)
        face_hw = (int(h * 0.68), int(w * 0.54))
        face = _court_figure(rng, face_hw) if court_style == "figure" else _court_bands(face_hw)
        img[int(h * 0.16): int(h * 0.16) + face.shape[0], int(w * 0.23): int(w * 0.23)
            + face.shape[1]] = face
        if court_style == "flat":
            _put_centred(img, rank, (w / 2, h / 2), h * 0.12, ink, thick * 2)
    elif rank == "A":
        draw_symbol(img, suit, (w / 2, h / 2), h * 0.22, ink)
    else:
        for px, py in _PIPS[int(rank)]:
            draw_symbol(img, suit, (x0 + (x1 - x0) * px, y0 + (y1 - y0) * py), h * 0.1, ink)
    return img


def _court_bands(face_hw: tuple[int, int]) -> np.ndarray:
    face = np.full((*face_hw, 3), 0, np.uint8)
    face[:] = (60, 170, 220)
    half = face.shape[0] // 2
    face[half // 3: half] = (40, 40, 180)
    face[half:] = face[:half + (face.shape[0] % 2)][::-1, ::-1][: face.shape[0] - half]
    return face


# Court-card inks (BGR): red, blue, yellow, black, flesh, white
_COURT_INKS = ((40, 40, 190), (150, 70, 30), (40, 190, 230), (30, 30, 30), (150, 180, 230),
               (245, 245, 245))


def _court_figure(rng: np.random.Generator, face_hw: tuple[int, int]) -> np.ndarray:
    """A court card's picture: filled shapes in the classic inks, outlined in black, with
    the lower half the upper half turned by 180 degrees (as printed court cards are)."""
    height, width = face_hw
    half_h = (height + 1) // 2
    top = np.full((half_h, width, 3), 0, np.uint8)
    top[:] = _COURT_INKS[5] if rng.random() < 0.5 else _COURT_INKS[2]
    for _ in range(int(rng.integers(6, 14))):
        centre = rng.uniform((0, 0), (width, half_h))
        n_points = int(rng.integers(3, 7))
        radius = rng.uniform(0.08, 0.35) * width
        angles = np.sort(rng.uniform(0, 2 * np.pi, n_points))
        radii = radius * rng.uniform(0.5, 1.0, n_points)
        points = centre + np.stack([np.cos(angles) * radii, np.sin(angles) * radii], axis=1)
        points = np.round(points).astype(np.int32)
        colour = _COURT_INKS[int(rng.integers(5))]
        cv2.fillPoly(top, [points], colour, cv2.LINE_AA)
        cv2.polylines(top, [points], True, _COURT_INKS[3], 1, cv2.LINE_AA)
    for _ in range(int(rng.integers(4, 12))):  # hair, folds of the robe: thin dark strokes
        a = rng.uniform((0, 0), (width, half_h))
        b = a + rng.normal(0, 0.2 * width, 2)
        cv2.line(top, tuple(int(v) for v in a), tuple(int(v) for v in b), _COURT_INKS[3], 1,
                 cv2.LINE_AA)
    face = np.concatenate([top, top[::-1, ::-1]])[:height]
    return face


def random_front(rng: np.random.Generator, card_wh=CARD_WH, court_style: str = "flat",
                 ordinary_share: float = 0.4) -> np.ndarray:
    """A random face-up card: an ordinary playing card (``ordinary_share`` of them) or a
    Ligretto-style one."""
    if rng.random() < 1.0 - ordinary_share:
        return ligretto_front(rng, card_wh)
    return playing_card_front(rng, card_wh, court_style)
