"""Procedural card-back designs, Ligretto-style families, and designs loaded from image files.

A design is an HxWx3 uint8 BGR image of the whole back (rounded corners are cut at render time).
Variety is the point: the back-identification embedder must learn "same design or not" for
designs it has never seen, so every random choice below widens the distribution of real backs
(solid colours, stripes, checks, dots, waves, sunbursts, rosettes, frames, logos, photo-like
gradients, with or without a white border).
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np

from .fronts import CARD_WH, random_front
from .palette import contrasting, random_palette
from .symbols import SYMBOL_NAMES, draw_symbol

__all__ = ["CARD_WH", "design_family", "load_design", "named_design_family",
           "random_back_design", "random_front"]

_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
)


@functools.lru_cache(maxsize=8)
def _grid(card_wh: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates centred on the card, in units of the card width (read-only)."""
    w, h = card_wh
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    x = (x - (w - 1) / 2) / w
    y = (y - (h - 1) / 2) / w
    x.setflags(write=False)
    y.setflags(write=False)
    return x, y


def _rot(x: np.ndarray, y: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    c, s = np.float32(np.cos(angle)), np.float32(np.sin(angle))
    return x * c + y * s, -x * s + y * c


def _smoothstep_wave(v: np.ndarray, duty: float, soft: float) -> np.ndarray:
    """Periodic 0/1 band pattern of a phase ``v`` (period 1) with softened edges."""
    f = v - np.floor(v)
    return np.clip((np.minimum(f, 1 - f) * 2 - (1 - duty)) / soft + 0.5, 0, 1)


# -- pattern fields: each returns float32 HxW in [0, 1] that blends two colours -------------------

def _stripes(rng, x, y):
    angle = rng.choice([0, np.pi / 2, np.pi / 4, -np.pi / 4, rng.uniform(0, np.pi)])
    u, _ = _rot(x, y, angle)
    return _smoothstep_wave(u * rng.uniform(4, 28), rng.uniform(0.2, 0.7), rng.uniform(0.02, 0.3))


def _checks(rng, x, y):
    u, v = _rot(x, y, rng.choice([0, np.pi / 4]))
    f = rng.uniform(3, 16)
    a = _smoothstep_wave(u * f, 0.5, 0.05)
    b = _smoothstep_wave(v * f * rng.choice([1, 1, 2]), 0.5, 0.05)
    if rng.random() < 0.5:  # gingham/plaid: overlapping translucent bands
        return 0.5 * a + 0.5 * b
    return np.abs(a - b)


def _dots(rng, x, y):
    f = rng.uniform(5, 18)
    u, v = _rot(x, y, rng.choice([0, np.pi / 4, rng.uniform(0, np.pi)]))
    u, v = u * f, v * f
    if rng.random() < 0.5:  # hexagonal packing
        u = u + 0.5 * (np.floor(v) % 2)
    du, dv = u - np.floor(u) - 0.5, v - np.floor(v) - 0.5
    d = np.sqrt(du * du + dv * dv)
    r = rng.uniform(0.12, 0.42)
    return np.clip((r - d) * f * 2.0 + 0.5, 0, 1)


def _waves(rng, x, y):
    u, v = _rot(x, y, rng.uniform(0, np.pi))
    phase = v * rng.uniform(4, 20) + rng.uniform(0.05, 0.4) * np.sin(u * rng.uniform(6, 30))
    return _smoothstep_wave(phase, rng.uniform(0.3, 0.6), rng.uniform(0.05, 0.4))


def _radial(rng, x, y):
    r = np.sqrt(x * x + y * y)
    if rng.random() < 0.5:  # sunburst
        a = np.arctan2(y, x)
        return _smoothstep_wave(a * rng.integers(6, 40) / (2 * np.pi), 0.5, 0.1)
    return _smoothstep_wave(r * rng.uniform(4, 20), rng.uniform(0.3, 0.6), 0.15)  # rings


def _floral(rng, x, y):
    """Tiled rosettes (polar rose curves), as on many classic backs."""
    f = rng.uniform(3, 9)
    u, v = x * f, y * f
    if rng.random() < 0.5:
        u = u + 0.5 * (np.floor(v) % 2)
    du, dv = u - np.floor(u) - 0.5, v - np.floor(v) - 0.5
    r = np.sqrt(du * du + dv * dv)
    a = np.arctan2(dv, du)
    k = rng.integers(3, 9)
    petal = 0.45 * np.abs(np.cos(k * a / 2)) ** rng.uniform(0.5, 2)
    return np.clip((petal - r) * f * 3 + 0.5, 0, 1)


def _lattice(rng, x, y):
    """Diamond lattice (|u| + |v| contours), the classic casino back."""
    u, v = _rot(x, y, rng.uniform(-0.2, 0.2))
    f = rng.uniform(6, 26)
    g = np.abs((u * f) % 1 - 0.5) + np.abs((v * f * rng.uniform(0.6, 1.6)) % 1 - 0.5)
    return _smoothstep_wave(g * rng.choice([1, 2]), rng.uniform(0.3, 0.7), 0.15)


def _photo(rng, x, y):
    """Smooth multi-scale blobs: stands in for photographic or painted backs."""
    h, w = x.shape
    t = np.zeros((h, w), np.float32)
    for cells, amp in ((3, 1.0), (7, 0.5), (15, 0.25)):
        small = rng.random((cells + 1, max(2, cells * w // h) + 1)).astype(np.float32)
        t += amp * cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    t -= t.min()
    return t / max(float(t.max()), 1e-6)


def _marble(rng, x, y):
    n = _photo(rng, x, y)
    u, _ = _rot(x, y, rng.uniform(0, np.pi))
    return 0.5 + 0.5 * np.sin((u * rng.uniform(3, 10) + n * rng.uniform(2, 6)) * 2 * np.pi)


def _solid(rng, x, y):
    return np.zeros_like(x)


PATTERNS = {
    "solid": _solid, "stripes": _stripes, "checks": _checks, "dots": _dots, "waves": _waves,
    "radial": _radial, "floral": _floral, "lattice": _lattice, "photo": _photo, "marble": _marble,
}


def _blend(c_a, c_b, t: np.ndarray) -> np.ndarray:
    a = np.asarray(c_a, np.float32)
    b = np.asarray(c_b, np.float32)
    return a + (b - a) * t[..., None]


def _frame(rng, img: np.ndarray, colour, inset_px: float) -> None:
    h, w = img.shape[:2]
    thickness = int(rng.integers(1, 5))
    for k in range(int(rng.integers(1, 4))):
        d = int(inset_px + k * (thickness + rng.integers(2, 6)))
        if d * 2 >= min(w, h) - 10:
            break
        cv2.rectangle(img, (d, d), (w - 1 - d, h - 1 - d), colour, thickness, cv2.LINE_AA)


def _random_word(rng) -> str:
    n = int(rng.integers(1, 9))
    return "".join(chr(int(c)) for c in rng.integers(65, 91, n))


def _text(rng, img: np.ndarray, colour, text: str | None = None) -> None:
    """A logo-like word, centred; sized to fit the card width."""
    h, w = img.shape[:2]
    text = text or _random_word(rng)
    font = int(rng.choice(_FONTS))
    thickness = int(rng.integers(1, 4))
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, thickness)
    scale = rng.uniform(0.4, 0.85) * w / max(tw, 1)
    scale = min(scale, 0.25 * h / max(th, 1))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    y = int(h / 2 + th / 2 + rng.choice([0, -0.3 * h, 0.3 * h]))
    org = (int((w - tw) / 2), y)
    if rng.random() < 0.5:  # a band behind the word, as on branded backs
        band = contrasting(colour, rng)
        cv2.rectangle(img, (0, y - th - 6), (w, y + 8), band, -1)
    cv2.putText(img, text, org, font, scale, colour, thickness, cv2.LINE_AA)


def _emblem(rng, img: np.ndarray, fill, ink, symbol: str | None) -> None:
    """Central oval or circle medallion with a symbol or a letter."""
    h, w = img.shape[:2]
    ax = int(w * rng.uniform(0.18, 0.36))
    ay = int(ax * rng.uniform(1.0, 1.5))
    cv2.ellipse(img, (w // 2, h // 2), (ax, ay), 0, 0, 360, fill, -1, cv2.LINE_AA)
    cv2.ellipse(img, (w // 2, h // 2), (ax, ay), 0, 0, 360, ink, int(rng.integers(1, 4)),
                cv2.LINE_AA)
    if symbol is not None:
        draw_symbol(img, symbol, (w / 2, h / 2), 1.2 * ax, ink)
    elif rng.random() < 0.5:
        _text_at(img, chr(int(rng.integers(65, 91))), (w / 2, h / 2), 1.1 * ax, ink, rng)


def _text_at(img, text, centre_xy, height_px, colour, rng) -> None:
    font = int(rng.choice(_FONTS[:4]))
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = height_px / max(th, 1)
    thickness = max(1, int(scale * 1.8))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    org = (int(centre_xy[0] - tw / 2), int(centre_xy[1] + th / 2))
    cv2.putText(img, text, org, font, scale, colour, thickness, cv2.LINE_AA)


def _base_design(rng, card_wh, palette, bordered: bool) -> tuple[np.ndarray, dict]:
    """Everything except the family symbol; returns the image and what the emblem needs."""
    w, h = card_wh
    x, y = _grid(card_wh)
    c1, c2, c3 = palette
    name = str(rng.choice(list(PATTERNS), p=_PATTERN_P))
    t = PATTERNS[name](rng, x, y)
    img = _blend(c1, c2, t * rng.uniform(0.3, 1.0) if name in ("photo", "marble") else t)
    if rng.random() < 0.35:  # a second, sparser overlay pattern in the third colour
        over = PATTERNS[str(rng.choice(["stripes", "dots", "waves", "lattice", "radial"]))]
        img = img + (np.asarray(c3, np.float32) - img) * (over(rng, x, y) * rng.uniform(0.2, 0.6))[
            ..., None]
    if rng.random() < 0.4:  # gentle sheen: printed backs are rarely perfectly flat
        img *= (1.0 + rng.uniform(-0.15, 0.15) * (x + y))[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:  # point symmetry, as most backs have (rotating the card keeps it)
        img[h // 2:] = img[: h - h // 2][::-1, ::-1]
    border_px = w * rng.uniform(0.045, 0.1) if bordered else 0.0
    if rng.random() < 0.55:
        _frame(rng, img, c3, border_px + w * rng.uniform(0.02, 0.08))
    return img, {"border_px": border_px, "palette": palette}


_PATTERN_P = np.array([0.07, 0.14, 0.11, 0.1, 0.09, 0.09, 0.1, 0.12, 0.1, 0.08])
_PATTERN_P = _PATTERN_P / _PATTERN_P.sum()


def _apply_border(rng, img: np.ndarray, border_px: float, paper=None) -> np.ndarray:
    if border_px <= 0:
        return img
    paper = paper if paper is not None else tuple(int(v) for v in rng.integers(232, 256, 3))
    b = int(round(border_px))
    out = np.empty_like(img)
    out[:] = np.asarray(paper, np.uint8)
    out[b:-b, b:-b] = img[b:-b, b:-b]
    return out


def random_back_design(
    rng: np.random.Generator,
    card_wh: tuple[int, int] = CARD_WH,
    bordered: bool | None = None,
) -> np.ndarray:
    """Return a random full card-back design, HxWx3 uint8 BGR (``card_wh`` = (W, H)).

    ``bordered`` forces (True) or forbids (False) a white paper border; None draws it at random.
    """
    if bordered is None:
        bordered = bool(rng.random() < 0.45)
    palette = random_palette(rng)
    img, info = _base_design(rng, card_wh, palette, bordered)
    u = rng.random()
    if u < 0.35:
        _emblem(rng, img, palette[int(rng.integers(0, 3))], contrasting(palette[0], rng),
                str(rng.choice(SYMBOL_NAMES)) if rng.random() < 0.5 else None)
    elif u < 0.55:
        _text(rng, img, contrasting(palette[0], rng))
    return _apply_border(rng, img, info["border_px"])


def design_family(
    rng: np.random.Generator, n: int = 4, card_wh: tuple[int, int] = CARD_WH
) -> list[np.ndarray]:
    """Return ``n`` designs that share base design and colour and differ only by a symbol.

    Like the four decks in a Ligretto box: a person tells them apart by the star, moon, heart ...
    in the centre (and, on some backs, in two corners). :func:`named_design_family` also returns
    the symbol names.
    """
    return [d for _, d in named_design_family(rng, n, card_wh)]


def named_design_family(
    rng: np.random.Generator, n: int = 4, card_wh: tuple[int, int] = CARD_WH
) -> list[tuple[str, np.ndarray]]:
    """Like :func:`design_family`, as (symbol name, design) pairs."""
    if not 1 <= n <= len(SYMBOL_NAMES):
        raise ValueError(f"n must be in 1..{len(SYMBOL_NAMES)}, got {n}")
    bordered = bool(rng.random() < 0.4)
    palette = random_palette(rng)
    base, info = _base_design(rng, card_wh, palette, bordered)
    symbols = [str(s) for s in rng.choice(SYMBOL_NAMES, size=n, replace=False)]
    w, h = card_wh
    fill = palette[int(rng.integers(0, 3))]
    ink = contrasting(fill, rng)
    ax = int(w * rng.uniform(0.2, 0.34))
    ay = int(ax * rng.uniform(1.0, 1.4))
    ring = int(rng.integers(1, 4))
    corners = rng.random() < 0.5
    paper = tuple(int(v) for v in rng.integers(232, 256, 3))
    out = []
    for sym in symbols:
        img = base.copy()
        cv2.ellipse(img, (w // 2, h // 2), (ax, ay), 0, 0, 360, fill, -1, cv2.LINE_AA)
        cv2.ellipse(img, (w // 2, h // 2), (ax, ay), 0, 0, 360, ink, ring, cv2.LINE_AA)
        draw_symbol(img, sym, (w / 2, h / 2), 1.25 * ax, ink)
        if corners:  # small copies in two opposite corners
            d = info["border_px"] + 0.13 * w
            draw_symbol(img, sym, (d, d), 0.14 * w, ink)
            draw_symbol(img, sym, (w - d, h - d), 0.14 * w, ink)
        out.append((sym, _apply_border(rng, img, info["border_px"], paper)))
    return out


def load_design(path, card_wh: tuple[int, int] = CARD_WH) -> np.ndarray:
    """Read any image file (PNG, JPG, GIF ...) as a back design resized to ``card_wh``.

    GIFs fall back to ``cv2.VideoCapture`` (first frame) where ``cv2.imread`` cannot decode them.
    Landscape images are turned upright so the long side is the card's height.
    """
    p = Path(path)
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is None:
        cap = cv2.VideoCapture(str(p))
        ok, img = cap.read()
        cap.release()
        if not ok or img is None:
            raise ValueError(f"cannot read image {p}")
    if img.shape[1] > img.shape[0]:
        img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
    interp = cv2.INTER_AREA if img.shape[1] > card_wh[0] else cv2.INTER_CUBIC
    return cv2.resize(img, card_wh, interpolation=interp)
