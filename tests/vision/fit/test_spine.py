"""A row's band read from the region its cards cover, without each card's rectangle."""

import cv2
import numpy as np

from cardtally.vision.fit.band import BAND_CARD_LONG_PX, BAND_CARD_SHORT_PX
from cardtally.vision.fit.rows import fit_row
from cardtally.vision.fit.spine import row_band_from_region

from .test_rows import _backs, _row

CELL_PX = 4.0


def _region(scene, quads):
    """Centres of the CELL_PX cells of the photo that the row's cards cover."""
    mask = np.zeros(scene.image.shape[:2], np.uint8)
    for quad in quads:
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    h, w = mask.shape
    cells = cv2.resize(mask, (w // int(CELL_PX), h // int(CELL_PX)), interpolation=cv2.INTER_AREA)
    ys, xs = np.nonzero(cells)
    return np.stack([(xs + 0.5) * CELL_PX, (ys + 0.5) * CELL_PX], axis=1)


def _card_long_px(quads):
    sides = [np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1).max() for q in quads]
    return float(np.median(sides))


def test_a_row_is_read_from_its_region_and_counted():
    scene, quads, truth = _row([0] * 8, seed=3)
    band = row_band_from_region(scene.image, _region(scene, quads), CELL_PX, _card_long_px(quads), quads)
    assert band.card_wh == (BAND_CARD_SHORT_PX, BAND_CARD_LONG_PX)
    fit = fit_row(band, _backs(scene))
    assert fit.count == 8
    assert {strip.deck_name for strip in fit.strips} == {truth[0]}


def test_without_the_cards_rectangles_the_band_runs_square_to_the_spine():
    scene, quads, truth = _row([0, 1, 0, 1, 0, 1], seed=8)
    band = row_band_from_region(scene.image, _region(scene, quads), CELL_PX, _card_long_px(quads))
    fit = fit_row(band, _backs(scene))
    assert [strip.deck_name for strip in fit.strips] == truth
