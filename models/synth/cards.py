"""Drawing cards into the canvas: the card-id buffer and the colour image.

Both use the same outline polygon (rounded rectangle through the card's homography): the id
buffer fills it without anti-aliasing, the colour image uses it as an anti-aliased alpha. Each
card is drawn only inside its bounding box, which keeps 150-card scenes cheap.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .camera import to_canvas

_SHIFT = 3  # sub-pixel bits for fillPoly
_ONE = 1 << _SHIFT


def outline_local_mm(card_wh_mm, corner_mm: float, n_arc: int = 5) -> np.ndarray:
    """Rounded-rectangle outline in card-local mm (origin at the TL corner), clockwise."""
    w, h = card_wh_mm
    r = corner_mm
    pts = []
    for cx, cy, a0 in ((w - r, r, -90), (w - r, h - r, 0), (r, h - r, 90), (r, r, 180)):
        for k in range(n_arc + 1):
            a = math.radians(a0 + 90 * k / n_arc)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.asarray(pts, np.float64)


def card_to_table(pose, card_wh_mm) -> np.ndarray:
    """3x3 affine: card-local mm (origin TL) -> table mm for ``pose`` = (cx, cy, angle)."""
    w, h = card_wh_mm
    c, s = math.cos(pose[2]), math.sin(pose[2])
    return np.array([[c, -s, pose[0] - c * w / 2 + s * h / 2],
                     [s, c, pose[1] - s * w / 2 - c * h / 2],
                     [0, 0, 1.0]])


def fill_ids(ids: np.ndarray, polys_canvas: list[np.ndarray], values: list[int]) -> None:
    """Paint card ids in z-order (later polygons on top), in place."""
    for poly, v in zip(polys_canvas, values, strict=True):
        cv2.fillPoly(ids, [np.round(poly * _ONE).astype(np.int32)], int(v), cv2.LINE_8, _SHIFT)


def _alpha(poly_roi: np.ndarray, wh) -> np.ndarray:
    a = np.zeros((wh[1], wh[0]), np.uint8)
    cv2.fillPoly(a, [np.round(poly_roi * _ONE).astype(np.int32)], 255, cv2.LINE_AA, _SHIFT)
    return a


def pick_level(pyramid: list[np.ndarray], card_px: float) -> tuple[np.ndarray, float]:
    """The coarsest design level still >= 1.2x the card's on-screen height (avoids moire)."""
    level = pyramid[0]
    for im in pyramid[1:]:
        if im.shape[0] < 1.2 * card_px:
            break
        level = im
    return level, level.shape[0] / pyramid[0].shape[0]


def draw_card(
    canvas: np.ndarray,
    texture: np.ndarray,
    H_card_canvas: np.ndarray,
    card_wh_mm,
    poly_canvas: np.ndarray,
    shadow: tuple[float, float, float, float],
    edge_bgr,
    edge_alpha: float,
    gain: float = 1.0,
) -> None:
    """Composite one card onto the float32 canvas in place.

    ``texture`` is the design (or front) raster covering the card's full rectangle.
    ``shadow`` = (dx_px, dy_px, sigma_px, strength): a soft contact shadow drawn first.
    ``edge_bgr``/``edge_alpha``: the thin line where the card's paper edge shows.
    ``gain``: brightness of this card relative to the others.
    """
    ch, cw = canvas.shape[:2]
    dx, dy, sigma, strength = shadow
    pad = int(math.ceil(3 * sigma + abs(dx) + abs(dy))) + 2
    x0 = int(math.floor(poly_canvas[:, 0].min())) - pad
    y0 = int(math.floor(poly_canvas[:, 1].min())) - pad
    x1 = int(math.ceil(poly_canvas[:, 0].max())) + pad + 1
    y1 = int(math.ceil(poly_canvas[:, 1].max())) + pad + 1
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(cw, x1), min(ch, y1)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    wh = (cx1 - cx0, cy1 - cy0)
    poly_roi = poly_canvas - (cx0, cy0)
    alpha = _alpha(poly_roi, wh)
    roi = canvas[cy0:cy1, cx0:cx1]
    if strength > 0:
        m = np.float32([[1, 0, dx], [0, 1, dy]])
        sh = cv2.warpAffine(alpha, m, wh)
        sh = cv2.GaussianBlur(sh.astype(np.float32) * (strength / 255.0), (0, 0), max(sigma, 0.3))
        roi *= (1.0 - sh)[..., None]
    th, tw = texture.shape[:2]
    sx, sy = card_wh_mm[0] / tw, card_wh_mm[1] / th
    # texture pixel (i, j) centre sits at ((i + 0.5) sx, (j + 0.5) sy) mm in the card frame
    tex_to_card = np.array([[sx, 0, 0.5 * sx], [0, sy, 0.5 * sy], [0, 0, 1]])
    shift = np.array([[1, 0, -cx0], [0, 1, -cy0], [0, 0, 1]])
    M = shift @ H_card_canvas @ tex_to_card
    warped = cv2.warpPerspective(texture, M, wh, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    a = alpha.astype(np.float32) * (1.0 / 255.0)
    roi += (warped.astype(np.float32) * np.float32(gain) - roi) * a[..., None]
    if edge_alpha > 0:  # paper edge: a thin line along the outline
        line = np.zeros((wh[1], wh[0]), np.uint8)
        cv2.polylines(line, [np.round(poly_roi * _ONE).astype(np.int32)], True, 255, 1,
                      cv2.LINE_AA, _SHIFT)
        la = line.astype(np.float32) * (edge_alpha / 255.0)
        roi += (np.asarray(edge_bgr, np.float32) - roi) * la[..., None]


def project_outline(H_card_canvas: np.ndarray, outline_mm: np.ndarray) -> np.ndarray:
    return to_canvas(H_card_canvas, outline_mm)


def pyramid(design: np.ndarray, min_h: int = 24) -> list[np.ndarray]:
    """Design at full size and successive halvings (for small on-screen cards)."""
    out = [design]
    while out[-1].shape[0] // 2 >= min_h:
        out.append(cv2.pyrDown(out[-1]))
    return out
