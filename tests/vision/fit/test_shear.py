"""Card edges that cross a band at a slant are measured from the edge map and squared."""

import numpy as np
import pytest

from cardtally.vision.fit.band import RowBand
from cardtally.vision.fit.shear import edge_slant, squared_band

HEIGHT, LENGTH, PERIOD = 62, 480, 40


def _slanted_lines(slant: float, value: float = 1.0) -> np.ndarray:
    """(HEIGHT, LENGTH) map with lines every PERIOD columns, moving ``slant`` columns a row."""
    rows = np.arange(HEIGHT)[:, None] + 0.5 - HEIGHT / 2
    cols = np.arange(LENGTH)[None, :] - slant * rows
    return np.where(np.abs((cols % PERIOD) - PERIOD / 2) < 1.5, value, 0.0).astype(np.float32)


@pytest.mark.parametrize("slant", [-0.35, 0.0, 0.2, 0.45])
def test_the_slant_of_regular_edges_is_measured(slant):
    measured = edge_slant(_slanted_lines(slant), card_width_px=62)
    assert np.abs(measured - slant).max() <= 0.06


def test_a_band_without_edges_is_left_as_it_is():
    assert not edge_slant(np.zeros((HEIGHT, LENGTH), np.float32), card_width_px=62).any()


def test_squaring_a_band_stands_its_slanted_lines_upright():
    photo = (255 - 200 * _slanted_lines(0.3)).astype(np.uint8)
    photo = np.repeat(photo[:, :, None], 3, axis=2)
    ys, xs = np.mgrid[0:HEIGHT, 0:LENGTH].astype(np.float32)
    band = RowBand(band_bgr=photo.copy(), map_xy=np.stack([xs, ys], axis=-1), card_wh=(62, 96),
                   landscape=False)
    squared = squared_band(band, photo, np.full(LENGTH, 0.3, np.float32))
    middle = slice(PERIOD, LENGTH - PERIOD)
    # upright lines: every row of a column sees the same grey, so the rows' spread is small
    before = band.band_bgr[:, middle, 0].astype(float).std(axis=0).mean()
    after = squared.band_bgr[:, middle, 0].astype(float).std(axis=0).mean()
    assert after < 0.2 * before
    assert squared.card_wh == band.card_wh and squared.map_xy.shape == band.map_xy.shape
    assert squared_band(band, photo, np.zeros(LENGTH, np.float32)) is band
