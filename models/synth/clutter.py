"""Things on and around the table that are not cards: a table edge with the floor beyond, score
pads, phones, pens, coins, keyboards.

Real photos (see the cardcounterml set) are full of these; they teach the detector that a
light rectangle is not automatically a card. They are drawn flat into the table texture before
the cards, outside the cards' area, so they never change a label (they are "table").
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .palette import hsv_bgr, jitter

OBJECT_KINDS: tuple[str, ...] = ("pad", "phone", "pen", "coin", "keyboard", "box")


def _rect(cx, cy, w, h, angle_rad) -> np.ndarray:
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return local @ np.array([[c, s], [-s, c]]) + (cx, cy)


def _fill(img, pts, colour) -> None:
    cv2.fillPoly(img, [np.round(pts * 8).astype(np.int32)], tuple(float(v) for v in colour),
                 cv2.LINE_AA, 3)


def _shadow(img, pts, px_per_mm, depth: float, height_mm: float) -> None:
    """Soft shadow of a raised object: darken a blurred, offset copy of its outline."""
    sigma = max(1.0, height_mm * px_per_mm * 0.8)
    moved = pts + height_mm * px_per_mm * np.array([0.4, 0.6])
    h, w = img.shape[:2]
    x0, y0 = (np.floor(moved.min(0) - 3 * sigma)).astype(int)
    x1, y1 = (np.ceil(moved.max(0) + 3 * sigma)).astype(int)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return
    m = np.zeros((y1 - y0, x1 - x0), np.float32)
    _fill(m, moved - (x0, y0), (1.0,))
    m = 1 - depth * cv2.GaussianBlur(m, (0, 0), sigma)
    img[y0:y1, x0:x1] = cv2.multiply(img[y0:y1, x0:x1], cv2.merge([m, m, m]))


def _draw(rng, img, kind, cx, cy, angle, ppm, busy: bool = False) -> None:
    if kind == "pad":  # score pad: off-white paper, ruled lines, a few pencil strokes
        w, h = rng.uniform(90, 150) * ppm, rng.uniform(130, 210) * ppm
        pts = _rect(cx, cy, w, h, angle)
        _shadow(img, pts, ppm, 0.2, 1.5)
        _fill(img, pts, jitter((236, 240, 242), rng, 6))
        ink = (150, 110, 60)
        for k in range(1, int(h / (8 * ppm))):
            t = k * 8 * ppm / h
            a, b = pts[0] + (pts[3] - pts[0]) * t, pts[1] + (pts[2] - pts[1]) * t
            cv2.line(img, tuple(int(v) for v in a), tuple(int(v) for v in b), ink, 1, cv2.LINE_AA)
        for _ in range(int(rng.integers(3, 12))):
            p = pts[0] + (pts[1] - pts[0]) * rng.uniform(0.1, 0.8) + (pts[3] - pts[0]) * rng.uniform(
                0.1, 0.9)
            q = p + rng.normal(0, 5 * ppm, 2)
            cv2.line(img, tuple(int(v) for v in p), tuple(int(v) for v in q), (60, 60, 70),
                     max(1, int(0.5 * ppm)), cv2.LINE_AA)
    elif kind == "phone":
        w, h = rng.uniform(68, 78) * ppm, rng.uniform(140, 165) * ppm
        pts = _rect(cx, cy, w, h, angle)
        _shadow(img, pts, ppm, 0.45, 6)
        _fill(img, pts, jitter((30, 30, 32), rng, 8))
        _fill(img, _rect(cx, cy, w * 0.9, h * 0.93, angle), jitter((45, 42, 40), rng, 6))
    elif kind == "pen":
        w, h = rng.uniform(7, 11) * ppm, rng.uniform(120, 150) * ppm
        pts = _rect(cx, cy, w, h, angle)
        _shadow(img, pts, ppm, 0.4, 4)
        _fill(img, pts, hsv_bgr(rng.uniform(0, 180), rng.uniform(50, 255), rng.uniform(40, 230)))
    elif kind == "coin":
        r = rng.uniform(9, 13) * ppm
        base = jitter((90, 150, 180) if rng.random() < 0.5 else (170, 170, 165), rng, 15)
        _shadow(img, _rect(cx, cy, 1.8 * r, 1.8 * r, 0.0), ppm, 0.3, 1.5)
        cv2.circle(img, (int(cx), int(cy)), int(r), tuple(float(v) for v in base), -1,
                   cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), int(r * 0.8), tuple(float(v) * 0.85 for v in base), 1,
                   cv2.LINE_AA)
    elif kind == "keyboard":
        w, h = rng.uniform(280, 440) * ppm, rng.uniform(110, 150) * ppm
        dark = rng.random() < 0.6
        body = jitter((35, 35, 38) if dark else (225, 225, 222), rng, 6)
        key = jitter((55, 55, 58) if dark else (245, 245, 242), rng, 6)
        pts = _rect(cx, cy, w, h, angle)
        _shadow(img, pts, ppm, 0.45, 10)
        _fill(img, pts, body)
        kw = 18 * ppm
        # Pale keyboards have faint skirts and often no legible letters from above.
        skirt = float(rng.uniform(0.6, 0.95)) if busy else 0.6
        lettered = bool(rng.random() < 0.6) if busy else True
        cols, rows = int(w / (19 * ppm)), int(h / (19 * ppm))
        c, s = math.cos(angle), math.sin(angle)
        for r_ in range(rows):
            for c_ in range(cols):
                lx = (c_ - (cols - 1) / 2) * 19 * ppm
                ly = (r_ - (rows - 1) / 2) * 19 * ppm
                kx, ky = cx + lx * c - ly * s, cy + lx * s + ly * c
                if busy:  # a raised key: darker skirt, lit cap, a printed letter
                    _fill(img, _rect(kx, ky, kw * 0.92, kw * 0.92, angle),
                          tuple(v * skirt for v in key))
                    _fill(img, _rect(kx - 0.6 * ppm, ky - 0.8 * ppm, kw * 0.72, kw * 0.72,
                                     angle), key)
                    # the key's letter: a short stroke or two (putText needs 8-bit images)
                    ink = tuple(255 - v for v in key)
                    for _stroke in range(int(rng.integers(0, 3)) if lettered else 0):
                        a = np.array([kx, ky]) + rng.normal(0, 2.5 * ppm, 2)
                        b = a + rng.normal(0, 3 * ppm, 2)
                        cv2.line(img, tuple(int(v) for v in a), tuple(int(v) for v in b), ink,
                                 max(1, int(0.6 * ppm)), cv2.LINE_AA)
                else:
                    _fill(img, _rect(kx, ky, kw * 0.85, kw * 0.85, angle), key)
    else:  # box: a game box lid with a printed title
        w, h = rng.uniform(90, 200) * ppm, rng.uniform(90, 200) * ppm
        pts = _rect(cx, cy, w, h, angle)
        _shadow(img, pts, ppm, 0.45, 25)
        col = hsv_bgr(rng.uniform(0, 180), rng.uniform(80, 255), rng.uniform(80, 230))
        _fill(img, pts, col)
        _fill(img, _rect(cx, cy, w * 0.8, h * 0.25, angle), jitter((240, 240, 240), rng, 10))


def add_clutter(rng: np.random.Generator, tex: np.ndarray, px_per_mm: float,
                keepout_px: np.ndarray, max_objects: int = 4, busy: bool = False) -> dict:
    """Draw a table edge and a few objects into the float32 texture, outside ``keepout_px``
    (x0, y0, x1, y1). Returns what was drawn.

    ``busy`` (training only; the benchmark splits keep the sparse clutter they were rendered
    with) draws more objects, keyboards three times as often and with raised keys (pale ones
    with faint skirts, some unlettered), and places each object by its own turned extent, so
    that it may lie right beside the cards: in real photos a keyboard's keys are the commonest
    card-like things that are no cards.
    """
    h, w = tex.shape[:2]
    info: dict = {"objects": []}
    if rng.random() < 0.35:
        info["table_edge"] = _table_edge(rng, tex, px_per_mm, keepout_px)
    weights = [0.2, 0.15, 0.15, 0.1, 0.3, 0.1] if busy else [0.25, 0.2, 0.2, 0.15, 0.1, 0.1]
    for _ in range(int(rng.integers(0, max_objects + (2 if busy else 0) + 1))):
        kind = str(rng.choice(OBJECT_KINDS, p=weights))
        for _try in range(8):
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            k = keepout_px
            if busy:
                # The object's own turned extent, not its bounding circle: a keyboard may lie
                # along the cards, as in real photos, instead of a keyboard's length away.
                angle = rng.uniform(0, math.pi)
                half_w, half_h = _MAX_HALF_MM[kind]
                c, s_ = abs(math.cos(angle)), abs(math.sin(angle))
                rx = (c * half_w + s_ * half_h) * px_per_mm
                ry = (s_ * half_w + c * half_h) * px_per_mm
            else:
                r = {"keyboard": 230, "box": 140, "pad": 130, "phone": 85, "pen": 75,
                     "coin": 13}[kind]
                rx = ry = r * px_per_mm
            if cx + rx < k[0] or cx - rx > k[2] or cy + ry < k[1] or cy - ry > k[3]:
                if not busy:  # drawn only now, as before, so sparse renders keep their bytes
                    angle = rng.uniform(0, math.pi)
                _draw(rng, tex, kind, cx, cy, angle, px_per_mm, busy)
                info["objects"].append(kind)
                break
    return info


#: Half of each object's largest width and height in mm (as ``_draw`` draws them, shadow
#: included), for placing it beside the cards.
_MAX_HALF_MM = {"keyboard": (225.0, 80.0), "box": (110.0, 110.0), "pad": (80.0, 110.0),
                "phone": (45.0, 88.0), "pen": (10.0, 80.0), "coin": (15.0, 15.0)}


def _table_edge(rng, tex, ppm, keepout) -> dict:
    """Replace everything beyond a line near one side of the cards with a dim, blurred floor."""
    h, w = tex.shape[:2]
    side = int(rng.integers(4))
    gap = rng.uniform(20, 250) * ppm
    tilt = rng.normal(0, 0.15)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    if side == 0:
        d = keepout[0] - gap - x + tilt * (y - h / 2)
    elif side == 1:
        d = x - keepout[2] - gap + tilt * (y - h / 2)
    elif side == 2:
        d = keepout[1] - gap - y + tilt * (x - w / 2)
    else:
        d = y - keepout[3] - gap + tilt * (x - w / 2)
    beyond = np.clip(d + 0.5, 0, 1)
    if beyond.max() == 0:
        return {"visible": False}
    floor = cv2.GaussianBlur(tex, (0, 0), 6 * ppm + 1) * rng.uniform(0.25, 0.6)
    floor *= np.asarray(jitter((100, 110, 120), rng, 40), np.float32) / 110
    rim = np.clip(1 - np.abs(d + 1.5 * ppm) / (1.5 * ppm), 0, 1) * rng.uniform(0.0, 0.5)
    tex *= (1 - beyond)[..., None]
    tex += floor * beyond[..., None]
    tex += (255 - tex) * rim[..., None]
    return {"visible": True, "side": side}
