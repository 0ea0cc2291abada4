"""Training views: one card design seen the way the runtime will see it, as a model input.

Rendering whole scenes is slow; instead each view puts one card (a design) on a small patch of
table, lays 0-3 other cards over it the way rounds leave them (shingled strips along either side,
L-shapes, random overlaps, with contact shadows), then applies the camera: size 40-160 px per card
width, perspective, light colour 2500-7500 K, brightness gradients, glare, blur, noise and JPEG.
A jittered quad and visible polygon (as an imperfect detector would give) go through the runtime
crop code (``cardtally.vision.rectify``), so training and inference share one preprocessing path.
Since run 5 the detector's two commonest outline errors are in the views too: a card's axis
read 90 degrees off (about one card in six) and a visible region that misses a rim of the card.
"""

from __future__ import annotations

import cv2
import numpy as np

from ...vision.geometry import CARD_LONG_OVER_SHORT
from ...vision.rectify import crop_card

#: Share of views whose quad is turned 90 degrees about its centre (the detector's axis error).
AXIS_ERROR_SHARE = 0.15
#: Share of views whose visible outline misses a rim of 3-8% of the card width.
SHRUNK_OUTLINE_SHARE = 0.25
#: Card width (px) of a view as a game photo shows cards, and as a deck's calibration photo
#: shows them (few cards, close up: sharp and uncovered; ``render_view(calibration_like=True)``).
GAME_CARD_WIDTH_PX = (40.0, 160.0)
CALIBRATION_CARD_WIDTH_PX = (120.0, 250.0)
#: With a spill share (``render_view``), how far the outline spills over its neighbours: the
#: visible mask smeared 4-12% of the card width one way (the detector's third commonest error:
#: an outline that takes in a rim of the card on top, or of the table).
SPILL_CARD_WIDTHS = (0.04, 0.12)


def seed_camera_noise(seed: int) -> None:
    """Restart the generator of the views' camera noise (OpenCV's, one per thread) at ``seed``.

    Whatever drew from it earlier in the thread would otherwise change every view after it;
    seed 0 gives the state of a fresh process."""
    cv2.setRNGSeed(seed)


def kelvin_gains_bgr(kelvin: float) -> np.ndarray:
    """Per-channel gains (B, G, R) of a light of colour temperature ``kelvin``, 6500 K = 1.

    Tanner Helland's fit of the black-body colour, normalised by its value at 6500 K.
    """

    def rgb(t: float) -> np.ndarray:
        t = t / 100.0
        r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
        g = 99.4708025861 * np.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (
            t - 60) ** -0.0755148492
        b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * np.log(t - 10) - 305.0447927307)
        return np.clip(np.array([b, g, r], np.float64), 1, 255)

    gains = rgb(kelvin) / rgb(6500.0)
    return (gains / gains.max()).astype(np.float32)


def _table(rng: np.random.Generator, size_px: int) -> np.ndarray:
    base = rng.uniform(20, 235, 3)
    cells = int(rng.integers(2, 12))
    noise = cv2.resize(rng.normal(0, rng.uniform(5, 35), (cells, cells, 3)).astype(np.float32),
                       (size_px, size_px), interpolation=cv2.INTER_CUBIC)
    return np.clip(base + noise, 0, 255).astype(np.float32)


def _card_quad(centre_xy: np.ndarray, card_w_px: float, angle: float) -> np.ndarray:
    w, h = card_w_px, card_w_px * CARD_LONG_OVER_SHORT
    corners = np.array([[-w, -h], [w, -h], [w, h], [-w, h]], np.float32) / 2
    c, s = np.cos(angle), np.sin(angle)
    rot = np.array([[c, -s], [s, c]], np.float32)
    return (corners @ rot.T + centre_xy).astype(np.float32)


def _warp_design(design: np.ndarray, quad_xy: np.ndarray, size_wh: tuple[int, int]) -> np.ndarray:
    """``design`` (or a mask in its coordinates) warped onto ``quad_xy`` of a ``size_wh`` canvas."""
    card_w_px = float(np.linalg.norm(quad_xy[1] - quad_xy[0]))
    # Shrink the design to about its on-screen size first so the warp does not alias.
    target_wh = (max(8, int(card_w_px * 1.3)), max(12, int(card_w_px * 1.3 * CARD_LONG_OVER_SHORT)))
    small = cv2.resize(design, target_wh, interpolation=cv2.INTER_AREA)
    src = np.array([[0, 0], [target_wh[0], 0], [target_wh[0], target_wh[1]], [0, target_wh[1]]],
                   np.float32)
    warp = cv2.getPerspectiveTransform(src, quad_xy.astype(np.float32))
    return cv2.warpPerspective(small, warp, size_wh, flags=cv2.INTER_LINEAR)


def _paste(canvas: np.ndarray, design: np.ndarray, quad_xy: np.ndarray) -> np.ndarray:
    """Warp ``design`` onto ``quad_xy`` of ``canvas`` in place; return the card's mask (float)."""
    size = canvas.shape[1], canvas.shape[0]
    pixels = _warp_design(design, quad_xy, size).astype(np.float32)
    mask = np.zeros(canvas.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad_xy * 4).astype(np.int32), 1, cv2.LINE_AA, shift=2)
    mask_f = mask.astype(np.float32)[..., None]
    canvas *= 1 - mask_f
    canvas += pixels * mask_f
    return mask_f[..., 0]


def _warp_share(design_mask: np.ndarray, quad_xy: np.ndarray, visible: np.ndarray) -> float:
    """Share of ``design_mask`` (a float mask in design coordinates) left visible once the design
    lies on ``quad_xy`` and ``visible`` (canvas mask) says what the cards on top leave of it."""
    warped = _warp_design(design_mask.astype(np.float32), quad_xy, visible.shape[::-1])
    return float((warped * visible).sum() / max(float(warped.sum()), 1e-6))


def _shadow(canvas: np.ndarray, quad_xy: np.ndarray, rng: np.random.Generator) -> None:
    mask = np.zeros(canvas.shape[:2], np.float32)
    offset = rng.normal(0, 2.0, 2).astype(np.float32)
    cv2.fillConvexPoly(mask, np.round(quad_xy + offset).astype(np.int32), 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(1.0, 4.0))
    canvas *= (1 - rng.uniform(0.2, 0.6) * mask)[..., None]


def _occluders(rng: np.random.Generator, quad: np.ndarray, card_w_px: float,
               angle: float) -> list[np.ndarray]:
    """Quads of cards lying over the target: shingled strips, L-shapes or random overlaps."""
    mode = rng.choice(["whole", "strip", "l_shape", "random"], p=[0.18, 0.42, 0.2, 0.2])
    centre = quad.mean(axis=0)
    h = card_w_px * CARD_LONG_OVER_SHORT
    c, s = np.cos(angle), np.sin(angle)
    axis_x, axis_y = np.array([c, s], np.float32), np.array([-s, c], np.float32)
    out: list[np.ndarray] = []
    if mode in ("strip", "l_shape"):
        sides = [int(rng.integers(0, 4))]
        if mode == "l_shape":
            sides.append((sides[0] + rng.choice([1, 3])) % 4)
        for side in sides:
            along_x = side in (0, 2)
            length = card_w_px if along_x else h
            keep = rng.uniform(0.06, 0.55) if rng.random() < 0.8 else rng.uniform(0.55, 0.9)
            sign = 1.0 if side in (0, 1) else -1.0
            shift = (keep * length) * sign
            jitter = rng.normal(0, 0.02 * card_w_px, 2)
            axis = axis_x if along_x else axis_y
            tilt = angle + rng.normal(0, 0.05)
            out.append(_card_quad(centre + axis * shift + jitter, card_w_px, tilt))
    elif mode == "random":
        for _ in range(int(rng.integers(1, 4))):
            offset = rng.uniform(-0.9, 0.9, 2) * np.array([card_w_px, h])
            out.append(_card_quad(centre + offset.astype(np.float32), card_w_px,
                                  float(rng.uniform(0, 2 * np.pi))))
    return out


def _camera(rng: np.random.Generator, canvas: np.ndarray, sharp: bool = False) -> np.ndarray:
    height, width = canvas.shape[:2]
    size = max(height, width)
    kelvin = float(np.exp(rng.uniform(np.log(2500), np.log(7500))))
    gains = kelvin_gains_bgr(kelvin) * rng.uniform(0.55, 1.25)
    # Light falls off smoothly: a 2x2 field of brightness upsampled is a linear gradient.
    corners = (1 + rng.uniform(0, 0.5) * rng.uniform(-0.5, 0.5, (2, 2))).astype(np.float32)
    gradient = cv2.resize(corners, (width, height), interpolation=cv2.INTER_LINEAR)
    image = canvas * gains * gradient[..., None]
    # The camera's saturation and black lift, as the scene renderer applies them (photo.py).
    saturation, lift = rng.uniform(0.7, 1.1), rng.uniform(0, 14)
    luma = image @ np.array([0.114, 0.587, 0.299], np.float32)
    image = saturation * image + (1 - saturation) * luma[..., None]
    image = image * (1 - lift / 255) + lift
    if rng.random() < 0.15:  # glare: a soft bright spot that washes colours out
        spot = np.zeros((height, width), np.float32)
        centre = (int(rng.uniform(0, width)), int(rng.uniform(0, height)))
        cv2.circle(spot, centre, int(rng.uniform(0.05, 0.3) * size), 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), 0.1 * size)
        image = image + rng.uniform(40, 160) * spot[..., None]
    sigma = rng.uniform(0, 1.3) if rng.random() < 0.7 else 0.0
    if sigma > 0.2 and not sharp:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    noise = np.empty_like(image)
    # OpenCV's own generator (per thread): reproducible only from seed_camera_noise() on.
    cv2.randn(noise, 0.0, float(rng.uniform(0, 7)))
    image = np.clip(image + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return image


def _detected_polygon(rng: np.random.Generator, visible: np.ndarray,
                      card_w_px: float, spill_share: float = 0.0) -> np.ndarray | None:
    """Outline of the visible part as a detector would give it: a bit too large or too small,
    and for ``spill_share`` of the views spilling over one side."""
    mask = (visible > 0.5).astype(np.uint8)
    k = int(rng.integers(-2, 3))
    if rng.random() < SHRUNK_OUTLINE_SHARE:
        k = -max(2, round(rng.uniform(0.03, 0.08) * card_w_px))
    if k:
        kernel = np.ones((abs(k) * 2 + 1,) * 2, np.uint8)
        mask = cv2.dilate(mask, kernel) if k > 0 else cv2.erode(mask, kernel)
    # Drawn only when asked for, so that runs without a spill keep their exact data stream.
    if spill_share > 0 and rng.random() < spill_share:
        angle = rng.uniform(0, 2 * np.pi)
        reach = rng.uniform(*SPILL_CARD_WIDTHS) * card_w_px
        shift = np.float32([[1, 0, reach * np.cos(angle)], [0, 1, reach * np.sin(angle)]])
        smeared = mask.copy()
        for fraction in (0.25, 0.5, 0.75, 1.0):  # steps, so that a thin strip smears, not jumps
            step = shift.copy()
            step[:, 2] *= fraction
            smeared |= cv2.warpAffine(mask, step, mask.shape[::-1], flags=cv2.INTER_NEAREST)
        mask = smeared
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    largest = max(contours, key=cv2.contourArea)
    poly = cv2.approxPolyDP(largest, rng.uniform(0.5, 2.0), True).reshape(-1, 2)
    return poly.astype(np.float32) if len(poly) >= 3 else None


def render_view(rng: np.random.Generator, design: np.ndarray,
                others: list[np.ndarray], spill_share: float = 0.0,
                telling_masks: list[np.ndarray] | None = None,
                calibration_like: bool = False) -> tuple[np.ndarray, float]:
    """One training view of ``design``: model input (4, 64, 64) and the visible fraction.

    ``others`` are designs for the cards lying on top (any, including face-up fronts);
    ``spill_share`` of the views get an outline that spills over one side (``_detected_polygon``).
    With ``telling_masks`` (design coordinates: the places where the design differs from its
    siblings), the second value is instead the largest share of one place left visible. Neither
    choice draws from ``rng``, so the views are the same either way. A ``calibration_like`` view
    shows the card the way a calibration photo does: larger (``CALIBRATION_CARD_WIDTH_PX``), with
    no camera blur and no card on top.
    """
    low, high = CALIBRATION_CARD_WIDTH_PX if calibration_like else GAME_CARD_WIDTH_PX
    for _ in range(6):
        card_w_px = float(np.exp(rng.uniform(np.log(low), np.log(high))))
        size = int(card_w_px * 1.9) + 16
        canvas = _table(rng, size)
        angle = float(rng.uniform(0, 2 * np.pi))
        centre = np.array([size / 2, size / 2], np.float32)
        quad = _card_quad(centre, card_w_px, angle)
        quad = quad + rng.normal(0, 0.03 * card_w_px, (4, 2)).astype(np.float32)  # camera tilt
        _shadow(canvas, quad, rng)
        visible = _paste(canvas, design, quad)
        for occ in [] if calibration_like else _occluders(rng, quad, card_w_px, angle):
            _shadow(canvas, occ, rng)
            covered = _paste(canvas, others[int(rng.integers(0, len(others)))], occ)
            visible = visible * (1 - covered)
        fraction = float(visible.sum() / max(cv2.contourArea(quad), 1.0))
        if fraction < 0.05:
            continue
        # What the caller asked for: how much of the card shows, or of its symbols.
        shown = fraction if telling_masks is None else max(
            (_warp_share(m, quad, visible) for m in telling_masks), default=0.0)
        # Only the card's neighbourhood matters to the crop: process just that.
        x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 6, 0)
        x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 6, size)
        image = _camera(rng, canvas[y0:y1, x0:x1], sharp=calibration_like)
        poly = _detected_polygon(rng, visible[y0:y1, x0:x1], card_w_px, spill_share)
        if poly is None:
            continue
        shift = np.array([x0, y0], np.float32)
        detected_quad = quad - shift + rng.normal(0, 0.012 * card_w_px, (4, 2)).astype(np.float32)
        pixels, seen = crop_card(image, detected_quad, poly)
        if rng.random() < AXIS_ERROR_SHARE:
            centre_xy = detected_quad.mean(axis=0)
            turn = np.array([[0, -1], [1, 0]], np.float32)
            turned, seen_turned = crop_card(
                image, (detected_quad - centre_xy) @ turn.T + centre_xy, poly)
            # A strip at the card's end lies mostly outside the turned quad; the detector
            # centres its quad on what it sees, so it would not lose most of the strip.
            if seen_turned >= 0.5 * seen:
                return turned, shown
        return pixels, shown
    # Give up on occlusion: a whole card always works.
    canvas = _table(rng, size)
    _paste(canvas, design, quad)
    pixels, _ = crop_card(_camera(rng, canvas, sharp=calibration_like), quad, None)
    return pixels, 1.0
