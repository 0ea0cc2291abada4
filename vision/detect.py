"""Find every card in a photo with the shipped ONNX detector.

The network predicts, at half resolution, card foreground, physical card edges, a peak at a
point inside each card's visible part, the card's orientation and its size. A first pass on a
640 px copy of the photo (and, for photos of 2560 px or more, a 1280 px one against misread
tiny cards) reads the card size and where the cards lie; the second pass runs on that region
only, rescaled so that cards are about 120 px long. Each centre peak is one card; a
marker-controlled watershed over the edge map gives each card its visible region, from which
the visible polygon, the strip width and the orientation are read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import onnxruntime as ort

from cardtally.malloc import release_free_memory

from .detections import CardDetections
from .geometry import CARD_ASPECT, order_quad
from .load import resize_to_long_side
from .onnx_session import load_packaged_model
from .regions import absorb_enclosed_regions, merge_regions, merge_split_lone_cards

DETECTOR_FILE = "card_detector.onnx"
OUTPUT_STRIDE = 2
#: The detector was trained on cards about 60-250 px long; photos are rescaled so that the
#: cards come out near this length (measured in a quick first pass at low resolution).
TARGET_CARD_LONG_PX = 120.0
#: First-pass size: enough to see cards of any usual size roughly.
SURVEY_LONG_SIDE_PX = 640
#: Large photos also get a survey at this size (0: off), read at its centre
#: peaks: cards under ~30 px long in the 640 px survey blur into blobs that the size head reads
#: as one huge card, and the photo would be processed far too small (benchmarks/
#: detector_operating_point.py, docs/BENCHMARKS.md).
FINE_SURVEY_LONG_SIDE_PX = 1280
#: ...for photos at least this long: from 1920 px it found more cards in rows and fans but
#: lost precision on 200 mixed validation scenes (docs/BENCHMARKS.md).
FINE_SURVEY_MIN_PHOTO_PX = 2560
#: The fine survey's reading replaces the first one only when it is below this share of it...
FINE_SURVEY_MAX_RATIO = 0.6
#: ...and sees the cards shorter than this in its own pixels, small enough that the coarse
#: survey saw them under ~40 px; larger, the fine survey is the one out of its depth (a card
#: filling the photo reads far too small at 1280 px).
FINE_SURVEY_MAX_CARD_PX = 150.0
#: ...and finds at most this many times as many centre peaks as the first survey.
FINE_SURVEY_MAX_PEAK_RATIO = 10.0
#: The first survey's card-pixel reading runs ~15% long and the processing scale was tuned
#: with it; the fine survey's peak reading does not, so it is lengthened by this factor.
FINE_SURVEY_READING_SCALE = 1.15
#: Read the card size at the survey's centre peaks (one reading per card) rather than over
#: all its card pixels; peaks above this threshold count. The first survey reads all card
#: pixels (chosen by benchmarks/tune_detector.py); the fine survey always reads its peaks.
SURVEY_SIZE_AT_PEAKS = False
SURVEY_PEAK_THRESHOLD = 0.16
#: Never process more pixels than this on the long side of the region of interest.
MAX_LONG_SIDE_PX = 3072
#: Survey pixels above this foreground probability count as card pixels.
SURVEY_FOREGROUND = 0.5
#: A blob of card pixels smaller than this in the survey output (a card of ~16 px) is no card.
MIN_SURVEY_CARD_PX = 20
#: Margin around the survey's card pixels, in card lengths, kept in the region of interest.
ROI_MARGIN_CARDS = 0.75
#: Larger network inputs run in tiles: the network needs ~130 MB per megapixel of input
#: (a whole 3072x2304 pass alone peaked at 1 GB), tiles of at most this side ~350 MB.
MAX_TILE_SIDE_PX = 1536
#: Each tile also sees this much of the image around it (a multiple of 32, so that the
#: encoder's grid stays aligned), so that its maps match an untiled pass (tests/vision/
#: test_detect_tiles.py).
TILE_MARGIN_PX = 96
#: Photos are never enlarged: on 20 validation scenes (session-1 model), allowing 1.5x
#: enlargement of small cards gave the same recall and precision (0.739 / 0.86) and took 23% longer (10.1 s vs 8.2 s).
MAX_UPSCALE = 1.0


@dataclass(frozen=True)
class DetectorSettings:
    """Thresholds of the map-to-cards step (probabilities in [0, 1], sizes in output pixels)."""

    centre_threshold: float = 0.16
    foreground_threshold: float = 0.5
    peak_window_px: int = 5
    min_region_px: int = 12
    #: Regions whose shared boundary has a lower mean edge probability are one card (0 turns
    #: merging off: best on the validation scenes with the session-2 model).
    merge_edge_threshold: float = 0.0
    #: Regions with a lower mean foreground probability are table texture, not a card.
    min_region_foreground: float = 0.5
    #: A region that one other region surrounds, and smaller than this share of that card's
    #: area (size head), is a printed motif and joins it (0 turns this off).
    max_enclosed_card_fraction: float = 0.6
    #: Each region grows by this many output pixels before its outline is traced: the
    #: watershed leaves a one-pixel boundary line between regions, and a contour through the
    #: outer pixels' centres misses half a pixel more.
    region_grow_px: int = 1
    #: The orientation head is a few degrees off where the visible part's own straight edges
    #: are exact: within this many degrees, the card's axis is the visible rectangle's side.
    snap_angle_deg: float = 15.0
    #: Touching regions that lie apart from all others and together make one card's shape,
    #: within this fraction of the card length expected there, are one card (0 turns this off:
    #: on the validation scenes it gains precision in spread layouts and loses a little recall
    #: and exact counts in mixed ones; docs/BENCHMARKS.md).
    lone_card_size_tolerance: float = 0.0


def network_input(image_bgr: np.ndarray) -> np.ndarray:
    """The (1, 3, h, w) float32 RGB tensor in [0, 1], padded to a multiple of 32."""
    height, width = image_bgr.shape[:2]
    # The encoder downsamples 5 times.
    pad_h, pad_w = (-height) % 32, (-width) % 32
    rgb = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB)
    if pad_h or pad_w:
        rgb = cv2.copyMakeBorder(rgb, 0, pad_h, 0, pad_w, cv2.BORDER_REFLECT_101)
    return (rgb.astype(np.float32) * (1.0 / 255.0)).transpose(2, 0, 1)[None]


class CardDetector:
    """Holds only the ONNX session; ``detect`` returns results instead of storing them."""

    def __init__(self, session: ort.InferenceSession | None = None) -> None:
        self.session = session or load_packaged_model(DETECTOR_FILE)
        self.input_name = self.session.get_inputs()[0].name

    def predict_maps(self, image_bgr: np.ndarray) -> np.ndarray:
        """Raw network maps (6, h, w): sigmoid probabilities for heads 0-2, orientation 3-4,
        log2 of the card length in output pixels 5.

        Images longer than :data:`MAX_TILE_SIDE_PX` run in overlapping tiles, so that the
        network's memory stays bounded however large the processed image is.
        """
        height, width = image_bgr.shape[:2]
        if max(height, width) <= MAX_TILE_SIDE_PX:
            return self._predict_whole(image_bgr)
        maps = np.empty((6, height // OUTPUT_STRIDE, width // OUTPUT_STRIDE), np.float32)
        for y0, y1 in _tile_spans(height):
            for x0, x1 in _tile_spans(width):
                # glibc keeps each pass's freed activations in the heap, and the next pass
                # cannot always reuse them: handed back, a 12 MP photo's processing at
                # 3072 px peaks at 544 MB of process memory instead of 684 MB.
                release_free_memory()
                ya, yb = max(0, y0 - TILE_MARGIN_PX), min(height, y1 + TILE_MARGIN_PX)
                xa, xb = max(0, x0 - TILE_MARGIN_PX), min(width, x1 + TILE_MARGIN_PX)
                tile = self._predict_whole(image_bgr[ya:yb, xa:xb])
                # Tile corners are multiples of 32 apart, so every offset here is even.
                maps[:, y0 // OUTPUT_STRIDE : y1 // OUTPUT_STRIDE, x0 // OUTPUT_STRIDE : x1 // OUTPUT_STRIDE] = tile[
                    :,
                    (y0 - ya) // OUTPUT_STRIDE : (y1 - ya) // OUTPUT_STRIDE,
                    (x0 - xa) // OUTPUT_STRIDE : (x1 - xa) // OUTPUT_STRIDE,
                ]
        return maps

    def _checked_by_fine_survey(
        self, image_bgr: np.ndarray, survey_maps: np.ndarray, plan: ProcessingPlan
    ) -> ProcessingPlan:
        """``plan``, or the plan of a survey at :data:`FINE_SURVEY_LONG_SIDE_PX` where that one
        sees tiny cards which the first survey blurred into "huge cards".

        Cards only ~30 px long in the first survey read far too long (a row of them is one blob
        to the size head); at twice the resolution the network sees them at a size it knows.
        Only a reading far smaller than the first, of cards small in the fine survey, without a
        crowd of extra centre peaks, is taken: elsewhere the first reading is the one the
        processing scale was tuned with.
        """
        height, width = image_bgr.shape[:2]
        fine, fine_factor = resize_to_long_side(image_bgr, FINE_SURVEY_LONG_SIDE_PX)
        fine_maps = self.predict_maps(fine)
        fine_plan = plan_processing(fine_maps, fine_factor, (width, height), size_at_peaks=True,
                                    size_factor=FINE_SURVEY_READING_SCALE)
        if fine_plan.card_long_px is None:
            return plan
        if plan.card_long_px is None:
            return fine_plan
        # A large card's print seen at twice the resolution can look like a crowd of small
        # cards: then the fine survey finds far more centre peaks than the first.
        n_peaks, n_fine_peaks = (len(find_peaks(maps[2], SURVEY_PEAK_THRESHOLD, 3))
                                 for maps in (survey_maps, fine_maps))
        taken = (fine_plan.card_long_px < FINE_SURVEY_MAX_RATIO * plan.card_long_px
                 and fine_plan.card_long_px < FINE_SURVEY_MAX_CARD_PX * fine_factor
                 and n_fine_peaks <= FINE_SURVEY_MAX_PEAK_RATIO * max(1, n_peaks))
        return fine_plan if taken else plan

    def _predict_whole(self, image_bgr: np.ndarray) -> np.ndarray:
        height, width = image_bgr.shape[:2]
        maps = self.session.run(None, {self.input_name: network_input(image_bgr)})[0][0]
        maps = maps[:, : height // OUTPUT_STRIDE, : width // OUTPUT_STRIDE]
        maps[:3] = 1.0 / (1.0 + np.exp(-maps[:3]))
        return maps

    def detect(
        self, image_bgr: np.ndarray, settings: DetectorSettings = DetectorSettings()
    ) -> CardDetections:
        """Every card in ``image_bgr`` (any size; processed at the scale that suits the cards)."""
        height, width = image_bgr.shape[:2]
        maps, work_wh, (factor, offset_xy) = self.processing_maps(image_bgr)
        return cards_from_maps(maps, work_wh, settings).placed(factor, offset_xy, (width, height))

    def processing_maps(
        self, image_bgr: np.ndarray
    ) -> tuple[np.ndarray, tuple[int, int], tuple[float, tuple[int, int]]]:
        """The network maps of the photo's card region at the scale that suits its cards.

        Returns the maps, the size (w, h) of the image they were computed on, and the factor and
        offset that take that image's pixels back to the photo's (``CardDetections.placed``).
        """
        height, width = image_bgr.shape[:2]
        survey, survey_factor = resize_to_long_side(image_bgr, SURVEY_LONG_SIDE_PX)
        survey_maps = self.predict_maps(survey)
        plan = plan_processing(survey_maps, survey_factor, (width, height))
        if FINE_SURVEY_LONG_SIDE_PX and max(width, height) >= FINE_SURVEY_MIN_PHOTO_PX:
            plan = self._checked_by_fine_survey(image_bgr, survey_maps, plan)
        x0, y0, x1, y1 = plan.roi_xyxy
        if plan.scale == 1.0 and survey_factor == 1.0 and plan.roi_xyxy == (0, 0, width, height):
            # A small photo processed whole at its own size: the survey pass was the real pass.
            return survey_maps, (width, height), (1.0, (0, 0))
        crop = image_bgr[y0:y1, x0:x1]
        if plan.scale != 1.0:
            size_wh = (max(32, round((x1 - x0) * plan.scale)), max(32, round((y1 - y0) * plan.scale)))
            interpolation = cv2.INTER_AREA if plan.scale < 1 else cv2.INTER_LINEAR
            crop = cv2.resize(crop, size_wh, interpolation=interpolation)
        work_wh = (crop.shape[1], crop.shape[0])
        # The exact inverse of the (rounded) resize.
        return self.predict_maps(crop), work_wh, ((x1 - x0) / work_wh[0], (x0, y0))


def _tile_spans(length_px: int) -> list[tuple[int, int]]:
    """(start, end) of the fewest equal tiles of at most :data:`MAX_TILE_SIDE_PX` covering
    ``length_px``, each starting at a multiple of 32."""
    n_tiles = math.ceil(length_px / MAX_TILE_SIDE_PX)
    step = math.ceil(length_px / n_tiles / 32) * 32
    return [(start, min(length_px, start + step)) for start in range(0, length_px, step)]


@dataclass(frozen=True)
class ProcessingPlan:
    """Where and at what scale the full-resolution pass runs (from the survey pass)."""

    scale: float  # resize factor applied to the region of interest
    roi_xyxy: tuple[int, int, int, int]  # region of interest in photo pixels (x0, y0, x1, y1)
    card_long_px: float | None  # median card length in photo pixels; None without cards


def plan_processing(
    survey_maps: np.ndarray, survey_factor: float, image_wh: tuple[int, int],
    size_at_peaks: bool | None = None, size_factor: float = 1.0,
) -> ProcessingPlan:
    """Read the card size and the cards' extent from the low-resolution survey maps.

    The size head gives, at every card pixel, the length of the card it belongs to; the card
    size is its median over all card pixels, or (``size_at_peaks``; default
    :data:`SURVEY_SIZE_AT_PEAKS`) over the survey's centre peaks, one reading per card, which
    is robust to table texture or a blur of tiny cards taken for one huge card; ``size_factor``
    scales the reading. Only the region
    around the survey's card pixels (plus :data:`ROI_MARGIN_CARDS` card lengths) is processed at
    full resolution: cards usually fill a part of the photo, and the rest costs time and memory.
    """
    width, height = image_wh
    on_cards = (survey_maps[0] >= SURVEY_FOREGROUND).astype(np.uint8)
    # Specks of table texture taken for cards would stretch the region: only blobs count.
    n_blobs, blob_of, stats, _ = cv2.connectedComponentsWithStats(on_cards, connectivity=8)
    blobs = np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] >= MIN_SURVEY_CARD_PX) + 1
    on_cards = np.isin(blob_of, blobs) if n_blobs > 1 else on_cards.astype(bool)
    if int(on_cards.sum()) < MIN_SURVEY_CARD_PX:
        return ProcessingPlan(min(1.0, MAX_LONG_SIDE_PX / max(width, height)), (0, 0, width, height), None)
    to_photo = OUTPUT_STRIDE * survey_factor  # survey output pixels -> photo pixels
    log_long = survey_maps[5][on_cards]
    if SURVEY_SIZE_AT_PEAKS if size_at_peaks is None else size_at_peaks:
        # One reading per card (at its centre peak), so that table texture taken for one huge
        # card cannot outweigh many small cards; all card pixels when no peak stands out.
        peaks = find_peaks(survey_maps[2], SURVEY_PEAK_THRESHOLD, 3)
        peaks = peaks[on_cards[peaks[:, 1], peaks[:, 0]]] if len(peaks) else peaks
        if len(peaks):
            log_long = survey_maps[5][peaks[:, 1], peaks[:, 0]]
    card_long_px = float(2.0 ** np.median(log_long)) * to_photo * size_factor
    ys, xs = np.nonzero(on_cards)
    margin = ROI_MARGIN_CARDS * card_long_px
    x0 = max(0, int(xs.min() * to_photo - margin))
    y0 = max(0, int(ys.min() * to_photo - margin))
    x1 = min(width, math.ceil((xs.max() + 1) * to_photo + margin))
    y1 = min(height, math.ceil((ys.max() + 1) * to_photo + margin))
    limit = min(MAX_UPSCALE, MAX_LONG_SIDE_PX / max(x1 - x0, y1 - y0))
    scale = float(np.clip(TARGET_CARD_LONG_PX / card_long_px, 0.05, limit))
    return ProcessingPlan(scale, (x0, y0, x1, y1), card_long_px)


def find_peaks(centre: np.ndarray, threshold: float, window_px: int) -> np.ndarray:
    """(n, 2) integer x, y of local maxima above ``threshold``, strongest first."""
    dilated = cv2.dilate(centre, np.ones((window_px, window_px), np.uint8))
    is_peak = ((centre >= dilated) & (centre >= threshold)).astype(np.uint8)
    # Touching maxima are a plateau of equal values (an int8 model's coarse steps make them
    # common): one card, one peak, the plateau pixel listed first.
    _, plateau_of = cv2.connectedComponents(is_peak, connectivity=8)
    ys, xs = np.nonzero(is_peak)
    _, first = np.unique(plateau_of[ys, xs], return_index=True)
    ys, xs = ys[first], xs[first]
    order = np.argsort(-centre[ys, xs], kind="stable")
    return np.stack([xs[order], ys[order]], axis=1)


def cards_from_maps(
    maps: np.ndarray, image_wh: tuple[int, int], settings: DetectorSettings = DetectorSettings()
) -> CardDetections:
    """Turn the network maps into cards: one per centre peak, regions by watershed."""
    foreground, edge, centre = maps[0], maps[1], maps[2]
    peaks = find_peaks(centre, settings.centre_threshold, settings.peak_window_px)
    peaks = peaks[foreground[peaks[:, 1], peaks[:, 0]] >= 0.3] if len(peaks) else peaks
    if len(peaks) == 0:
        return CardDetections.empty(image_wh)
    out_h, out_w = foreground.shape
    markers = np.zeros((out_h, out_w), np.int32)
    markers[foreground < settings.foreground_threshold * 0.6] = 1  # table
    for k, (x, y) in enumerate(peaks):
        markers[y, x] = k + 2
    # Watershed floods from the peaks; card edges are the ridges where floods meet.
    relief = np.clip(edge * 255.0, 0, 255).astype(np.uint8)
    cv2.watershed(cv2.merge([relief, relief, relief]), markers)
    markers = merge_regions(markers, edge, settings.merge_edge_threshold)
    markers = absorb_enclosed_regions(markers, maps[5], settings.max_enclosed_card_fraction)
    markers = merge_split_lone_cards(markers, maps[5], settings.lone_card_size_tolerance)

    polygons, quads, centres, angles, scores, strips = [], [], [], [], [], []
    for _, (y0, x0), region in _regions(markers, len(peaks)):
        if int(region.sum()) < settings.min_region_px:
            continue
        box = (slice(y0, y0 + region.shape[0]), slice(x0, x0 + region.shape[1]))
        inside = region > 0
        if foreground[box][inside].mean() < settings.min_region_foreground:
            continue
        cos2, sin2 = maps[3][box][inside].mean(), maps[4][box][inside].mean()
        contour = _outline(region, settings.region_grow_px) + np.array([x0, y0], np.int32)
        polygon = cv2.approxPolyDP(contour, 1.0, True).reshape(-1, 2).astype(np.float32)
        rect = cv2.minAreaRect(contour.astype(np.float32))
        # After merging, a region may hold several peaks: the strongest is its centre.
        x, y = _strongest_peak(peaks, centre, region, (y0, x0))
        rect_axis_deg = _rect_long_axis_deg(rect)
        if np.hypot(cos2, sin2) >= 0.5:
            head_deg = np.degrees(0.5 * np.arctan2(sin2, cos2))
            theta = np.radians(_snapped_axis_deg(head_deg, rect_axis_deg, settings.snap_angle_deg))
        else:  # the orientation head is unsure: fall back to the visible part's own long axis
            theta = np.radians(rect_axis_deg)
        # Region pixels are output-pixel centres: +0.5 before scaling back to input pixels.
        polygons.append((polygon + 0.5) * OUTPUT_STRIDE)
        quads.append((_full_card_quad(rect, theta) + 0.5) * OUTPUT_STRIDE)
        centres.append(((x + 0.5) * OUTPUT_STRIDE, (y + 0.5) * OUTPUT_STRIDE))
        angles.append(np.degrees(theta) % 180.0)
        scores.append(float(centre[y, x]))
        strips.append(min(rect[1]) * OUTPUT_STRIDE)
    if not polygons:
        return CardDetections.empty(image_wh)
    return CardDetections(
        quad_xy=np.stack(quads).astype(np.float32),
        visible_polygons_xy=tuple(polygons),
        centre_xy=np.array(centres, np.float32),
        angle_deg=np.array(angles, np.float32),
        score=np.array(scores, np.float32),
        image_wh=image_wh,
        strip_px=np.array(strips, np.float32),
    )


def _strongest_peak(
    peaks: np.ndarray, centre: np.ndarray, region: np.ndarray, origin_yx: tuple[int, int]
) -> tuple[int, int]:
    y0, x0 = origin_yx
    local = peaks - np.array([x0, y0])
    height, width = region.shape
    ok = (local[:, 0] >= 0) & (local[:, 0] < width) & (local[:, 1] >= 0) & (local[:, 1] < height)
    ok[ok] = region[local[ok, 1], local[ok, 0]] > 0
    if not ok.any():  # the peak pixel itself became a boundary: take the deepest region pixel
        ys, xs = np.nonzero(region)
        k = int(np.argmax(centre[ys + y0, xs + x0]))
        return int(xs[k] + x0), int(ys[k] + y0)
    inside = peaks[ok]
    k = int(np.argmax(centre[inside[:, 1], inside[:, 0]]))
    return int(inside[k, 0]), int(inside[k, 1])


def _regions(markers: np.ndarray, n_peaks: int):
    """Yield (peak index, (y0, x0), uint8 mask of its bounding box) per watershed region.

    Sorting the labelled pixels once keeps this linear in the image size, however many cards.
    """
    flat = markers.ravel()
    index = np.flatnonzero(flat >= 2)
    labels = flat[index]
    order = np.argsort(labels, kind="stable")
    index, labels = index[order], labels[order]
    bounds = np.searchsorted(labels, np.arange(2, n_peaks + 3))
    width = markers.shape[1]
    for k in range(n_peaks):
        pixels = index[bounds[k] : bounds[k + 1]]
        if len(pixels) == 0:
            continue
        ys, xs = np.divmod(pixels, width)
        y0, x0 = int(ys.min()), int(xs.min())
        region = np.zeros((int(ys.max()) - y0 + 1, int(xs.max()) - x0 + 1), np.uint8)
        region[ys - y0, xs - x0] = 1
        yield k, (y0, x0), region


def _outline(region: np.ndarray, grow_px: int) -> np.ndarray:
    """The region's outer contour (k, 1, 2) in its box's pixels, grown by ``grow_px``."""
    if grow_px:
        region = cv2.copyMakeBorder(
            region, grow_px, grow_px, grow_px, grow_px, cv2.BORDER_CONSTANT, value=0
        )
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow_px + 1, 2 * grow_px + 1))
        region = cv2.dilate(region, kernel)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return max(contours, key=cv2.contourArea) - grow_px


def _snapped_axis_deg(head_deg: float, rect_axis_deg: float, tolerance_deg: float) -> float:
    """The visible rectangle's side nearest the orientation head, if within the tolerance.

    Such a rectangle is bounded by card edges, so its sides are exact where the head is a few
    degrees off. (Telling by the size head whether a strip runs along or across the card was
    measured and turns more cards the wrong way than the orientation head does.)
    """
    for side_deg in (rect_axis_deg, rect_axis_deg + 90.0):
        if abs((side_deg - head_deg + 90.0) % 180.0 - 90.0) <= tolerance_deg:
            return side_deg
    return head_deg


def _rect_long_axis_deg(rect: tuple) -> float:
    """Long-axis direction of an OpenCV rotated rectangle, in degrees."""
    (_, _), (rect_w, rect_h), angle = rect
    return float(angle if rect_w >= rect_h else angle + 90.0)


def _full_card_quad(rect: tuple, theta_rad: float) -> np.ndarray:
    """Estimate the whole card's outline from its visible rectangle and orientation.

    The visible part's extent along the card's long axis is the card's length when a strip is
    shown (shingled rows); the width follows from the card aspect. Where the visible part is
    longer across than along, the card is at least as large as what is seen.
    """
    (cx, cy), _, _ = rect
    box = cv2.boxPoints(rect)
    along = np.array([np.cos(theta_rad), np.sin(theta_rad)])
    across = np.array([-along[1], along[0]])
    rel = box - np.array([cx, cy])
    length = float(np.ptp(rel @ along))
    breadth = float(np.ptp(rel @ across))
    length = max(length, breadth / CARD_ASPECT)
    breadth = max(breadth, length * CARD_ASPECT)
    half_l, half_b = along * length / 2, across * breadth / 2
    centre = np.array([cx, cy])
    quad = np.array(
        [centre - half_l - half_b, centre + half_l - half_b, centre + half_l + half_b, centre - half_l + half_b]
    )
    return order_quad(quad)


_DEFAULT_DETECTOR: CardDetector | None = None


def detect_cards(image_bgr: np.ndarray) -> CardDetections:
    """Find every card in a BGR photo with the shipped detector (session created once)."""
    global _DEFAULT_DETECTOR
    if _DEFAULT_DETECTOR is None:
        _DEFAULT_DETECTOR = CardDetector()
    return _DEFAULT_DETECTOR.detect(image_bgr)
