"""Clusters of parts too small for a card (``vision.small_parts``), on hand-made network maps."""

import numpy as np

from cardtally.vision.detections import CardDetections
from cardtally.vision.small_parts import small_part_clusters, typical_card_long_px
from cardtally.vision.watershed_cards import DetectorSettings, cards_from_maps

from .test_watershed_cards import _maps_for_rects, _with_size

CARDS = [(10, 10, 40, 56), (50, 10, 80, 56), (90, 10, 120, 56)]  # 30 x 46 output px
STRIP = [(130, 10, 138, 56)]  # a shingled card's strip: narrow, but a whole side long
LONE_SMALL = [(200, 70, 208, 78)]  # a corner the photo's border or a hand leaves of a card
KEYS = [(10 + 11 * col, 80 + 11 * row, 19 + 11 * col, 89 + 11 * row)  # 9 x 9, 2 px apart
        for row in range(2) for col in range(5)]


def _desk_maps() -> np.ndarray:
    return _with_size(_maps_for_rects(CARDS + STRIP + LONE_SMALL + KEYS, shape=(110, 220)), 46)


def test_a_keyboard_s_keys_are_dropped_and_cards_kept() -> None:
    maps = _desk_maps()
    off = DetectorSettings(small_part_max_width_share=0.0)
    assert len(cards_from_maps(maps, (440, 220), off)) == 3 + 1 + 1 + 10
    cards = cards_from_maps(maps, (440, 220))
    # The three cards, the strip and the lone small part stay; the ten keys go.
    assert len(cards) == 5
    assert sorted((cards.centre_xy[:, 1] // 2).astype(int).tolist()) == [32, 32, 32, 32, 73]


def test_two_small_parts_side_by_side_stay() -> None:
    # Two cut corners next to each other: each has one small neighbour, not two.
    maps = _with_size(_maps_for_rects(CARDS + KEYS[:2], shape=(110, 220)), 46)
    assert len(cards_from_maps(maps, (440, 220))) == 5


def test_the_card_length_is_the_size_heads_median_at_the_cards() -> None:
    maps = _desk_maps()
    cards = cards_from_maps(maps, (440, 220), DetectorSettings(small_part_max_width_share=0.0))
    assert typical_card_long_px(maps[5], cards, 2) == 92.0  # 46 output px, in input pixels
    assert typical_card_long_px(maps[5], CardDetections.empty((440, 220)), 2) is None
    assert not small_part_clusters(cards, None, 0.5, 2, 1.0, 1.2).any()


def test_small_parts_touching_a_whole_card_are_pieces_of_cards() -> None:
    # Three small wedges along a whole card's lower edge, as near a fan's pivot: spared; the
    # same wedges away from it are keys.
    wedges = [(10 + 11 * col, 57, 19 + 11 * col, 66) for col in range(3)]
    along = _with_size(_maps_for_rects(CARDS + wedges, shape=(110, 220)), 46)
    assert len(cards_from_maps(along, (440, 220))) == 6
    apart = [(x0, y0 + 30, x1, y1 + 30) for x0, y0, x1, y1 in wedges]
    away = _with_size(_maps_for_rects(CARDS + apart, shape=(110, 220)), 46)
    assert len(cards_from_maps(away, (440, 220))) == 3
    never = DetectorSettings(small_part_sparing_widths=float("inf"))
    assert len(cards_from_maps(along, (440, 220), never)) == 3
