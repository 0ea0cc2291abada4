"""Siblings: a strip is told from its family's other decks by the windows that show in it, and
a strip that shows none takes its deck from its row, or stays doubtful."""

import cv2
import numpy as np
import pytest

from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.fit.backs import CalibratedBack
from cardtally.vision.fit.band import BAND_CARD_LONG_PX, BAND_CARD_SHORT_PX, RowBand, row_band
from cardtally.vision.fit.family import FrameWindow
from cardtally.vision.fit.rows import fit_row, oriented_templates
from cardtally.vision.fit.siblings import SiblingWindows, decide_siblings, template_box
from cardtally.vision.rectify import CARD_FRAME_WH

from .test_rows import QUIET

CARD_WH_MM = (59.0, 91.0)


def family_row(decks, steps_mm, seed, n_decks=None, tilt=0.05):
    """A row of Ligretto-like siblings offset along their short side by ``steps_mm`` (one step
    fewer than cards), bottom card on the left; the photo, the quads in order and each card's
    true deck name."""
    xs = np.concatenate([[0.0], np.cumsum(steps_mm)])
    poses = [[x, 0.0, tilt] for x in xs]
    options = SceneOptions(image_wh=(1100, 500), poses_mm=np.asarray(poses), card_wh_mm=CARD_WH_MM,
                           card_px=(150, 150), camera_tilt_deg=(8.0, 8.0), lens_distortion=0.0,
                           face_up_fraction=0.0, n_decks=n_decks or max(decks) + 1,
                           card_decks=tuple(decks), families=True, lighting=QUIET, clutter=False,
                           occluder_prob=0.0, table_kind="felt")
    scene = render_scene(seed, options)
    assert len(scene.cards) == len(decks)
    ordered = sorted(scene.cards, key=lambda c: np.asarray(c.quad_xy).mean(axis=0)[0])
    width, height = CARD_FRAME_WH
    backs = [CalibratedBack(name, cv2.resize(design, (width, height), interpolation=cv2.INTER_AREA),
                            np.zeros((height, width), np.float32))
             for name, design in zip(scene.deck_names, scene.deck_designs, strict=True)]
    return (row_band(scene.image, [np.asarray(c.quad_xy) for c in ordered]), backs,
            [scene.deck_names[c.deck_id] for c in ordered])


def decided(band, backs, n_cards):
    fit = fit_row(band, backs)
    assert fit.count == n_cards
    assert not fit.reversed
    return fit, decide_siblings(band, fit, backs, windows=SiblingWindows(backs))


def test_a_sorted_row_takes_the_deck_its_showing_symbols_name():
    # Narrow strips hide the middle symbol (this family has none in the corners); two wide
    # strips and the top card show it.
    steps = [14.0, 14.0, 50.0, 14.0, 14.0, 50.0, 14.0]
    band, backs, truth = family_row([2] * 8, steps, seed=9, n_decks=4)
    before, after = decided(band, backs, 8)
    assert [s.deck_name for s in after.strips] == truth
    assert [s.decided_by for s in after.strips] == ["row", "row", "window", "row", "row",
                                                    "window", "row", "window"]
    assert not any(s.doubtful for s in after.strips)
    assert all(len(s.candidates) == 4 for s in after.strips)
    # The whole-strip costs alone could not name the deck of the narrow strips.
    assert [s.deck_name for s in before.strips] != truth


def test_each_strip_of_a_mixed_sibling_row_is_told_by_its_own_symbol():
    decks = [0, 1, 1, 0, 1, 0]
    band, backs, truth = family_row(decks, [50.0] * 5, seed=5)
    _, after = decided(band, backs, len(decks))
    assert [s.deck_name for s in after.strips] == truth
    assert all(s.decided_by == "window" and not s.doubtful for s in after.strips)
    assert min(s.deck_margin for s in after.strips) >= 0.06


def test_a_strip_without_a_showing_window_in_a_mixed_row_stays_doubtful():
    decks = [0, 1, 0, 1, 1]
    band, backs, truth = family_row(decks, [50.0, 14.0, 50.0, 50.0], seed=9)
    _, after = decided(band, backs, len(decks))
    doubtful = [k for k, s in enumerate(after.strips) if s.doubtful]
    assert doubtful == [1]
    assert set(after.strips[1].candidates) == set(truth)
    assert [s.deck_name for k, s in enumerate(after.strips) if k != 1] == truth[:1] + truth[2:]


def _band(landscape: bool) -> RowBand:
    card_wh = ((BAND_CARD_LONG_PX, BAND_CARD_SHORT_PX) if landscape
               else (BAND_CARD_SHORT_PX, BAND_CARD_LONG_PX))
    empty = np.zeros((card_wh[1], card_wh[0], 3), np.uint8)
    return RowBand(band_bgr=empty, map_xy=np.zeros((*empty.shape[:2], 2), np.float32),
                   card_wh=card_wh, landscape=landscape)


@pytest.mark.parametrize("landscape", [False, True])
@pytest.mark.parametrize("turned", [False, True])
@pytest.mark.parametrize("mirrored", [False, True])
def test_a_window_lands_where_the_template_shows_it(landscape, turned, mirrored):
    width, height = CARD_FRAME_WH
    window = FrameWindow(10, 20, 50, 44)
    design = np.zeros((height, width, 3), np.uint8)
    design[window.y0:window.y1, window.x0:window.x1] = 255
    back = CalibratedBack("marked", design, np.zeros((height, width), np.float32))
    band = _band(landscape)
    template = oriented_templates(back, band)[1 if turned else 0]
    if mirrored:
        template = template[:, ::-1]
    ys, xs = np.nonzero(template[..., 0] > template[..., 0].min() + 50)
    x0, y0, x1, y1 = template_box(window, turned, band, mirrored)
    assert abs(x0 - xs.min()) <= 1 and abs(x1 - (xs.max() + 1)) <= 1
    assert abs(y0 - ys.min()) <= 1 and abs(y1 - (ys.max() + 1)) <= 1
