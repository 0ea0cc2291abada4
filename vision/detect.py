"""Find every card in a photo with the shipped ONNX detectors.

A network predicts, at half resolution, card foreground, physical card edges, a peak at a
point inside each card's visible part, the card's orientation and its size. A first pass of the
survey network on a 640 px copy of the photo (and, for photos of 2560 px or more, a 1280 px one
against misread tiny cards) reads the card size and where the cards lie; the processing network
then runs on that region only, rescaled so that cards are about 120 px long (a small region of
a game photo at two more scales, the maps averaged). Its maps become
cards in ``watershed_cards``: each centre peak is one card, and a marker-controlled watershed
over the edge map gives each card its visible region.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np
import onnxruntime as ort

from cardtally.malloc import release_free_memory

from .detections import CardDetections
from .load import resize_to_long_side
from .onnx_session import load_packaged_model
from .watershed_cards import OUTPUT_STRIDE, DetectorSettings, cards_from_maps, find_peaks

DETECTOR_FILE = "card_detector.onnx"
#: The survey passes run on their own, older network (detector run 8): the processing networks
#: (run 19 and its descendants) find cards better at the processing scale but misread the card
#: size in the 640 px survey (models/MODEL_CARD.md, run 19).
SURVEY_DETECTOR_FILE = "card_detector_survey.onnx"
#: Calibration photos are read by their own processing network (run 19), surveyed like any
#: photo: the game photos' network (the average of runs 19 and 21) counts real photos better,
#: but through it calibration refuses more photos and sets higher deck thresholds
#: (git history of models/MODEL_CARD.md, run 21).
CALIBRATION_DETECTOR_FILE = "card_detector_calibration.onnx"
#: The detector was trained on cards about 60-250 px long; photos are rescaled so that the
#: cards come out near this length (measured in a quick first pass at low resolution).
TARGET_CARD_LONG_PX = 120.0
#: First-pass size: enough to see cards of any usual size roughly.
SURVEY_LONG_SIDE_PX = 640
#: Large photos also get a survey at this size (0: off), read at its centre
#: peaks: cards under ~30 px long in the 640 px survey blur into blobs that the size head reads
#: as one huge card, and the photo would be processed far too small (measured with a
#: retired probe, benchmarks/detector_operating_point.py in git history).
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
#: pixels (chosen by the retired benchmarks/tune_detector.py, in git history); the fine survey
#: always reads its peaks.
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
#: Photos are never enlarged: on 20 validation scenes (detector run 1), allowing 1.5x
#: enlargement of small cards gave the same recall and precision (0.739 / 0.86) and took 23% longer (10.1 s vs 8.2 s).
MAX_UPSCALE = 1.0
#: Game photos whose processed image is small are also read at these factors of the planned
#: scale, and the network's maps averaged on the planned scale's grid. On small images the
#: maps change a lot with the exact scale: nudged by 2%, the 45 sure real photos (processed
#: at ~320 px) went from 51 to 69-77 cards off. Averaged over 0.95, 1 and 1.05 they are off
#: by 58 cards on average over nudges of up to 6%, against 72 for one pass (git history of
#: docs/BENCHMARKS.md, "One scale's luck").
SCALE_AVERAGE_FACTORS = (0.95, 1.05)
#: ...where the processed image has at most this many pixels: the extra passes cost about
#: twice the one pass, which larger images cannot afford.
SCALE_AVERAGE_MAX_PX = 1_000_000


def network_input(image_bgr: np.ndarray) -> np.ndarray:
    """The (1, 3, h, w) float32 RGB tensor in [0, 1], padded to a multiple of 32."""
    height, width = image_bgr.shape[:2]
    # The encoder downsamples 5 times.
    pad_h, pad_w = (-height) % 32, (-width) % 32
    if pad_h or pad_w:
        image_bgr = cv2.copyMakeBorder(image_bgr, 0, pad_h, 0, pad_w, cv2.BORDER_REFLECT_101)
    # Written plane by plane into the contiguous tensor that onnxruntime needs, then scaled
    # in place: the same values as converting, scaling and transposing the whole image, which
    # took three float copies (onnxruntime made the last one contiguous) and ~40% longer.
    tensor = np.empty((1, 3, *image_bgr.shape[:2]), np.float32)
    for channel, plane in enumerate(reversed(cv2.split(image_bgr))):
        tensor[0, channel] = plane
    tensor *= np.float32(1.0 / 255.0)
    return tensor


class CardDetector:
    """Holds only the ONNX sessions; ``detect`` returns results instead of storing them.

    ``surveyor``, another detector, runs the survey passes (card size and region) in place
    of this one. Without ``session`` the shipped processing model is used, surveyed by the
    shipped survey model (:func:`survey_detector`); a detector given only a ``session``
    surveys with that model itself. Small processed images are also read at each of
    ``scale_factors`` times the planned scale (:data:`SCALE_AVERAGE_FACTORS`; empty: one pass).
    """

    def __init__(self, session: ort.InferenceSession | None = None,
                 surveyor: CardDetector | None = None,
                 scale_factors: tuple[float, ...] = SCALE_AVERAGE_FACTORS) -> None:
        if session is None:
            session = _packaged_session(DETECTOR_FILE)
            surveyor = surveyor or survey_detector()
        self.session = session
        self.input_name = self.session.get_inputs()[0].name
        self.surveyor = surveyor
        self.scale_factors = tuple(scale_factors)

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
        self, image_bgr: np.ndarray, settings: DetectorSettings | None = None
    ) -> CardDetections:
        """Every card in ``image_bgr`` (any size; processed at the scale that suits the cards),
        read from the maps with ``settings`` (default: the shipped :class:`DetectorSettings`)."""
        height, width = image_bgr.shape[:2]
        maps, work_wh, (factor, offset_xy) = self.processing_maps(image_bgr)
        cards = cards_from_maps(maps, work_wh, settings or DetectorSettings())
        return cards.placed(factor, offset_xy, (width, height))

    def processing_maps(
        self, image_bgr: np.ndarray
    ) -> tuple[np.ndarray, tuple[int, int], tuple[float, tuple[int, int]]]:
        """The network maps of the photo's card region at the scale that suits its cards.

        Returns the maps, the size (w, h) of the image they were computed on, and the factor and
        offset that take that image's pixels back to the photo's (``CardDetections.placed``).
        """
        height, width = image_bgr.shape[:2]
        surveyor = self.surveyor or self
        survey, survey_factor = resize_to_long_side(image_bgr, SURVEY_LONG_SIDE_PX)
        survey_maps = surveyor.predict_maps(survey)
        plan = plan_processing(survey_maps, survey_factor, (width, height))
        if FINE_SURVEY_LONG_SIDE_PX and max(width, height) >= FINE_SURVEY_MIN_PHOTO_PX:
            plan = surveyor._checked_by_fine_survey(image_bgr, survey_maps, plan)
        x0, y0, x1, y1 = plan.roi_xyxy
        if surveyor is self and plan.scale == 1.0 and survey_factor == 1.0 \
                and plan.roi_xyxy == (0, 0, width, height):
            # A small photo processed whole at its own size: the survey pass was the real pass.
            return survey_maps, (width, height), (1.0, (0, 0))
        crop = image_bgr[y0:y1, x0:x1]
        if plan.scale != 1.0:
            crop = _resized(crop, (max(32, round((x1 - x0) * plan.scale)), max(32, round((y1 - y0) * plan.scale))))
        work_wh = (crop.shape[1], crop.shape[0])
        maps = self.predict_maps(crop)
        if self.scale_factors and work_wh[0] * work_wh[1] <= SCALE_AVERAGE_MAX_PX:
            maps = self._averaged_over_scales(image_bgr[y0:y1, x0:x1], work_wh, maps)
        # The exact inverse of the (rounded) resize.
        return maps, work_wh, ((x1 - x0) / work_wh[0], (x0, y0))

    def _averaged_over_scales(self, roi_bgr: np.ndarray, work_wh: tuple[int, int],
                              maps: np.ndarray) -> np.ndarray:
        """``maps`` (of ``roi_bgr`` resized to ``work_wh``) averaged with the maps of the
        region resized to each of :attr:`scale_factors` times that, each resampled onto the
        grid of ``maps``; the size head's log2 lengths are rescaled with them."""
        grid_wh = (maps.shape[2], maps.shape[1])
        total = maps.copy()
        for factor in self.scale_factors:
            size_wh = (max(32, round(work_wh[0] * factor)), max(32, round(work_wh[1] * factor)))
            other = self.predict_maps(_resized(roi_bgr, size_wh))
            other = cv2.resize(np.ascontiguousarray(other.transpose(1, 2, 0)), grid_wh,
                               interpolation=cv2.INTER_LINEAR).transpose(2, 0, 1)
            # A card measures this many times its length at the planned scale.
            other[5] -= np.float32(math.log2(size_wh[0] / work_wh[0]))
            total += other
        total /= np.float32(1 + len(self.scale_factors))
        return total


def _resized(image_bgr: np.ndarray, size_wh: tuple[int, int]) -> np.ndarray:
    """``image_bgr`` resized to ``size_wh``: area-averaged when shrinking (no aliasing of thin
    strips), bilinear when enlarging."""
    shrink = size_wh[0] * size_wh[1] < image_bgr.shape[0] * image_bgr.shape[1]
    return cv2.resize(image_bgr, size_wh, interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)


@functools.cache
def _packaged_session(model_file: str) -> ort.InferenceSession:
    """The session of a shipped detector network, loaded once per process: a session only
    runs the network, so every detector on that file can share it."""
    return load_packaged_model(model_file)


@functools.cache
def survey_detector() -> CardDetector:
    """A detector on the shipped survey model alone (it surveys for itself); created once per
    process and shared by every detector it surveys for (a detector holds only sessions)."""
    return CardDetector(_packaged_session(SURVEY_DETECTOR_FILE))


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


@functools.cache
def _shipped_detector(model_file: str,
                      scale_factors: tuple[float, ...] = SCALE_AVERAGE_FACTORS) -> CardDetector:
    """The shipped processing network ``model_file`` behind the shipped survey model, reading
    small regions at ``scale_factors`` too, each created once per process."""
    return CardDetector(_packaged_session(model_file), survey_detector(), scale_factors)


def detect_cards(image_bgr: np.ndarray, settings: DetectorSettings | None = None) -> CardDetections:
    """Find every card in a BGR photo with the shipped detector (session created once), read
    with ``settings`` (default: the shipped :class:`DetectorSettings`)."""
    return _shipped_detector(DETECTOR_FILE).detect(image_bgr, settings)


def calibration_detector() -> CardDetector:
    """The shipped calibration network (:data:`CALIBRATION_DETECTOR_FILE`) behind the shipped
    survey model, created once per process. It reads every photo in one pass: the deck
    thresholds were measured on one-pass outlines, and averaged scales identified worse
    (git history of docs/BENCHMARKS.md, "One scale's luck")."""
    return _shipped_detector(CALIBRATION_DETECTOR_FILE, ())


def detect_calibration_cards(image_bgr: np.ndarray,
                             settings: DetectorSettings | None = None) -> CardDetections:
    """:func:`detect_cards` for a deck's calibration photo: the shipped calibration network
    (:data:`CALIBRATION_DETECTOR_FILE`), surveyed by the shipped survey model."""
    return calibration_detector().detect(image_bgr, settings)
