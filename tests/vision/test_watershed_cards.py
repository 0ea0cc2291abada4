"""The map-to-cards step of the detector (``vision.watershed_cards``), on hand-made network
maps (no model needed)."""

import cv2
import numpy as np
import pytest

from cardtally.vision.detections import CardDetections
from cardtally.vision.watershed_cards import (
    DetectorSettings,
    _snapped_axis_deg,
    cards_from_maps,
    find_peaks,
    lone_card_share,
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


_OFF = DetectorSettings(lone_card_size_tolerance=0.0)


def _with_size(maps: np.ndarray, card_long_px: float) -> np.ndarray:
    maps[5][maps[0] > 0] = np.log2(card_long_px)
    return maps


def _cut_card_maps(boundary_edge: float) -> np.ndarray:
    """A card 30 x 46 output px in two pieces meeting at rows 42-43, whose edge probability is
    ``boundary_edge``, beside a whole card of the same size."""
    maps = _with_size(_maps_for_rects([(20, 20, 50, 43), (20, 43, 50, 66), (80, 20, 110, 66)]), 46)
    maps[1, 42:44, 21:49] = boundary_edge
    return maps


def test_a_lone_card_cut_in_two_by_its_print_is_one_card() -> None:
    # The edge head sees the printed band only faintly.
    maps = _cut_card_maps(0.2)
    assert len(cards_from_maps(maps, (280, 200), _OFF)) == 3
    dets = cards_from_maps(maps, (280, 200))
    assert len(dets) == 2
    polygon = max(dets.visible_polygons_xy, key=lambda p: cv2.contourArea(p) if p[:, 0].max() < 110 else 0)
    assert cv2.contourArea(polygon) > 0.85 * 60 * 92  # the whole card, in input pixels


def test_pieces_meeting_along_a_card_edge_stay_two_cards() -> None:
    # The same shapes, but the edge head marks the line between them as a card's edge: a card
    # with a strip of the one beneath it. Only the calibration setting (no check) joins them.
    maps = _cut_card_maps(0.9)
    assert len(cards_from_maps(maps, (280, 200))) == 3
    no_check = DetectorSettings(lone_card_max_boundary_edge=1.0)
    assert len(cards_from_maps(maps, (280, 200), no_check)) == 2


def test_strips_of_a_row_are_never_joined_into_a_card() -> None:
    # Two half-card strips under a whole card: the strips alone would make a card's shape,
    # but they touch the top card, so they stay two cards.
    rects = [(20, 10, 50, 33), (20, 33, 50, 56), (20, 56, 50, 102), (80, 20, 110, 66)]
    maps = _with_size(_maps_for_rects(rects, shape=(120, 160)), 46)
    maps[1, 32:34, 21:49] = 0.2
    assert len(cards_from_maps(maps, (320, 240))) == 4


def test_without_a_whole_card_to_measure_nothing_is_joined() -> None:
    maps = _with_size(_maps_for_rects([(20, 20, 50, 43), (20, 43, 50, 66)]), 46)
    maps[1, 42:44, 21:49] = 0.2
    assert len(cards_from_maps(maps, (280, 200))) == 2


def _spread_maps() -> np.ndarray:
    """Ten cards of 30 x 46 output px lying apart in two rows; the first one has a faint second
    centre peak (0.18) beyond a line the edge head marks, so at 0.16 it is two cards."""
    rects = [(10 + 50 * col, 10 + 60 * row, 40 + 50 * col, 56 + 60 * row)
             for row in range(2) for col in range(5)]
    maps = _with_size(_maps_for_rects(rects, shape=(130, 260)), 46)
    maps[1, 40, 11:39] = 0.9
    blob = np.zeros((130, 260), np.float32)
    blob[48, 25] = 1.0
    blob = cv2.GaussianBlur(blob, (0, 0), 1.5)
    maps[2] = np.maximum(maps[2], 0.18 * blob / blob.max())
    return maps


def test_lone_card_share_counts_the_cards_touching_no_other() -> None:
    apart = cards_from_maps(_maps_for_rects([(10, 10, 40, 56), (60, 10, 90, 56)]), (280, 200))
    assert lone_card_share(apart) == 1.0
    row = cards_from_maps(_maps_for_rects([(10, 10, 24, 70), (24, 10, 38, 70), (60, 10, 90, 56)]),
                          (280, 200))
    assert lone_card_share(row) == pytest.approx(1 / 3)
    assert lone_card_share(CardDetections.empty((10, 10))) == 0.0


def test_a_spread_layout_is_read_at_its_own_centre_threshold() -> None:
    maps = _spread_maps()
    no_spread = DetectorSettings(spread_centre_threshold=0.0)
    assert len(cards_from_maps(maps, (520, 260), no_spread)) == 11
    # 9 of the 11 cards lie alone: a spread layout, read again at 0.20, where the faint peak
    # is gone.
    assert len(cards_from_maps(maps, (520, 260))) == 10


def test_a_spread_reading_that_loses_many_cards_is_not_taken() -> None:
    # The same photo where the re-read would keep 10 of 11 cards (91%): asked to keep 95%, the
    # reading at 0.16 stands.
    strict = DetectorSettings(spread_min_kept=0.95)
    assert len(cards_from_maps(_spread_maps(), (520, 260), strict)) == 11


def test_a_smoothed_centre_map_reads_two_ripples_on_one_card_as_one_peak() -> None:
    maps = _maps_for_rects([(20, 20, 50, 66)])
    ripples = np.zeros(maps.shape[1:], np.float32)
    ripples[43, 33], ripples[43, 37] = 1.0, 0.9  # two maxima 4 px apart, as a printed band gives
    ripples = cv2.GaussianBlur(ripples, (0, 0), 1.5)
    maps[2] = ripples / ripples.max()
    unjoined = DetectorSettings(lone_card_size_tolerance=0.0)  # only the peaks decide
    assert len(find_peaks(maps[2], unjoined.centre_threshold, unjoined.peak_window_px)) == 2
    assert len(cards_from_maps(maps, (280, 200), unjoined)) == 2
    smoothed = DetectorSettings(lone_card_size_tolerance=0.0, centre_blur_px=1.5)
    assert len(cards_from_maps(maps, (280, 200), smoothed)) == 1
    assert maps[2].max() == 1.0  # the caller's maps are left as they were
