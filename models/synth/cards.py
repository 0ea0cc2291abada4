"""Drawing cards into the canvas: the card-id buffer and the colour image.

Both use the same outline polygon (rounded rectangle through the card's homography): the id
buffer fills it without anti-aliasing, the colour image uses it as an anti-aliased alpha. Each
card is drawn only inside its bounding box, which keeps 150-card scenes cheap.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

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


def inset(polys: np.ndarray, d: float = 0.5) -> np.ndarray:
    """Move every edge of convex polygons ``(..., k, 2)`` inwards by ``d`` px.

    OpenCV's fillPoly fills every pixel whose centre lies within half a pixel *outside* the
    polygon as well; insetting by 0.5 px makes it fill exactly the pixels whose centres are
    inside, which is what the texture warp (pixel-centre convention) and the quads assume.
    """
    nxt = np.concatenate([polys[..., 1:, :], polys[..., :1, :]], axis=-2)
    e = nxt - polys  # edge from vertex k to k+1
    e /= np.maximum(np.linalg.norm(e, axis=-1, keepdims=True), 1e-9)
    x, y = polys[..., 0], polys[..., 1]
    x1, y1 = nxt[..., 0], nxt[..., 1]
    sign = np.sign(np.sum(x * y1 - y * x1, axis=-1))[..., None, None]  # orientation
    n = sign * np.stack([-e[..., 1], e[..., 0]], -1)  # inward normal of each edge
    n_prev = np.concatenate([n[..., -1:, :], n[..., :-1, :]], axis=-2)
    denom = np.maximum(1.0 + np.sum(n * n_prev, axis=-1, keepdims=True), 0.2)
    return polys + d * (n + n_prev) / denom


def fill_ids(ids: np.ndarray, polys_canvas: list[np.ndarray], values: list[int]) -> None:
    """Paint card ids in z-order (later polygons on top), in place; polygons already inset."""
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
    gain: float = 1.0,
    sheen: tuple[float, float] | None = None,
) -> None:
    """Composite one card onto the float32 canvas in place.

    ``poly_canvas`` is the card outline, already :func:`inset`.
    ``texture`` is the design (or front) raster covering the card's full rectangle, with its
    paper edge already drawn (:func:`bake_edge`).
    ``shadow`` = (dx_px, dy_px, sigma_px, strength): a soft contact shadow drawn first.
    ``gain``: brightness of this card relative to the others; ``sheen``: its change per px
    along x and y.
    """
    ch, cw = canvas.shape[:2]
    dx, dy, sigma, strength = shadow
    sdx, sdy = int(round(dx)), int(round(dy))
    pad = int(math.ceil(2.5 * sigma)) + max(abs(sdx), abs(sdy)) + 2
    x0 = max(0, int(math.floor(poly_canvas[:, 0].min())) - pad)
    y0 = max(0, int(math.floor(poly_canvas[:, 1].min())) - pad)
    x1 = min(cw, int(math.ceil(poly_canvas[:, 0].max())) + pad + 1)
    y1 = min(ch, int(math.ceil(poly_canvas[:, 1].max())) + pad + 1)
    if x1 <= x0 or y1 <= y0:
        return
    wh = (x1 - x0, y1 - y0)
    alpha = _alpha(poly_canvas - (x0, y0), wh)
    roi = canvas[y0:y1, x0:x1]
    if strength > 0:
        sh = cv2.GaussianBlur(alpha, (0, 0), max(sigma, 0.3))
        moved = np.zeros_like(sh)  # integer shift is enough: the blur hides sub-pixels
        h, w = sh.shape
        moved[max(0, sdy):h + min(0, sdy), max(0, sdx):w + min(0, sdx)] = sh[
            max(0, -sdy):h - max(0, sdy), max(0, -sdx):w - max(0, sdx)]
        keep = cv2.convertScaleAbs(moved, alpha=-strength, beta=255.0)  # 255 * (1 - s * a)
        k3 = cv2.merge([keep, keep, keep])
        roi[:] = cv2.multiply(roi, k3.astype(np.float32), scale=1.0 / 255.0)
    th, tw = texture.shape[:2]
    sx, sy = card_wh_mm[0] / tw, card_wh_mm[1] / th
    # texture pixel (i, j) centre sits at ((i + 0.5) sx, (j + 0.5) sy) mm in the card frame
    tex_to_card = np.array([[sx, 0, 0.5 * sx], [0, sy, 0.5 * sy], [0, 0, 1]])
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]])
    M = shift @ H_card_canvas @ tex_to_card
    warped = cv2.warpPerspective(texture, M, wh, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    if sheen is not None:
        # a card is never lit perfectly evenly: a gentle brightness ramp across it (gloss,
        # bend); a bilinear resize of 2x2 corner values is exactly a linear ramp
        hx, hy = sheen[0] * wh[0] / 2, sheen[1] * wh[1] / 2
        corners = np.float32([[gain - hx - hy, gain + hx - hy], [gain - hx + hy, gain + hx + hy]])
        ramp = cv2.resize(corners, wh, interpolation=cv2.INTER_LINEAR)
        warped = cv2.multiply(warped, cv2.merge([ramp, ramp, ramp]))
    elif gain != 1.0:
        warped = cv2.multiply(warped, (gain,) * 4)
    a = alpha.astype(np.float32) * np.float32(1.0 / 255.0)
    roi[:] = cv2.blendLinear(warped, roi, a, 1.0 - a)


def bake_edge(texture: np.ndarray, card_wh_mm, corner_mm: float, edge_bgr, edge_alpha: float
              ) -> np.ndarray:
    """Draw the paper edge (a thin light line along the rounded outline) into a texture copy."""
    th, tw = texture.shape[:2]
    pts = outline_local_mm(card_wh_mm, corner_mm) * (tw / card_wh_mm[0], th / card_wh_mm[1])
    pts = np.clip(pts - 0.5, 0, None)
    over = texture.copy()
    cv2.polylines(over, [np.round(pts * _ONE).astype(np.int32)], True, edge_bgr, 2,
                  cv2.LINE_AA, _SHIFT)
    return cv2.addWeighted(over, edge_alpha, texture, 1 - edge_alpha, 0)


def pyramid(design: np.ndarray, min_h: int = 24) -> list[np.ndarray]:
    """Design at full size and successive halvings (for small on-screen cards)."""
    out = [design]
    while out[-1].shape[0] // 2 >= min_h:
        out.append(cv2.pyrDown(out[-1]))
    return out
