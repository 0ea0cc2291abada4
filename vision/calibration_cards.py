"""Which cards of a deck's calibration photo to learn from.

The detector finds the cards (:func:`find_cards`); cards far from the photo's card size are
left out (:func:`keep_card_sized`). Where the calibration built from them is refused, a second
try finds the cards by their shape (:func:`find_card_shapes`): a calibration photo shows one
deck's cards lying apart, and where the detector's centre peaks fail there (a picture printed
on the back gives one card several peaks and cuts it in pieces, or the survey misreads the card
size and the photo is processed far too small), its foreground map still shows each lone card
as a blob with a card's rectangle and proportions. Read at a few fixed sizes, such blobs are
the whole cards. Only cards lying apart and inside the photo are found this way.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import TypeVar

import cv2
import numpy as np

from cardtally.errors import CardtallyError

from .detect import (
    CALIBRATION_DETECTOR_FILE,
    CardDetector,
    calibration_detector,
    detect_calibration_cards,
)
from .detections import CardDetections
from .geometry import order_quad
from .load import resize_to_long_side
from .watershed_cards import OUTPUT_STRIDE, DetectorSettings

#: Fewer usable cards than this cannot show how much one design varies.
MIN_USABLE_CARDS = 3
#: Detections whose card area is off the photo's median by more than this factor are dropped.
CARD_AREA_SPREAD = 1.6
#: Calibration photos show spread cards, each lying alone: a card that its own print cuts in
#: two or three regions is joined again (the lone-card rule: 41 more right answers
#: over the five identification scenarios through the detector, git history of docs/BENCHMARKS.md). No card
#: lies beneath another there, so the rule joins such pieces whatever the edge head says
#: about the line between them (game photos keep that check). The spread layout's own centre
#: threshold (game photos) is not used here: identification was measured without it.
CALIBRATION_DETECTOR_SETTINGS = DetectorSettings(lone_card_max_boundary_edge=1.0,
                                                 spread_centre_threshold=0.0)
#: Long sides (px) the photo is read at: cards spread on a table are 1/4 to 1/12 of the photo,
#: so at these sizes they come out near the lengths the network was trained on.
WORK_LONG_SIDES_PX = (1280, 960, 768)
#: Card pixels: foreground probability at least this (at 0.5 fewer whole cards were found in
#: the refused photos measured for the second try, git history of docs/BENCHMARKS.md).
FOREGROUND_MIN = 0.7
#: Blobs are eroded by this many output pixels before they are separated, so that a thin
#: bridge of table texture taken for card does not join a card to its surroundings.
ERODE_PX = 1
#: A card's short side over its long side (59:91 is 0.65; the camera's tilt moves it).
ASPECT_RANGE = (0.5, 0.9)
#: Share of its rectangle that a card's blob fills (rounded corners and soft edges lose some).
MIN_FILL = 0.85
#: Blobs shorter than this (output pixels) are too small to judge by their shape.
MIN_LONG_PX = 12
#: Two reads of the same card overlap at least this much of the smaller one: one is kept.
DUPLICATE_OVERLAP = 0.5


def find_cards(image_bgr: np.ndarray) -> CardDetections:
    """The shipped calibration detector's cards (:func:`keep_card_sized`), read with
    :data:`CALIBRATION_DETECTOR_SETTINGS`; the classical contour finder while no detector
    model is shipped."""
    if resources.files("cardtally.models").joinpath(CALIBRATION_DETECTOR_FILE).is_file():
        return keep_card_sized(detect_calibration_cards(image_bgr, CALIBRATION_DETECTOR_SETTINGS))
    from .detect_classical import detect_cards_classical

    return keep_card_sized(detect_cards_classical(image_bgr))


def keep_card_sized(detections: CardDetections) -> CardDetections:
    """The detections of a calibration photo whose estimated card is of the photo's card size.

    All cards of a calibration photo are the same size, so outlines far from the median card
    area (table texture, two cards merged into one) are dropped before they can look like a
    second design. Where pieces of cards cut by their print outnumber the whole cards, the
    median is a piece's area and the whole cards are the ones dropped: when fewer than
    ``MIN_USABLE_CARDS`` outlines are left, all of them are kept and the design check decides.
    """
    if len(detections) < 2:
        return detections
    quads = detections.quad_xy
    x, y = quads[:, :, 0], quads[:, :, 1]
    area = 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1))
    ratio = area / max(float(np.median(area)), 1e-6)
    kept = detections[(ratio > 1 / CARD_AREA_SPREAD) & (ratio < CARD_AREA_SPREAD)]
    return kept if len(kept) >= MIN_USABLE_CARDS else detections


Calibrated = TypeVar("Calibrated")


def with_second_try(calibrate: Callable[[list[CardDetections]], Calibrated],
                    images_bgr: list[np.ndarray], detections: list[CardDetections],
                    find_shapes: Callable[[np.ndarray], CardDetections] | None = None) -> Calibrated:
    """``calibrate(detections)``; where that is refused, ``calibrate`` again with the photos'
    cards found by their shape (``find_shapes``, by default :func:`find_card_shapes`). A second
    refusal, or too few such cards to try, gives the first refusal: it describes what the
    detector saw."""
    try:
        return calibrate(detections)
    except CardtallyError as refusal:
        find_shapes = find_shapes or find_card_shapes
        shapes = [keep_card_sized(find_shapes(image)) for image in images_bgr]
        if sum(len(found) for found in shapes) < MIN_USABLE_CARDS:
            raise
        try:
            return calibrate(shapes)
        except CardtallyError:
            raise refusal from None


def card_shaped_blobs(foreground: np.ndarray) -> list[np.ndarray]:
    """(4, 2) rectangles, in output pixels, of the foreground blobs shaped like a whole card
    and clear of the map's border."""
    mask = (foreground >= FOREGROUND_MIN).astype(np.uint8)
    if ERODE_PX:
        mask = cv2.erode(mask, np.ones((2 * ERODE_PX + 1, 2 * ERODE_PX + 1), np.uint8))
    n_blobs, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    height, width = mask.shape
    boxes = []
    for k in range(1, n_blobs):
        x, y, box_w, box_h, area = stats[k]
        if (x <= ERODE_PX or y <= ERODE_PX or x + box_w >= width - ERODE_PX
                or y + box_h >= height - ERODE_PX or max(box_w, box_h) < MIN_LONG_PX):
            continue
        ys, xs = np.nonzero(labels[y : y + box_h, x : x + box_w] == k)
        (cx, cy), (rect_w, rect_h), angle = cv2.minAreaRect(
            np.stack([xs + x, ys + y], axis=1).astype(np.float32))
        # Pixel centres span one pixel less than the pixels themselves.
        rect_w, rect_h = rect_w + 1.0, rect_h + 1.0
        aspect = min(rect_w, rect_h) / max(rect_w, rect_h)
        if not ASPECT_RANGE[0] <= aspect <= ASPECT_RANGE[1] or area / (rect_w * rect_h) < MIN_FILL:
            continue
        grow = 2.0 * ERODE_PX  # give back what the erosion took
        boxes.append(cv2.boxPoints(((cx, cy), (rect_w + grow, rect_h + grow), angle)))
    return boxes


def find_card_shapes(image_bgr: np.ndarray, detector: CardDetector | None = None) -> CardDetections:
    """The whole lone cards of a calibration photo, found by their shape (module docstring)
    in the foreground map of ``detector`` (default: the shipped calibration network); each
    visible outline is its full card."""
    detector = detector or calibration_detector()
    height, width = image_bgr.shape[:2]
    quads: list[np.ndarray] = []
    factors_read: set[float] = set()
    for long_side_px in WORK_LONG_SIDES_PX:
        work, factor = resize_to_long_side(image_bgr, long_side_px)
        if factor in factors_read:  # a small photo is never enlarged: read once
            continue
        factors_read.add(factor)
        foreground = detector.predict_maps(work)[0]
        for box in card_shaped_blobs(foreground):
            # Output pixel centres -> photo pixels.
            quad = order_quad((box + 0.5) * OUTPUT_STRIDE * factor)
            if not any(_overlap_share(quad, other) >= DUPLICATE_OVERLAP for other in quads):
                quads.append(quad)
    if not quads:
        return CardDetections.empty((width, height))
    quad_xy = np.stack(quads).astype(np.float32)
    sides = np.linalg.norm(quad_xy[:, [1, 2]] - quad_xy[:, [0, 1]], axis=2)  # (n, 2)
    long_side = np.where((sides[:, 0] >= sides[:, 1])[:, None], quad_xy[:, 1] - quad_xy[:, 0],
                         quad_xy[:, 2] - quad_xy[:, 1])
    return CardDetections(
        quad_xy=quad_xy,
        visible_polygons_xy=tuple(quad.copy() for quad in quad_xy),
        centre_xy=quad_xy.mean(axis=1).astype(np.float32),
        angle_deg=(np.degrees(np.arctan2(long_side[:, 1], long_side[:, 0])) % 180.0).astype(np.float32),
        score=np.ones(len(quad_xy), np.float32),
        image_wh=(width, height),
        strip_px=sides.min(axis=1).astype(np.float32),
    )


def _overlap_share(quad_a: np.ndarray, quad_b: np.ndarray) -> float:
    """Intersection area over the smaller quad's area."""
    inter, _ = cv2.intersectConvexConvex(quad_a.astype(np.float32), quad_b.astype(np.float32))
    smaller = min(cv2.contourArea(quad_a.astype(np.float32)), cv2.contourArea(quad_b.astype(np.float32)))
    return float(inter) / max(smaller, 1e-6)
