"""The row program counts rendered shingled rows and names each strip's deck."""

import math

import cv2
import numpy as np
import pytest

from cardtally.models.synth.photo import Lighting
from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.fit.backs import CalibratedBack
from cardtally.vision.fit.band import (
    BAND_CARD_LONG_PX,
    BAND_CARD_SHORT_PX,
    BAND_END_MARGIN_PX,
    RowBand,
    row_band,
    stretch_band,
)
from cardtally.vision.fit.rows import fit_row, top_card_stretch
from cardtally.vision.rectify import CARD_FRAME_WH

QUIET = Lighting(gradient=(0.0, 0.0), vignetting=(0.0, 0.0), noise_sigma=(1.0, 1.0), glare_prob=0.0,
                 shadow_prob=0.0, defocus_prob=0.0, motion_blur_prob=0.0)
STEP_MM = 18.0


def _row(decks, seed=3, top_on_left=False, turned=(), tilt=0.1):
    """A row of cards offset along their short side, bottom card first; ``turned`` cards lie
    the other way up."""
    n = len(decks)
    xs = [(n - 1 - k if top_on_left else k) * STEP_MM for k in range(n)]
    # the row runs along the cards' short side, both turned by ``tilt``, as a hand lays it
    poses = [[x * math.cos(tilt), x * math.sin(tilt), tilt + (math.pi if k in turned else 0.0)]
             for k, x in enumerate(xs)]
    options = SceneOptions(image_wh=(900, 500), poses_mm=np.asarray(poses), card_wh_mm=(59.0, 91.0),
                           card_px=(150, 150), camera_tilt_deg=(10.0, 10.0), lens_distortion=0.0,
                           face_up_fraction=0.0, n_decks=max(decks) + 1, card_decks=tuple(decks),
                           lighting=QUIET, clutter=False, occluder_prob=0.0, table_kind="felt")
    scene = render_scene(seed, options)
    assert len(scene.cards) == n
    ordered = sorted(scene.cards, key=lambda c: np.asarray(c.quad_xy).mean(axis=0)[0])
    return scene, [np.asarray(c.quad_xy) for c in ordered], [scene.deck_names[c.deck_id] for c in ordered]


def _backs(scene):
    width, height = CARD_FRAME_WH
    return [CalibratedBack(name, cv2.resize(design, (width, height), interpolation=cv2.INTER_AREA),
                           np.zeros((height, width), np.float32))
            for name, design in zip(scene.deck_names, scene.deck_designs, strict=True)]


def test_the_band_is_one_card_high_and_spans_the_row():
    scene, quads, _ = _row([0] * 6)
    band = row_band(scene.image, quads)
    assert not band.landscape
    assert band.band_bgr.shape[0] == BAND_CARD_LONG_PX
    assert band.card_wh == (BAND_CARD_SHORT_PX, BAND_CARD_LONG_PX)
    step_px = STEP_MM / 59.0 * BAND_CARD_SHORT_PX
    expected = 5 * step_px + BAND_CARD_SHORT_PX + 2 * BAND_END_MARGIN_PX
    assert abs(band.length_px - expected) <= 3


@pytest.mark.parametrize("top_on_left", [False, True])
def test_a_row_of_one_deck_is_counted_in_either_stacking_direction(top_on_left):
    scene, quads, truth = _row([0] * 9, top_on_left=top_on_left, turned=(2, 5))
    fit = fit_row(row_band(scene.image, quads), _backs(scene))
    assert fit.count == 9
    assert fit.reversed == top_on_left
    assert {strip.deck_name for strip in fit.strips} == {truth[0]}


def test_each_strip_of_a_mixed_row_gets_its_own_deck():
    decks = [0, 0, 1, 1, 0, 1, 0, 1]
    scene, quads, truth = _row(decks, seed=5)
    fit = fit_row(row_band(scene.image, quads), _backs(scene))
    assert fit.count == len(decks)
    assert [strip.deck_name for strip in fit.strips] == truth


def test_a_band_squeezed_along_the_row_is_stretched_back_by_its_top_card():
    scene, quads, _ = _row([0] * 6, seed=3)
    squeezed = stretch_band(row_band(scene.image, quads), 0.88)
    stretch = top_card_stretch(squeezed, _backs(scene))
    assert abs(stretch * 0.88 - 1.0) <= 0.04


def test_a_band_shorter_than_a_card_holds_one_card():
    scene, quads, _ = _row([0] * 3, seed=3)
    band = row_band(scene.image, quads)
    short = band.card_wh[0] // 2
    cut = RowBand(band_bgr=band.band_bgr[:, :short], map_xy=band.map_xy[:, :short],
                  card_wh=band.card_wh, landscape=band.landscape)
    assert fit_row(cut, _backs(scene)).count == 1
