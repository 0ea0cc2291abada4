"""Cut the visible part of each detected card into its own small, normalised model input.

Steps per card: order the quad so the card lies portrait, warp it into a fixed card frame, mask
everything outside the visible polygon, crop tightly around what is left, resize to the model's
square input and normalise colour by the card's own brightest pixels.

Why per-card, per-channel normalisation: a change of light colour (daylight 6500 K vs tungsten
2700 K) multiplies each colour channel by a gain; dividing each channel by its own high percentile
inside the card cancels any such gain exactly, whatever the table colour or the other decks in the
photo. The price is that a perfectly flat, borderless single-colour back loses its hue.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .detections import CardDetections

#: Card frame the quad is warped into: (W, H), the 59:91 shape of a playing card.
CARD_FRAME_WH: tuple[int, int] = (128, 196)
#: Side of the square model input, pixels.
CROP_PX = 64
#: Channels of the model input: normalised B, G, R and the visibility mask.
INPUT_CHANNELS = 4
#: Percentile of the visible pixels, per channel, taken as "white" for normalisation.
WHITE_PERCENTILE = 98.0
#: Below this level (of 255) the white reference is noise; clamp it so dark cards stay dark.
MIN_WHITE_LEVEL = 24.0
#: A visible part smaller than this (in card-frame pixels) is too thin to crop.
MIN_VISIBLE_FRAME_PX = 3


@dataclass(frozen=True)
class CardCrops:
    """Model inputs for a set of cards: ``pixels`` (n, 4, CROP_PX, CROP_PX) float32.

    ``visible_fraction`` (n,) is the share of the card frame that is visible (1.0 = whole card).
    ``rectified`` keeps each card warped into the card frame, with its visibility mask, when
    asked for (the sibling-deck templates compare it, and warping once is enough).
    """

    pixels: np.ndarray
    visible_fraction: np.ndarray
    rectified: tuple[tuple[np.ndarray, np.ndarray], ...] | None = None

    def __post_init__(self) -> None:
        n = len(self.visible_fraction)
        if self.pixels.shape[1:] != (INPUT_CHANNELS, CROP_PX, CROP_PX) or len(self.pixels) != n:
            raise ValueError(
                f"pixels must have shape ({n}, {INPUT_CHANNELS}, {CROP_PX}, {CROP_PX}), "
                f"got {self.pixels.shape}"
            )

    def __len__(self) -> int:
        return len(self.visible_fraction)

    def __getitem__(self, index: np.ndarray | slice | list[int]) -> CardCrops:
        """The crops of the cards picked by ``index`` (a mask, indices or a slice)."""
        picked = np.arange(len(self))[index]
        rectified = None if self.rectified is None else tuple(self.rectified[i] for i in picked)
        return CardCrops(self.pixels[picked], self.visible_fraction[picked], rectified)


def order_quad_portrait(quad_xy: np.ndarray) -> np.ndarray:
    """Return the 4 corners clockwise on screen, starting so that the first edge is a short one.

    Detectors give corners in some order around the card; the card design is only defined up
    to the remaining 180 degree turn, which the embedder is trained to ignore.
    """
    quad = np.asarray(quad_xy, np.float32).reshape(4, 2)
    x, y = quad[:, 0], quad[:, 1]
    signed_area = float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
    if signed_area < 0:  # counter-clockwise on screen (y down): reverse
        quad = quad[::-1]
    edge_a = np.linalg.norm(quad[1] - quad[0])
    edge_b = np.linalg.norm(quad[2] - quad[1])
    if edge_a > edge_b:
        quad = np.roll(quad, -1, axis=0)
    return np.ascontiguousarray(quad)


def _frame_corners(frame_wh: tuple[int, int]) -> np.ndarray:
    w, h = frame_wh
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def rectify_card(
    image_bgr: np.ndarray,
    quad_xy: np.ndarray,
    visible_polygon_xy: np.ndarray | None,
    frame_wh: tuple[int, int] = CARD_FRAME_WH,
) -> tuple[np.ndarray, np.ndarray]:
    """Warp one card into the card frame; return (card_bgr (H, W, 3) uint8, mask (H, W) bool).

    ``visible_polygon_xy`` (k, 2) in image pixels; None means the whole card is visible.
    """
    quad = order_quad_portrait(quad_xy)
    to_frame = cv2.getPerspectiveTransform(quad, _frame_corners(frame_wh))
    # Warp from the card's own neighbourhood, not the whole photo: blurring (below) then
    # touches only that, and nothing photo-sized is copied per card.
    height, width = image_bgr.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 4
    x0, y0 = min(max(x0, 0), width - 1), min(max(y0, 0), height - 1)
    x1, y1 = max(min(x1, width), x0 + 1), max(min(y1, height), y0 + 1)
    source = image_bgr[y0:y1, x0:x1]
    card_w_px = float(np.linalg.norm(quad[1] - quad[0]))
    shrink = card_w_px / frame_wh[0]
    if shrink > 1.6:
        # Warping a large card straight to the small frame aliases fine patterns; blur the
        # card's neighbourhood first, as an area resize would.
        source = cv2.GaussianBlur(source, (0, 0), 0.45 * shrink)
    from_source = cv2.getPerspectiveTransform(quad - np.float32([x0, y0]), _frame_corners(frame_wh))
    card = cv2.warpPerspective(
        source, from_source, frame_wh, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    mask = np.zeros((frame_wh[1], frame_wh[0]), np.uint8)
    if visible_polygon_xy is None or len(visible_polygon_xy) < 3:
        mask[:] = 1
    else:
        poly = cv2.perspectiveTransform(
            np.asarray(visible_polygon_xy, np.float32).reshape(-1, 1, 2), to_frame
        )
        cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
    return card, mask.astype(bool)


def normalise_crop(card_bgr: np.ndarray, mask: np.ndarray, crop_px: int = CROP_PX) -> np.ndarray:
    """Tight crop of the visible part, resized to (4, crop_px, crop_px) float32 model input.

    The crop is stretched to the square (thin strips fill the input instead of wasting it).
    Colour channels are divided by their own bright level inside the mask and centred on 0;
    masked-out pixels are 0; channel 3 is the mask.
    """
    ys, xs = np.nonzero(mask)
    out = np.zeros((INPUT_CHANNELS, crop_px, crop_px), np.float32)
    if len(xs) == 0:
        return out
    x0, x1 = xs.min(), xs.max() + 1
    y0, y1 = ys.min(), ys.max() + 1
    # Keep at least a few pixels across so a one-pixel sliver does not become a smear.
    if x1 - x0 < MIN_VISIBLE_FRAME_PX:
        x0, x1 = max(0, x0 - 1), min(mask.shape[1], x1 + 1)
    if y1 - y0 < MIN_VISIBLE_FRAME_PX:
        y0, y1 = max(0, y0 - 1), min(mask.shape[0], y1 + 1)
    crop = card_bgr[y0:y1, x0:x1]
    crop_mask = mask[y0:y1, x0:x1].astype(np.float32)
    small = cv2.resize(crop, (crop_px, crop_px), interpolation=cv2.INTER_AREA).astype(np.float32)
    small_mask = cv2.resize(crop_mask, (crop_px, crop_px), interpolation=cv2.INTER_AREA) > 0.5
    if not small_mask.any():
        small_mask = cv2.resize(crop_mask, (crop_px, crop_px), interpolation=cv2.INTER_AREA) > 0
    normed = divide_by_white(small, small_mask) - 0.5
    normed[~small_mask] = 0.0
    out[:3] = normed.transpose(2, 0, 1)
    out[3] = small_mask
    return out


def divide_by_white(pixels_bgr: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Float colours divided per channel by the bright level of the ``mask`` pixels, in [0, 1.25].

    This is the white reference that cancels the light's colour (module doc).
    """
    white = np.maximum(np.percentile(pixels_bgr[mask], WHITE_PERCENTILE, axis=0), MIN_WHITE_LEVEL)
    return np.clip(pixels_bgr / white, 0.0, 1.25).astype(np.float32)


def crop_card(
    image_bgr: np.ndarray,
    quad_xy: np.ndarray,
    visible_polygon_xy: np.ndarray | None,
    crop_px: int = CROP_PX,
) -> tuple[np.ndarray, float]:
    """Model input (4, crop_px, crop_px) for one card and its visible fraction of the frame."""
    card, mask = rectify_card(image_bgr, quad_xy, visible_polygon_xy)
    return normalise_crop(card, mask, crop_px), float(mask.mean())


def card_crops(image_bgr: np.ndarray, detections: CardDetections, crop_px: int = CROP_PX,
               keep_rectified: bool = False) -> CardCrops:
    """Model inputs for every detected card of one image (see :func:`normalise_crop`);
    with ``keep_rectified`` also each card's frame and mask (:func:`rectify_card`)."""
    n = len(detections)
    pixels = np.zeros((n, INPUT_CHANNELS, crop_px, crop_px), np.float32)
    fraction = np.zeros((n,), np.float32)
    rectified = []
    for i in range(n):
        card, mask = rectify_card(image_bgr, detections.quad_xy[i], detections.visible_polygons_xy[i])
        pixels[i], fraction[i] = normalise_crop(card, mask, crop_px), float(mask.mean())
        if keep_rectified:
            rectified.append((card, mask))
    return CardCrops(pixels=pixels, visible_fraction=fraction,
                     rectified=tuple(rectified) if keep_rectified else None)
