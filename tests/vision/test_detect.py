"""The shipped ONNX detector on small rendered scenes with exact ground-truth counts."""

import numpy as np
import pytest

from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.models.synth.tables import random_table
from cardtally.vision.detect import (
    SCALE_AVERAGE_FACTORS,
    SCALE_AVERAGE_MAX_PX,
    SURVEY_DETECTOR_FILE,
    CardDetector,
    calibration_detector,
    network_input,
)
from cardtally.vision.onnx_session import load_packaged_model

# Seeds far from the training stream (training uses seed * 10_000_000 + index, seed < 90).
# The shipped detector is below its targets (issue 4): the scenes it still gets wrong are strict
# xfails, so each one fails CI as soon as a better model counts it exactly (then unmark it).
BELOW_TARGET = pytest.mark.xfail(
    strict=True,
    reason="the shipped detector is below its targets (issue 4): it splits cards with striped "
    "or busy printed backs and misses thin strips; see docs/BENCHMARKS.md",
)
CASES = [
    pytest.param("spread", 990_001, marks=BELOW_TARGET, id="spread"),
    pytest.param("rows", 990_002, marks=BELOW_TARGET, id="rows"),
    pytest.param("fan", 990_003, marks=BELOW_TARGET, id="fan"),
    pytest.param("pile", 990_004, marks=BELOW_TARGET, id="pile"),  # 8 of 7 since detector run 8
    # Exact before the three-scale average; 7 of 8 with it, which counts
    # the real photos better on average (git history of docs/BENCHMARKS.md, "One scale's luck").
    pytest.param("mixed", 990_005, marks=BELOW_TARGET, id="mixed"),
]


@pytest.fixture(scope="module")
def detector() -> CardDetector:
    return CardDetector()


@pytest.mark.parametrize(("preset", "seed"), CASES)
def test_counts_every_card(detector: CardDetector, preset: str, seed: int) -> None:
    options = SceneOptions(preset=preset, n_cards=(8, 24), image_wh=(960, 720), min_strip_px=14.0)
    scene = render_scene(seed, options)
    detections = detector.detect(scene.image)
    assert len(detections) == len(scene.cards)
    # Every detection sits on a different card.
    owners = {
        int(scene.owner_map[int(y), int(x)]) for x, y in detections.centre_xy.round().astype(int)
    }
    assert -1 not in owners and len(owners) == len(scene.cards)


def test_empty_table_gives_no_cards(detector: CardDetector) -> None:
    texture, _ = random_table(np.random.default_rng(7), (800, 600), 2.0, kind="wood")
    image = np.clip(texture, 0, 255).astype(np.uint8)
    detections = detector.detect(image)
    assert len(detections) == 0
    assert detections.image_wh == (800, 600)


def test_detections_are_in_original_image_coordinates(detector: CardDetector) -> None:
    scene = render_scene(990_006, SceneOptions(preset="spread", n_cards=(5, 5), image_wh=(2400, 1800)))
    detections = detector.detect(scene.image)
    assert detections.image_wh == (2400, 1800)
    # Every card is found at its place in the original photo (the photo was processed smaller).
    hit = {int(scene.owner_map[int(y), int(x)]) for x, y in detections.centre_xy}
    assert hit >= set(range(len(scene.cards)))


def test_a_surveyor_runs_the_survey_pass_and_this_detector_the_rest(detector: CardDetector) -> None:
    survey_shapes = []

    class Surveyor(CardDetector):
        def predict_maps(self, image_bgr: np.ndarray) -> np.ndarray:
            survey_shapes.append(image_bgr.shape[:2])
            return super().predict_maps(image_bgr)

    scene = render_scene(990_005, SceneOptions(preset="mixed", n_cards=(8, 24), image_wh=(960, 720)))
    surveyed = CardDetector(detector.session, surveyor=Surveyor(detector.session))
    got = surveyed.detect(scene.image)
    assert survey_shapes == [(480, 640)]  # the survey only; the processing pass is not its
    # The same model in both roles reads the photo exactly as that model alone does.
    want = CardDetector(detector.session).detect(scene.image)
    np.testing.assert_array_equal(got.centre_xy, want.centre_xy)
    np.testing.assert_array_equal(got.quad_xy, want.quad_xy)


def test_the_shipped_detector_surveys_with_the_shipped_survey_model(detector: CardDetector) -> None:
    surveyor = detector.surveyor
    assert surveyor is not None and surveyor.surveyor is None  # the survey model surveys itself
    image = np.full((480, 640, 3), 128, np.uint8)
    survey_maps = surveyor.predict_maps(image)
    want = CardDetector(load_packaged_model(SURVEY_DETECTOR_FILE)).predict_maps(image)
    np.testing.assert_array_equal(survey_maps, want)
    # Two different networks: the processing model's maps differ.
    assert not np.array_equal(detector.predict_maps(image), want)


def test_the_network_input_is_the_rgb_image_in_0_1_padded_to_32_and_contiguous() -> None:
    rng = np.random.default_rng(7)
    image_bgr = rng.integers(0, 256, (45, 70, 3), dtype=np.uint8)
    tensor = network_input(image_bgr[:, 3:])  # a view, as a tile is
    assert tensor.shape == (1, 3, 64, 96) and tensor.dtype == np.float32
    assert tensor.flags.c_contiguous
    rgb = image_bgr[:, 3:, ::-1].astype(np.float32) * (1.0 / 255.0)
    np.testing.assert_array_equal(tensor[0, :, :45, :67], rgb.transpose(2, 0, 1))
    # Padding mirrors the image (without repeating its last row and column).
    np.testing.assert_array_equal(tensor[0, :, 45, :67], tensor[0, :, 43, :67])
    np.testing.assert_array_equal(tensor[0, :, :45, 67], tensor[0, :, :45, 65])


def _recording(detector: CardDetector, scale_factors: tuple[float, ...]) -> tuple[CardDetector, list]:
    """A detector on ``detector``'s models that records the shape of every processing pass."""
    shapes: list[tuple[int, int]] = []

    class Recording(CardDetector):
        def predict_maps(self, image_bgr: np.ndarray) -> np.ndarray:
            shapes.append(image_bgr.shape[:2])
            return super().predict_maps(image_bgr)

    return Recording(detector.session, detector.surveyor, scale_factors), shapes


def test_a_small_processed_image_is_also_read_at_the_averaging_factors(detector: CardDetector) -> None:
    assert detector.scale_factors == SCALE_AVERAGE_FACTORS == (0.95, 1.05)
    scene = render_scene(990_005, SceneOptions(preset="mixed", n_cards=(8, 24), image_wh=(960, 720)))
    recording, shapes = _recording(detector, SCALE_AVERAGE_FACTORS)
    maps, (work_w, work_h), _ = recording.processing_maps(scene.image)
    assert work_w * work_h <= SCALE_AVERAGE_MAX_PX
    assert shapes == [(work_h, work_w), (round(0.95 * work_h), round(0.95 * work_w)),
                      (round(1.05 * work_h), round(1.05 * work_w))]
    assert maps.shape == (6, work_h // 2, work_w // 2)
    # A large processed image gets one pass: 40 small cards spread over a 1600 x 1200 photo
    # are processed at its own scale, nearly whole.
    scene = render_scene(990_009, SceneOptions(preset="spread", n_cards=(40, 40), image_wh=(1600, 1200)))
    shapes.clear()
    _, (work_w, work_h), _ = recording.processing_maps(scene.image)
    assert work_w * work_h > SCALE_AVERAGE_MAX_PX and shapes == [(work_h, work_w)]


def test_averaged_maps_read_the_card_size_of_the_planned_scale(detector: CardDetector) -> None:
    # A pass at half the scale sees every card half as long: its size head is rescaled before
    # averaging (unrescaled, the average would read the cards 2 ** 0.5 times too short).
    scene = render_scene(990_006, SceneOptions(preset="spread", n_cards=(5, 5), image_wh=(960, 720)))
    one_pass, _ = _recording(detector, ())
    half_too, shapes = _recording(detector, (0.5,))
    maps_one, _, _ = one_pass.processing_maps(scene.image)
    maps_both, _, _ = half_too.processing_maps(scene.image)
    assert len(shapes) == 2
    on_cards = maps_one[0] >= 0.5
    assert on_cards.sum() > 100
    shift = np.median(maps_both[5][on_cards]) - np.median(maps_one[5][on_cards])
    assert abs(shift) < 0.15


def test_calibration_photos_are_read_in_one_pass() -> None:
    assert calibration_detector().scale_factors == ()
