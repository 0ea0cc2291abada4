"""Training views: the detector's outline errors, and an unchanged stream without a spill."""

import cv2
import numpy as np

from cardtally.models.embedder import views
from cardtally.models.synth.designs import random_back_design

CARD_W_PX = 100.0


def strip_mask() -> np.ndarray:
    """A 30 x 150 px visible strip in the middle of a 200 x 200 px patch."""
    visible = np.zeros((200, 200), np.float32)
    visible[25:175, 85:115] = 1.0
    return visible


def polygon_mask(poly: np.ndarray) -> np.ndarray:
    mask = np.zeros((200, 200), np.uint8)
    cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
    return mask.astype(bool)


def extra_area(spill_share: float, seed: int) -> tuple[int, float]:
    """Pixels the detected outline adds beyond the strip, and how far the farthest lies."""
    visible = strip_mask()
    poly = views._detected_polygon(np.random.default_rng(seed), visible, CARD_W_PX, spill_share)
    extra = polygon_mask(poly) & ~(visible > 0.5)
    distance = cv2.distanceTransform((visible < 0.5).astype(np.uint8), cv2.DIST_L2, 5)
    return int(extra.sum()), float(distance[extra].max()) if extra.any() else 0.0


def test_a_spilled_outline_takes_in_a_rim_of_its_neighbours():
    high = views.SPILL_CARD_WIDTHS[1] * CARD_W_PX
    spilled = [extra_area(1.0, seed) for seed in range(20)]
    plain = [extra_area(0.0, seed) for seed in range(20)]
    # Never farther than the largest spill (plus the outline's own +-2 px and polygon fit) ...
    assert max(far for _, far in spilled) <= high + 4
    assert max(far for _, far in plain) <= 4
    # ... and a real rim, far more than the jitter (the smallest spill over the strip's short
    # side alone is 4 x 30 px).
    assert np.median([area for area, _ in spilled]) > max(120, 3 * np.median([area for area, _ in plain]))


def test_a_zero_spill_share_keeps_the_training_stream():
    # Runs trained before the spill existed must stay reproducible from their seeds.
    rng = np.random.default_rng(3)
    designs = [random_back_design(rng) for _ in range(4)]
    cv2.setRNGSeed(1)
    default = views.render_view(np.random.default_rng(9), designs[0], designs)
    cv2.setRNGSeed(1)
    zero = views.render_view(np.random.default_rng(9), designs[0], designs, spill_share=0.0)
    assert np.array_equal(default[0], zero[0]) and default[1] == zero[1]


def test_asking_what_a_view_shows_of_its_symbols_keeps_the_training_stream():
    from cardtally.models.embedder.batches import telling_masks
    from cardtally.models.synth.designs import design_family

    family = design_family(np.random.default_rng(5), n=4)
    for seed in range(4):
        cv2.setRNGSeed(1)
        plain = views.render_view(np.random.default_rng(seed), family[0], family)
        cv2.setRNGSeed(1)
        told = views.render_view(np.random.default_rng(seed), family[0], family,
                                 telling_masks=telling_masks(family))
        assert np.array_equal(plain[0], told[0]) and 0.0 <= told[1] <= 1.0


def _sharpness(crop: np.ndarray) -> float:
    """Mean absolute Laplacian of a crop's colours inside its mask, away from the mask's edge."""
    inside = cv2.erode((crop[3] > 0.5).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    laplacian = np.abs([cv2.Laplacian(np.ascontiguousarray(c), cv2.CV_32F) for c in crop[:3]])
    return float(laplacian.sum(axis=0)[inside].mean())


def test_a_calibration_like_view_shows_the_whole_card_sharply():
    rng = np.random.default_rng(11)
    designs = [random_back_design(rng) for _ in range(6)]
    game, calibration = [], []
    for seed, design in enumerate(designs * 2):
        cv2.setRNGSeed(1)
        crop, shown = views.render_view(np.random.default_rng(seed), design, designs,
                                        calibration_like=True)
        assert shown > 0.95  # nothing on top; only the outline's jitter
        calibration.append(_sharpness(crop))
        cv2.setRNGSeed(1)
        game.append(_sharpness(views.render_view(np.random.default_rng(seed), design, designs)[0]))
    # Larger and never blurred: finer detail reaches the 64 px crop.
    assert np.median(calibration) > 1.2 * np.median(game)
