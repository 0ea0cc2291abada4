"""The map-to-cards step of the detector, on hand-made network maps (no model needed)."""

import cv2
import numpy as np
import pytest

from cardtally.vision.detect import MAX_LONG_SIDE_PX, TARGET_CARD_LONG_PX, plan_processing
from cardtally.vision.watershed_cards import (
    DetectorSettings,
    _snapped_axis_deg,
    cards_from_maps,
    find_peaks,
)


def _maps_for_rects(rects: list[tuple[int, int, int, int]], shape=(100, 140)) -> np.ndarray:
    """Foreground/edge/centre/orientation maps for axis-aligned visible parts (x0, y0, x1, y1)."""
    maps = np.zeros((6,) + shape, np.float32)
    for x0, y0, x1, y1 in rects:
        maps[0, y0:y1, x0:x1] = 1.0
        cv2.rectangle(maps[1], (x0, y0), (x1 - 1, y1 - 1), 1.0, 1)
        cx, cy = (x0 + x1 - 1) // 2, (y0 + y1 - 1) // 2
        blob = np.zeros(shape, np.float32)
        blob[cy, cx] = 1.0
        blob = cv2.GaussianBlur(blob, (0, 0), 1.5)
        maps[2] = np.maximum(maps[2], blob / blob.max())
        maps[3, y0:y1, x0:x1] = -1.0  # long axis vertical: cos(2*90deg) = -1
    return maps


def test_touching_cards_are_separated_by_their_edges() -> None:
    # A shingled row: three visible strips side by side, touching.
    maps = _maps_for_rects([(10, 10, 24, 70), (24, 10, 38, 70), (38, 10, 80, 70)])
    dets = cards_from_maps(maps, (280, 200))
    assert len(dets) == 3
    # Coordinates come back in input pixels (stride 2).
    assert sorted((dets.centre_xy[:, 0] // 2).astype(int).tolist()) == [16, 30, 58]
    strips = sorted(dets.strip_px.tolist())
    assert strips[0] >= 20 and strips[-1] >= 70
    assert np.allclose(dets.angle_deg, 90.0, atol=1.0)


def test_empty_maps_give_no_cards() -> None:
    dets = cards_from_maps(np.zeros((6, 50, 60), np.float32), (120, 100))
    assert len(dets) == 0 and dets.image_wh == (120, 100)


def test_find_peaks_orders_strongest_first() -> None:
    centre = np.zeros((20, 20), np.float32)
    centre[5, 5], centre[15, 12] = 0.5, 0.9
    assert find_peaks(centre, 0.3, 5).tolist() == [[12, 15], [5, 5]]


def test_a_plateau_of_equal_maxima_is_one_peak() -> None:
    centre = np.zeros((20, 20), np.float32)
    centre[8:10, 8:11] = 0.6  # six touching pixels of one value, as an int8 model gives
    centre[15, 3] = 0.4
    assert find_peaks(centre, 0.3, 5).tolist() == [[8, 8], [3, 15]]


def test_a_lone_card_is_outlined_by_its_whole_area() -> None:
    # One card of 30 x 46 output pixels: its outline must cover the card, not stop a pixel
    # inside it at the watershed boundary and the contour through pixel centres.
    maps = _maps_for_rects([(20, 20, 50, 66)])
    dets = cards_from_maps(maps, (280, 200))
    polygon = dets.visible_polygons_xy[0]
    # Card pixels 40-100 x 40-132 in the input; the edge ring itself is the card's last pixel.
    (x0, y0), (x1, y1) = polygon.min(axis=0), polygon.max(axis=0)
    assert [x0, y0, x1, y1] == pytest.approx([40, 40, 100, 132], abs=1.5)
    assert cv2.contourArea(polygon) > 0.88 * 60 * 92
    # Without the growth the same card comes out a pixel smaller on every side.
    plain = cards_from_maps(maps, (280, 200), DetectorSettings(region_grow_px=0))
    assert cv2.contourArea(plain.visible_polygons_xy[0]) < 0.85 * 60 * 92


def test_the_card_axis_snaps_to_the_visible_rectangle_side_near_the_head() -> None:
    # The visible rectangle's long side at 10 degrees, its short side at 100.
    assert _snapped_axis_deg(4.0, 10.0, 15.0) == pytest.approx(10.0)
    assert _snapped_axis_deg(92.0, 10.0, 15.0) == pytest.approx(100.0)
    assert _snapped_axis_deg(50.0, 10.0, 15.0) == pytest.approx(50.0)  # neither side: the head


def test_the_survey_size_head_sets_the_scale_and_the_region_of_interest() -> None:
    # Survey of a 4000x3000 photo at 640x480 (factor 6.25): output maps 240x320.
    survey = np.zeros((6, 240, 320), np.float32)
    survey[0, 100:140, 150:200] = 1.0  # cards in one patch
    survey[5, 100:140, 150:200] = np.log2(40.0)  # cards 40 output px = 80 survey px long
    survey[0, 5:8, 5:8] = 1.0  # a speck of table texture: not a card, not in the region
    survey[5, 5:8, 5:8] = 9.0
    plan = plan_processing(survey, 6.25, (4000, 3000))
    assert plan.card_long_px == pytest.approx(500.0)  # 40 * stride 2 * factor 6.25
    assert plan.scale == pytest.approx(TARGET_CARD_LONG_PX / 500.0)
    # The patch (x 1875-2500, y 1250-1750 in photo pixels) plus 0.75 card lengths around it.
    assert plan.roi_xyxy == (1500, 875, 2875, 2125)


def test_a_survey_without_cards_processes_the_whole_photo_within_the_size_limit() -> None:
    plan = plan_processing(np.zeros((6, 240, 320), np.float32), 6.25, (4000, 3000))
    assert plan.card_long_px is None
    assert plan.roi_xyxy == (0, 0, 4000, 3000)
    assert plan.scale == pytest.approx(MAX_LONG_SIDE_PX / 4000)


def test_card_size_read_at_centre_peaks_ignores_table_taken_for_one_big_card(monkeypatch) -> None:
    survey = np.zeros((6, 240, 320), np.float32)
    survey[0, 20:220, 20:160] = 1.0  # wood grain read as card pixels, "cards 200 px long"
    survey[5, 20:220, 20:160] = np.log2(200.0)
    for k in range(3):  # three small cards, 20 output px long, each with its centre peak
        x0 = 200 + 30 * k
        survey[0, 100:120, x0 : x0 + 13] = 1.0
        survey[5, 100:120, x0 : x0 + 13] = np.log2(20.0)
        survey[2, 110, x0 + 6] = 1.0
    monkeypatch.setattr("cardtally.vision.detect.SURVEY_SIZE_AT_PEAKS", False)
    assert plan_processing(survey, 6.25, (4000, 3000)).card_long_px == pytest.approx(2500.0)
    monkeypatch.setattr("cardtally.vision.detect.SURVEY_SIZE_AT_PEAKS", True)
    assert plan_processing(survey, 6.25, (4000, 3000)).card_long_px == pytest.approx(250.0)


def _fake_survey_maps(coarse_long_px: float, fine_long_px: float, seen_long_sides: list[int]):
    """A ``predict_maps`` stand-in: one patch of card pixels whose size head reads
    ``coarse_long_px`` (output px) in the 640 px survey and ``fine_long_px`` in any other,
    with one centre peak in the middle."""

    def fake_maps(self, image_bgr):
        height, width = image_bgr.shape[:2]
        seen_long_sides.append(max(width, height))
        maps = np.zeros((6, height // 2, width // 2), np.float32)
        maps[0, 10:40, 10:40] = 1.0
        maps[2, 25, 25] = 1.0
        maps[5, 10:40, 10:40] = np.log2(coarse_long_px if max(width, height) == 640 else fine_long_px)
        return maps

    return fake_maps


@pytest.mark.parametrize(
    ("coarse_long_px", "fine_long_px", "expected_card_px"),
    [
        # A blur of tiny cards read as one big card: 40 output px = 512 photo px at 640 px;
        # the fine survey's 30 px (= 192 photo px, 60 of its own px) is far smaller: taken,
        # lengthened by 1.15 like the first survey's reading.
        (40.0, 30.0, 192.0 * 1.15),
        # Readings that differ by less (60 px = 384 photo px, 0.75 of 512): the first
        # survey's reading, which the processing scale was tuned with, stands.
        (40.0, 60.0, 512.0),
        # Cards nearly filling the photo (150 output px = 1920 photo px): the fine survey sees
        # them 260 of its own px long, out of its depth; its smaller reading is not taken.
        (150.0, 130.0, 1920.0),
    ],
)
def test_a_large_photo_gets_a_second_survey_against_misread_tiny_cards(
    monkeypatch, coarse_long_px, fine_long_px, expected_card_px
) -> None:
    from cardtally.vision.detect import CardDetector

    seen_long_sides: list[int] = []
    monkeypatch.setattr(CardDetector, "predict_maps",
                        _fake_survey_maps(coarse_long_px, fine_long_px, seen_long_sides))
    detector = CardDetector(session=_NoSession())
    photo = np.zeros((3072, 4096, 3), np.uint8)
    _, _, (factor, _) = detector.processing_maps(photo)
    assert seen_long_sides[:2] == [640, 1280]
    assert factor == pytest.approx(expected_card_px / TARGET_CARD_LONG_PX, rel=0.02)


def test_a_fine_survey_that_sees_a_crowd_of_peaks_is_not_taken(monkeypatch) -> None:
    # A large card's print at 1280 px: the fine survey reads small "cards" (30 px, which a
    # blur of tiny cards would justify) but finds 11 centre peaks where the first found one.
    from cardtally.vision.detect import CardDetector

    seen_long_sides: list[int] = []
    one_peak = _fake_survey_maps(40.0, 30.0, seen_long_sides)

    def crowded(self, image_bgr):
        maps = one_peak(self, image_bgr)
        if max(image_bgr.shape[:2]) == 1280:
            for k in range(10):
                maps[2, 12 + 3 * k, 12 + 2 * k] = 1.0
        return maps

    monkeypatch.setattr(CardDetector, "predict_maps", crowded)
    _, _, (factor, _) = CardDetector(session=_NoSession()).processing_maps(
        np.zeros((3072, 4096, 3), np.uint8))
    assert factor == pytest.approx(512.0 / TARGET_CARD_LONG_PX, rel=0.02)


def test_a_photo_under_2560_px_gets_one_survey(monkeypatch) -> None:
    from cardtally.vision.detect import CardDetector

    seen_long_sides: list[int] = []
    monkeypatch.setattr(CardDetector, "predict_maps", _fake_survey_maps(40.0, 15.0, seen_long_sides))
    CardDetector(session=_NoSession()).processing_maps(np.zeros((1440, 2559, 3), np.uint8))
    assert seen_long_sides[0] == 640 and 1280 not in seen_long_sides
    seen_long_sides.clear()
    CardDetector(session=_NoSession()).processing_maps(np.zeros((1440, 2560, 3), np.uint8))
    assert seen_long_sides[:2] == [640, 1280]


class _NoSession:
    """Stands in for the ONNX session when the maps are faked."""

    def get_inputs(self):
        return [type("Input", (), {"name": "image"})()]


_LONE = DetectorSettings(lone_card_size_tolerance=0.15)


def _with_size(maps: np.ndarray, card_long_px: float) -> np.ndarray:
    maps[5][maps[0] > 0] = np.log2(card_long_px)
    return maps


def test_a_lone_card_cut_in_two_by_its_print_is_one_card() -> None:
    # Card 30 x 46 output px cut across by a printed band, beside a whole card of the same size.
    maps = _with_size(_maps_for_rects([(20, 20, 50, 43), (20, 43, 50, 66), (80, 20, 110, 66)]), 46)
    assert len(cards_from_maps(maps, (280, 200))) == 3  # off by default
    dets = cards_from_maps(maps, (280, 200), _LONE)
    assert len(dets) == 2
    polygon = max(dets.visible_polygons_xy, key=lambda p: cv2.contourArea(p) if p[:, 0].max() < 110 else 0)
    assert cv2.contourArea(polygon) > 0.85 * 60 * 92  # the whole card, in input pixels


def test_strips_of_a_row_are_never_joined_into_a_card() -> None:
    # Two half-card strips under a whole card: the strips alone would make a card's shape,
    # but they touch the top card, so they stay two cards.
    rects = [(20, 10, 50, 33), (20, 33, 50, 56), (20, 56, 50, 102), (80, 20, 110, 66)]
    maps = _with_size(_maps_for_rects(rects, shape=(120, 160)), 46)
    assert len(cards_from_maps(maps, (320, 240), _LONE)) == 4


def test_without_a_whole_card_to_measure_nothing_is_joined() -> None:
    maps = _with_size(_maps_for_rects([(20, 20, 50, 43), (20, 43, 50, 66)]), 46)
    assert len(cards_from_maps(maps, (280, 200), _LONE)) == 2
