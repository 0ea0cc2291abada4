"""Colour choices: palettes for designs and tables, contrast, and human colour names."""

from __future__ import annotations

import cv2
import numpy as np

BGR = tuple[int, int, int]

# Printed card backs cluster around saturated primaries, navy, maroon, black and gold; draw
# from such anchors most of the time and from the whole HSV cube the rest.
_ANCHORS_BGR: tuple[BGR, ...] = (
    (40, 40, 200), (40, 30, 140), (150, 60, 20), (90, 30, 20), (60, 130, 30), (30, 80, 20),
    (20, 20, 20), (40, 150, 200), (40, 190, 230), (130, 40, 110), (200, 140, 40), (235, 235, 235),
    (60, 90, 150), (30, 110, 200),
)

_HUE_NAMES = (
    (10, "red"), (22, "orange"), (34, "yellow"), (85, "green"), (100, "teal"), (130, "blue"),
    (160, "purple"), (180, "red"),
)


def hsv_bgr(h: float, s: float, v: float) -> BGR:
    """OpenCV HSV (h in 0..180, s and v in 0..255) to a BGR tuple."""
    px = np.uint8([[[int(h) % 180, int(np.clip(s, 0, 255)), int(np.clip(v, 0, 255))]]])
    b, g, r = cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


def jitter(colour: BGR, rng: np.random.Generator, amount: float = 18) -> BGR:
    """``colour`` with Gaussian noise of ``amount`` on each channel, clipped to 0-255."""
    c = np.asarray(colour, np.float64) + rng.normal(0, amount, 3)
    return tuple(int(v) for v in np.clip(c, 0, 255))  # type: ignore[return-value]


def random_colour(rng: np.random.Generator) -> BGR:
    """A card colour: mostly a jittered common card colour, else any hue."""
    if rng.random() < 0.6:
        return jitter(_ANCHORS_BGR[int(rng.integers(len(_ANCHORS_BGR)))], rng)
    return hsv_bgr(rng.uniform(0, 180), rng.uniform(40, 255), rng.uniform(30, 245))


def contrasting(colour, rng: np.random.Generator) -> BGR:
    """A colour that reads well on ``colour``: white, black, gold or a shifted hue."""
    lum = 0.114 * colour[0] + 0.587 * colour[1] + 0.299 * colour[2]
    u = rng.random()
    if u < 0.45:
        return (245, 245, 245) if lum < 140 else (25, 25, 25)
    if u < 0.65:
        return jitter((60, 175, 215), rng, 10)  # gold
    hsv = cv2.cvtColor(np.uint8([[colour]]), cv2.COLOR_BGR2HSV)[0, 0]
    v = 230 if lum < 128 else 50
    return hsv_bgr(float(hsv[0]) + rng.uniform(50, 130), rng.uniform(80, 255), v)


def random_palette(rng: np.random.Generator) -> tuple[BGR, BGR, BGR]:
    """Main colour, a second colour for the pattern, an accent for frames/overlays."""
    c1 = random_colour(rng)
    u = rng.random()
    if u < 0.35:  # tonal: lighter or darker shade of the main colour
        f = rng.choice([0.55, 0.7, 1.35, 1.6])
        c2 = tuple(int(v) for v in np.clip(np.asarray(c1) * f + (20 if f > 1 else 0), 0, 255))
    elif u < 0.7:
        c2 = contrasting(c1, rng)
    else:
        c2 = random_colour(rng)
    c3 = contrasting(c1, rng)
    return c1, c2, c3  # type: ignore[return-value]


def colour_name(design: np.ndarray) -> str:
    """A short human name for a design's dominant colour ("red", "navy-ish" is not needed)."""
    small = cv2.resize(design, (16, 24), interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float32)
    s, v = np.median(hsv[:, 1]), np.median(hsv[:, 2])
    if v < 60:
        return "black"
    if s < 45:
        return "white" if v > 190 else "grey"
    hue = float(np.median(hsv[hsv[:, 1] > 45, 0]))
    for limit, name in _HUE_NAMES:
        if hue < limit:
            return name
    return "red"
