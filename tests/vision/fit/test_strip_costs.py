"""Strip costs against a direct computation: one correlation per strip start and width."""

import math

import cv2
import numpy as np
import pytest

from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.fit.backs import CalibratedBack
from cardtally.vision.fit.band import row_band
from cardtally.vision.fit.rows import oriented_templates
from cardtally.vision.fit.strip_costs import (
    CONTINUATION_PX,
    FLAT_VARIANCE,
    SHIFT_ROWS,
    band_lab,
    band_windows,
    strip_costs,
    strip_costs_both_ways,
)
from cardtally.vision.rectify import CARD_FRAME_WH

from .test_rows import QUIET


@pytest.fixture(scope="module")
def band_and_templates():
    """A rendered row of four cards of two decks as a Lab band, and the first deck's two turns."""
    step_mm, tilt = 20.0, 0.1
    poses = [[k * step_mm * math.cos(tilt), k * step_mm * math.sin(tilt), tilt] for k in range(4)]
    options = SceneOptions(image_wh=(600, 400), poses_mm=np.asarray(poses), card_wh_mm=(59.0, 91.0),
                           card_px=(150, 150), camera_tilt_deg=(10.0, 10.0), lens_distortion=0.0,
                           face_up_fraction=0.0, n_decks=2, card_decks=(0, 1, 0, 0),
                           lighting=QUIET, clutter=False, occluder_prob=0.0, table_kind="felt")
    scene = render_scene(7, options)
    quads = sorted((np.asarray(c.quad_xy) for c in scene.cards), key=lambda q: q.mean(axis=0)[0])
    band = row_band(scene.image, quads)
    width, height = CARD_FRAME_WH
    back = CalibratedBack("a", cv2.resize(scene.deck_designs[0], (width, height),
                                          interpolation=cv2.INTER_AREA),
                          np.zeros((height, width), np.float32))
    return band_lab(band.band_bgr), oriented_templates(back, band)


def _ncc(band_window: np.ndarray, template_window: np.ndarray) -> float:
    """Normalised cross-correlation of two equal Lab windows, each channel's mean removed,
    0 where either is flat."""
    a = band_window.astype(np.float64)
    b = template_window.astype(np.float64)
    a = a - a.mean(axis=(0, 1))
    b = b - b.mean(axis=(0, 1))
    pixels = a.shape[0] * a.shape[1]
    a_sq, b_sq = float((a * a).sum()), float((b * b).sum())
    if a_sq < FLAT_VARIANCE * pixels or b_sq < FLAT_VARIANCE * pixels:
        return 0.0
    return float((a * b).sum() / math.sqrt(a_sq * b_sq))


def _direct(band: np.ndarray, template: np.ndarray, x: int, w: int) -> tuple[float, float]:
    """Mismatch and continuation of the strip at x, w: the best of the vertical shifts."""
    length = band.shape[1]
    height, width = template.shape[:2]
    if w == 0 or x + w > length:
        return math.inf, 0.0
    best, continuation = math.inf, 0.0
    for shift in range(-SHIFT_ROWS, SHIFT_ROWS + 1):
        shifted = template[np.clip(np.arange(height) - shift, 0, height - 1)]
        mismatch = 1.0 - _ncc(band[:, x: x + w], shifted[:, :w])
        if mismatch < best:
            end = min(w + CONTINUATION_PX, width)
            best = mismatch
            continuation = (_ncc(band[:, x + w: x + end], shifted[:, w: end])
                            if end > w and x + end <= length else 0.0)
    return best, continuation


@pytest.mark.parametrize("turn", [0, 1])
def test_strip_costs_match_a_direct_correlation_both_ways(band_and_templates, turn):
    band, templates = band_and_templates
    template = templates[turn]
    width = template.shape[1]
    length = band.shape[1]
    windows = band_windows(band, width)
    laid, mirrored = strip_costs_both_ways(windows, template)
    # every width at starts from the band's start, middle and end (strips leaving the band,
    # tails cut short)
    end = length - width
    starts = [0, 1, 17, length // 2, end - 1, end, end + 1, end + width // 2,
              length - CONTINUATION_PX, length - 2, length - 1]
    for costs, band_read, template_read in ((laid, band, template),
                                            (mirrored, band[:, ::-1], template[:, ::-1])):
        assert costs.mismatch.shape == costs.continuation.shape == (length, width + 1)
        for x in starts:
            expected = np.array([_direct(band_read, template_read, x, w)
                                 for w in range(width + 1)])
            assert costs.mismatch[x] == pytest.approx(expected[:, 0], abs=1e-6)
            assert costs.continuation[x] == pytest.approx(expected[:, 1], abs=1e-6)


def test_strip_costs_are_the_band_as_laid(band_and_templates):
    band, templates = band_and_templates
    windows = band_windows(band, templates[0].shape[1])
    laid, _ = strip_costs_both_ways(windows, templates[0])
    costs = strip_costs(windows, templates[0])
    np.testing.assert_array_equal(costs.mismatch, laid.mismatch)
    np.testing.assert_array_equal(costs.continuation, laid.continuation)
