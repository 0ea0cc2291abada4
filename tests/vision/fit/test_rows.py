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
from cardtally.vision.fit.rows import RowFitSettings, fit_row, top_card_stretch
from cardtally.vision.rectify import CARD_FRAME_WH

QUIET = Lighting(gradient=(0.0, 0.0), vignetting=(0.0, 0.0), noise_sigma=(1.0, 1.0), glare_prob=0.0,
                 shadow_prob=0.0, defocus_prob=0.0, motion_blur_prob=0.0)
STEP_MM = 18.0


def _row(decks, seed=3, top_on_left=False, turned=(), tilt=0.1, face_up_fraction=0.0):
    """A row of cards offset along their short side, bottom card first; ``turned`` cards lie
    the other way up."""
    n = len(decks)
    xs = [(n - 1 - k if top_on_left else k) * STEP_MM for k in range(n)]
    # the row runs along the cards' short side, both turned by ``tilt``, as a hand lays it
    poses = [[x * math.cos(tilt), x * math.sin(tilt), tilt + (math.pi if k in turned else 0.0)]
             for k, x in enumerate(xs)]
    options = SceneOptions(image_wh=(900, 500), poses_mm=np.asarray(poses), card_wh_mm=(59.0, 91.0),
                           card_px=(150, 150), camera_tilt_deg=(10.0, 10.0), lens_distortion=0.0,
                           face_up_fraction=face_up_fraction, n_decks=max(decks) + 1, card_decks=tuple(decks),
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


def _owner_edge(scene, band):
    """The share of the band's middle rows where the rendered owner changes to a card between
    column x - 1 and x: a sure edge cue."""
    owner = cv2.remap(scene.owner_map.astype(np.float32), band.map_xy, None, cv2.INTER_NEAREST,
                      borderValue=-1)
    middle = owner[owner.shape[0] // 4: 3 * owner.shape[0] // 4]
    edge = np.zeros(owner.shape[1])
    edge[1:] = ((middle[:, 1:] != middle[:, :-1]) & (middle[:, 1:] >= 0)).mean(axis=0)
    return edge


# What the row program gave on these rows before its strip costs were computed from one product
# for both stacking directions (float32 products over uncentred columns then, up to ~1e-5 off
# the exact correlations: the costs are compared to 1e-5).
EARLIER_SETTINGS = RowFitSettings(unknown_cost=0.8, edge_weight=0.5, edge_level=0.3)
EARLIER_FITS = [
    (dict(decks=[0, 0, 1, 1, 0, 1, 0, 1], seed=5), False, False,
     [(4, 19, "red"), (23, 19, "red"), (42, 19, "yellow"), (61, 18, "yellow"), (79, 20, "red"),
      (99, 18, "yellow"), (117, 19, "red"), (136, 62, "yellow")],
     -2.321235, 0.023046,
     [0.202813, 0.046378, 0.509413, 0.570797, 0.115469, 0.496573, 0.08355, 0.453771],
     [0.597187, 0.753622, 0.290587, 0.229203, 0.684531, 0.303427, 0.71645, 0.346229]),
    (dict(decks=[0] * 9, seed=3, top_on_left=True, turned=(2, 5)), True, True,
     [(5, 18, "red"), (23, 19, "red"), (42, 19, "red"), (61, 19, "red"), (80, 19, "red"),
      (99, 19, "red"), (118, 19, "red"), (137, 19, "red"), (156, 62, "red")],
     -7.926442, 0.700000,
     [0.098846, 0.149423, 0.1365, 0.154636, 0.103649, 0.093006, 0.099392, 0.076674, 0.061433],
     [0.701154, 0.650577, 0.6635, 0.645364, 0.696351, 0.706994, 0.700608, 0.723326, 0.738567]),
    (dict(decks=[2, 0, 1, 2, 2, 0, 1, 1, 0, 2], seed=11), True, True,
     [(5, 18, "red-2"), (23, 19, "teal"), (42, 19, "red"), (61, 19, "red-2"), (80, 19, "red-2"),
      (99, 19, "teal"), (118, 19, "red"), (137, 19, "red"), (156, 19, "teal"),
      (175, 62, "red-2")],
     -8.293820, 0.431622,
     [0.054697, 0.339057, 0.25626, 0.153641, 0.083919, 0.256268, 0.135981, 0.095332, 0.202859,
      0.030943],
     [0.134124, 0.460943, 0.058863, 0.157844, 0.147488, 0.515088, 0.107034, 0.105028, 0.573255,
      0.189847]),
]


@pytest.mark.parametrize(("row", "with_edge", "reversed_", "strips", "cost", "count_margin",
                          "mismatches", "deck_margins"), EARLIER_FITS)
def test_the_fit_of_a_rendered_row_is_unchanged(row, with_edge, reversed_, strips, cost,
                                                count_margin, mismatches, deck_margins):
    scene, quads, _ = _row(**row)
    band = row_band(scene.image, quads)
    fit = fit_row(band, _backs(scene), _owner_edge(scene, band) if with_edge else None,
                  EARLIER_SETTINGS)
    assert fit.reversed == reversed_
    assert [(s.start_px, s.width_px, s.deck_name) for s in fit.strips] == strips
    assert fit.cost == pytest.approx(cost, abs=1e-5)
    assert fit.count_margin == pytest.approx(count_margin, abs=1e-5)
    assert [s.mismatch for s in fit.strips] == pytest.approx(mismatches, abs=1e-5)
    assert [s.deck_margin for s in fit.strips] == pytest.approx(deck_margins, abs=1e-5)


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
