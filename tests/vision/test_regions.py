"""Merging watershed regions that meet where the network sees no card edge."""

import numpy as np

from cardtally.vision.regions import (
    absorb_enclosed_regions,
    boundary_edge_strength,
    merge_regions,
    region_neighbours,
)


def _two_regions_with_boundary(edge_value: float) -> tuple[np.ndarray, np.ndarray]:
    markers = np.ones((10, 12), np.int32)
    markers[2:8, 1:5] = 2
    markers[2:8, 6:11] = 3
    markers[2:8, 5] = -1  # watershed line between them
    edge = np.zeros((10, 12), np.float32)
    edge[2:8, 5] = edge_value
    return markers, edge


def test_boundary_strength_is_the_mean_edge_along_the_shared_line() -> None:
    markers, edge = _two_regions_with_boundary(0.8)
    strength = boundary_edge_strength(markers, edge)
    assert list(strength) == [(2, 3)]
    mean, length = strength[(2, 3)]
    assert np.isclose(mean, 0.8) and length == 6


def test_regions_without_an_edge_between_them_merge() -> None:
    markers, edge = _two_regions_with_boundary(0.05)
    merged = merge_regions(markers, edge, edge_threshold=0.3)
    assert set(np.unique(merged)) == {-1, 1, 2}


def test_regions_separated_by_an_edge_stay_apart() -> None:
    markers, edge = _two_regions_with_boundary(0.9)
    merged = merge_regions(markers, edge, edge_threshold=0.3)
    assert set(np.unique(merged)) == {-1, 1, 2, 3}


def _watershed(markers: np.ndarray) -> np.ndarray:
    """Run cv2.watershed on a flat relief: region borders become -1 as in the detector."""
    import cv2

    relief = np.zeros(markers.shape + (3,), np.uint8)
    markers = markers.astype(np.int32).copy()
    cv2.watershed(relief, markers)
    return markers


def _card_with_printed_motif() -> np.ndarray:
    """Table (1) around a card (2) whose middle holds a printed motif (3), and a second card (4)."""
    markers = np.zeros((60, 100), np.int32)
    markers[:, :] = 1
    markers[10:50, 10:40] = 0
    markers[12:48, 12:38] = 2
    markers[23:37, 18:32] = 0  # unknown: the flood decides, leaving a boundary
    markers[25:35, 20:30] = 3  # a motif inside card 2
    markers[10:50, 55:85] = 0
    markers[12:48, 57:83] = 4
    return _watershed(markers)


def test_region_neighbours_lists_regions_table_and_image_edge() -> None:
    markers = _card_with_printed_motif()
    neighbours = region_neighbours(markers)
    assert neighbours[3] == {2}
    assert neighbours[2] == {1, 3}
    assert neighbours[4] == {1}
    touching_edge = _watershed(np.pad(np.full((20, 20), 2, np.int32), ((0, 0), (0, 10)),
                                      constant_values=1))
    assert 0 in region_neighbours(touching_edge)[2]


def test_small_enclosed_region_joins_the_card_around_it() -> None:
    markers = _card_with_printed_motif()
    log_size = np.full(markers.shape, np.log2(40.0), np.float32)  # cards ~40 px long
    merged = absorb_enclosed_regions(markers, log_size, max_card_fraction=0.6)
    assert set(np.unique(merged[merged >= 2]).tolist()) == {2, 4}
    assert (merged[25:35, 20:30] == 2).all()
    # The ring between motif and card joined the card: no boundary is left inside it.
    assert not (merged[20:40, 15:35] == -1).any()


def test_enclosed_region_as_large_as_a_card_stays_a_card() -> None:
    markers = _card_with_printed_motif()
    tiny_cards = np.full(markers.shape, np.log2(8.0), np.float32)  # 100 motif px > a card's area
    merged = absorb_enclosed_regions(markers, tiny_cards, max_card_fraction=0.6)
    assert np.array_equal(merged, markers)
    assert np.array_equal(absorb_enclosed_regions(markers, tiny_cards, 0.0), markers)
