"""The detector's survey passes (``vision.detect``): card size, region and scale of the
processing pass, from hand-made or stand-in network maps (no model needed)."""

import numpy as np
import pytest

from cardtally.vision.detect import MAX_LONG_SIDE_PX, TARGET_CARD_LONG_PX, plan_processing


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
