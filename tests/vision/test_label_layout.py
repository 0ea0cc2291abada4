"""Label placement of the review image (pure geometry, no drawing)."""

from __future__ import annotations

import numpy as np

from cardtally.vision.label_layout import place_labels


def overlaps(corners: list[tuple[int, int]], size_wh: tuple[int, int]) -> int:
    boxes = np.array([[x, y, x + size_wh[0], y + size_wh[1]] for x, y in corners], np.float64)
    count = 0
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            dx = min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0])
            dy = min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1])
            count += dx > 0 and dy > 0
    return count


def test_labels_on_a_shingled_row_are_staggered_along_the_strips():
    # Five 30 px strips of a shingled row, 400 px long; a label is wider than a strip, so
    # labels at the strips' centres would cover their neighbours'.
    strips = [np.array([[x, 100], [x + 30, 100], [x + 30, 500], [x, 500]], np.float32)
              for x in range(100, 250, 30)]
    centres = np.array([s.mean(axis=0) for s in strips])
    size_wh = (50, 24)
    at_centres = [(int(c[0] - 25), int(c[1] - 12)) for c in centres]
    assert overlaps(at_centres, size_wh) == 4

    corners = place_labels([size_wh] * 5, strips, centres, np.arange(5), (800, 600))

    assert overlaps(corners, size_wh) == 0
    for (x, y), strip in zip(corners, strips, strict=True):
        label_centre_x = x + size_wh[0] / 2
        assert strip[0, 0] <= label_centre_x <= strip[1, 0]  # each label sits on its own strip
        assert 100 <= y and y + size_wh[1] <= 500


def test_labels_stay_inside_the_image():
    card = np.array([[0, 0], [60, 0], [60, 90], [0, 90]], np.float32)
    corners = place_labels([(80, 30)], [card], np.array([[5.0, 5.0]]), np.arange(1), (200, 150))
    assert corners == [(0, 0)]
