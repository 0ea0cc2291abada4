"""Procedural table surfaces in the table plane: wood, felt, cloth, laminate, tablecloths.

Textures are drawn in table coordinates and warped by the camera afterwards, so wood grain and
tablecloth checks converge with perspective like in a photo. Some tables take a base colour close
to a deck's back colour and some are white, because those are the hard cases for a detector
(card edges against a same-coloured table, white-bordered cards on a white desk).
"""

from __future__ import annotations

import cv2
import numpy as np

from .palette import hsv_bgr, jitter

TABLE_KINDS: tuple[str, ...] = ("wood", "felt", "cloth", "laminate", "tablecloth")
_TABLE_P = (0.3, 0.15, 0.15, 0.25, 0.15)
#: Drawn only when asked for (a render option or ``kind=``), so that the default mixture, and
#: with it every benchmark split rendered from fixed seeds, keeps its bytes.
EXTRA_TABLE_KINDS: tuple[str, ...] = ("knit",)
ALL_TABLE_KINDS: tuple[str, ...] = TABLE_KINDS + EXTRA_TABLE_KINDS

_WOODS = ((60, 105, 160), (40, 75, 120), (90, 140, 190), (35, 55, 85), (110, 160, 200),
          (50, 90, 150))
_FELTS = ((40, 110, 30), (35, 85, 20), (110, 60, 20), (40, 40, 130), (60, 60, 60), (90, 40, 40))
# cream, oatmeal, light grey, off-white, mid grey, beige: chunky throws are mostly undyed wool tones
_KNITS = ((200, 215, 228), (180, 196, 212), (205, 210, 214), (226, 232, 238), (150, 155, 160),
          (170, 190, 215))
_LAMINATES = ((235, 235, 235), (225, 228, 230), (200, 205, 210), (170, 190, 205), (120, 120, 120),
              (40, 40, 40), (215, 225, 235), (185, 200, 200))


def _noise(rng, wh: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Smooth value noise in about [-1, 1], ``cells`` = (cols, rows) of the random grid."""
    small = rng.standard_normal((max(2, cells[1]), max(2, cells[0]))).astype(np.float32)
    return cv2.resize(small, wh, interpolation=cv2.INTER_CUBIC)


def _fbm(rng, wh, base_cells: int, octaves: int = 3) -> np.ndarray:
    w, h = wh
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for k in range(octaves):
        c = base_cells * (2**k)
        out += amp * _noise(rng, wh, (c, max(2, c * h // max(w, 1))))
        total += amp
        amp *= 0.5
    return out / total


def _shade(base, field: np.ndarray) -> np.ndarray:
    """Colour ``base`` modulated by a relative brightness field (1 = unchanged)."""
    f = np.ascontiguousarray(field, np.float32)
    return cv2.merge([f * np.float32(c) for c in base])


def _aniso(rng, wh, cells_wh) -> np.ndarray:
    """Smooth noise with different cell counts along x and y (grain-like when stretched)."""
    return cv2.resize(rng.standard_normal((max(2, cells_wh[1]), max(2, cells_wh[0])))
                      .astype(np.float32), wh, interpolation=cv2.INTER_CUBIC)


def _wood(rng, wh, px_per_mm, base):
    """Planks with the grain along x: long growth-ring lines that meander slowly, fine pores,
    per-plank tone and dark joints; rotated by 90 degrees half the time."""
    w, h = wh
    turn = rng.random() < 0.5
    if turn:
        w, h = h, w
    w_mm, h_mm = w / px_per_mm, h / px_per_mm
    plank_mm = rng.uniform(80, 200)
    y_mm = np.arange(h, dtype=np.float32)[:, None] / px_per_mm
    plank = np.floor(y_mm / plank_mm + rng.uniform(0, 1))
    # ring phase: across-grain position plus slow along-grain meander (one noise per plank
    # would be best; a shared one offset per plank is close enough and cheaper)
    meander = _aniso(rng, (w, h), (max(2, int(w_mm / 400)), max(2, int(h_mm / 25))))
    period = rng.uniform(3, 10)
    phase = (y_mm + meander * rng.uniform(2, 8) + plank * 37.0) / period
    rings = np.abs(np.sin(np.pi * phase)) ** rng.uniform(0.3, 3)
    pores = _aniso(rng, (w, h), (max(2, int(w_mm / 15)), max(2, int(h_mm * 1.2))))
    tone = 1 + 0.07 * np.sin(plank * 12.9898 + rng.uniform(0, 6))
    gap = np.clip(np.abs((y_mm / plank_mm) - np.round(y_mm / plank_mm)) * plank_mm / 0.5, 0, 1)
    contrast = rng.uniform(0.08, 0.3)
    field = tone * (1 - contrast + contrast * rings + 0.035 * pores) * (0.55 + 0.45 * gap)
    field *= 1 + 0.05 * _fbm(rng, (w, h), 3)
    img = _shade(base, field.astype(np.float32))
    return np.ascontiguousarray(img.transpose(1, 0, 2)) if turn else img


def _felt(rng, wh, px_per_mm, base):
    w, h = wh
    field = 1 + 0.06 * _fbm(rng, wh, 6) + 0.05 * rng.standard_normal((h, w)).astype(np.float32)
    return _shade(base, cv2.GaussianBlur(field, (0, 0), 0.7))


def _cloth(rng, wh, px_per_mm, base):
    """Woven or knitted fabric: a fine periodic structure plus folds."""
    w, h = wh
    y, x = np.mgrid[0:h, 0:w].astype(np.float32) / px_per_mm
    period = rng.uniform(1.5, 6)
    if rng.random() < 0.5:  # knit: rows of chevrons, like a blanket
        f = np.abs(np.sin(np.pi * x / period)) * 0.5 + np.sin(2 * np.pi * (y / period + x / (
            2 * period)))
        weave = 0.5 + 0.25 * f
    else:
        weave = 0.5 + 0.25 * (np.sin(2 * np.pi * x / period) * np.sin(2 * np.pi * y / period))
    folds = _fbm(rng, wh, 3) * rng.uniform(0.05, 0.2)
    return _shade(base, 0.85 + 0.3 * weave * rng.uniform(0.3, 1) + folds)


def _knit(rng, wh, px_per_mm, base):
    """Chunky hand knit, like a throw or blanket the cards were dealt on: columns of V-shaped
    stitches 8-20 mm wide with dark gaps between the columns and between a stitch's two legs,
    draped in big soft folds that bend the columns and shade whole regions. Cards on a cream
    knit are white on a bright, busy ground with no straight edges of its own, which plain
    cloth does not teach."""
    w, h = wh
    y, x = np.mgrid[0:h, 0:w].astype(np.float32) / px_per_mm
    angle = rng.uniform(0, np.pi)
    col_mm = rng.uniform(8, 20)
    row_mm = col_mm * rng.uniform(0.55, 0.9)
    drape_mm = rng.uniform(2, 12)
    u = x * np.cos(angle) + y * np.sin(angle) + drape_mm * _fbm(rng, wh, 3)
    v = -x * np.sin(angle) + y * np.cos(angle) + drape_mm * _fbm(rng, wh, 3)
    across = u / col_mm
    fu = across - np.floor(across) - 0.5  # -0.5 .. 0.5 across one column
    legs = np.abs(np.sin(2 * np.pi * fu)) ** 0.7  # two legs, dark at the centre and the gaps
    along = np.abs(np.sin(np.pi * (v / row_mm + 0.9 * np.abs(fu)))) ** 0.5  # the V slant
    depth = rng.uniform(0.4, 0.7)
    stitch = 1 - depth + depth * legs * along
    fold_cells = max(2, int(w / px_per_mm / rng.uniform(120, 300)))  # folds every 12-30 cm
    folds = 1 + rng.uniform(0.15, 0.4) * _fbm(rng, wh, fold_cells, octaves=2)
    fibre = 1 + 0.04 * rng.standard_normal((h, w)).astype(np.float32)
    field = cv2.GaussianBlur(stitch * fibre, (0, 0), 0.6) * folds
    return _shade(base, field.astype(np.float32))


def _laminate(rng, wh, px_per_mm, base):
    w, h = wh
    field = 1 + 0.03 * _fbm(rng, wh, 3)
    img = _shade(base, field)
    if rng.random() < 0.6:  # speckled desk tops
        n = int(w * h * rng.uniform(0.0005, 0.004))
        ys, xs = rng.integers(0, h, n), rng.integers(0, w, n)
        img[ys, xs] *= rng.uniform(0.3, 1.3, (n, 1)).astype(np.float32)
    return img


def _tablecloth(rng, wh, px_per_mm, base):
    w, h = wh
    y, x = np.mgrid[0:h, 0:w].astype(np.float32) / px_per_mm
    angle = rng.uniform(0, np.pi)
    u = x * np.cos(angle) + y * np.sin(angle)
    v = -x * np.sin(angle) + y * np.cos(angle)
    period = rng.uniform(12, 60)
    other = np.asarray((245, 245, 245) if rng.random() < 0.6 else jitter(base, rng, 60), np.float32)
    bands_u = ((u / period) % 1 < 0.5).astype(np.float32)
    kind = rng.integers(3)
    if kind == 0:  # gingham
        t = 0.5 * bands_u + 0.5 * ((v / period) % 1 < 0.5).astype(np.float32)
    elif kind == 1:  # stripes
        t = bands_u
    else:  # polka dots
        du, dv = (u / period) % 1 - 0.5, (v / period) % 1 - 0.5
        t = (du * du + dv * dv < 0.09).astype(np.float32)
    t = cv2.GaussianBlur(t, (0, 0), 0.6)
    img = np.asarray(base, np.float32) + (other - np.asarray(base, np.float32)) * (1 - t[..., None])
    folds = 1 + _fbm(rng, wh, 3) * rng.uniform(0.04, 0.15)
    return img * folds[..., None]


_KIND_FN = {"wood": _wood, "felt": _felt, "cloth": _cloth, "laminate": _laminate,
            "tablecloth": _tablecloth, "knit": _knit}


def random_table(
    rng: np.random.Generator,
    size_wh: tuple[int, int],
    px_per_mm: float,
    kind: str | None = None,
    near_colour=None,
    white: bool = False,
) -> tuple[np.ndarray, dict]:
    """Render a table texture of ``size_wh`` pixels at ``px_per_mm`` (float32 BGR, 0..255).

    ``near_colour`` gives the table a base colour close to it (a deck colour); ``white`` makes a
    white or near-white table. Returns the texture and a dict of the choices made.
    """
    kind = kind or str(rng.choice(TABLE_KINDS, p=_TABLE_P))
    if kind not in _KIND_FN:
        raise ValueError(f"unknown table kind {kind!r}; expected one of {ALL_TABLE_KINDS}")
    if white:
        base = jitter((238, 240, 242), rng, 6)
    elif near_colour is not None:
        base = jitter(tuple(int(c) for c in near_colour), rng, 14)
    elif kind == "wood":
        base = jitter(_WOODS[int(rng.integers(len(_WOODS)))], rng, 12)
    elif kind == "felt":
        base = jitter(_FELTS[int(rng.integers(len(_FELTS)))], rng, 12)
    elif kind == "knit" and rng.random() < 0.8:
        base = jitter(_KNITS[int(rng.integers(len(_KNITS)))], rng, 8)
    elif kind == "laminate":
        base = jitter(_LAMINATES[int(rng.integers(len(_LAMINATES)))], rng, 8)
    else:
        base = hsv_bgr(rng.uniform(0, 180), rng.uniform(30, 200), rng.uniform(90, 230))
    img = _KIND_FN[kind](rng, size_wh, px_per_mm, base)
    return np.clip(img, 0, 255).astype(np.float32, copy=False), {"kind": kind, "base_bgr": list(base), "white": white,
                                  "near_deck_colour": near_colour is not None}
