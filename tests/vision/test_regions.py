"""Merging watershed regions that meet where the network sees no card edge."""

import numpy as np

from cardtally.vision.regions import boundary_edge_strength, merge_regions


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
