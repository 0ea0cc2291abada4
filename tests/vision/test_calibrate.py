"""Calibration from rendered photos and identification of a rendered round, end to end.

Runs the real shipped embedder on rendered scenes with ground-truth card outlines, so that the
counts checked here depend on identification alone.
"""

from importlib import resources

import numpy as np
import onnx
import pytest

from cardtally.errors import CardtallyError
from cardtally.models.embedder.scenes import calibrate_from_scene, expected_owner, gt_detections
from cardtally.models.synth.designs import random_back_design
from cardtally.models.synth.photo import Lighting
from cardtally.models.synth.scene import SceneOptions, render_calibration_photo, render_scene
from cardtally.vision.calibrate import design_groups, nearest_other_card, spherical_kmeans
from cardtally.vision.calibration_cards import MIN_USABLE_CARDS, keep_card_sized
from cardtally.vision.decks import DeckSet, load_decks, write_profile
from cardtally.vision.detections import FACE_UP, UNKNOWN, CardDetections
from cardtally.vision.embed import (
    EMBEDDER_FILE,
    BackEmbedder,
    background_embeddings,
    default_embedder,
    embedder_version,
)
from cardtally.vision.identify import identify

SEED = 7
#: A round with both decks, a stranger's deck and face-up cards. The shipped model gets this
#: scene exactly right; it does not get every scene right (see docs/BENCHMARKS.md).
SCENE_SEED = 1


@pytest.fixture(scope="module")
def designs() -> list[np.ndarray]:
    rng = np.random.default_rng(SEED)
    return [random_back_design(rng) for _ in range(3)]


@pytest.fixture(scope="module")
def calibrated(designs) -> DeckSet:
    decks = DeckSet(())
    for k, name in enumerate(["anna", "ben"]):
        photo = render_calibration_photo(100 + k, designs[k], image_wh=(1024, 768),
                                         deck_name=name, colour_temp_k=(6500, 6500))
        result = calibrate_from_scene(name, photo, decks, default_embedder())
        assert result.n_cards == len(photo.cards)
        assert result.closest is None
        decks = DeckSet((*decks.profiles, result.profile))
    return decks


def test_identify_a_round_under_warm_light(calibrated, designs, cardtally_home):
    for profile in calibrated.profiles:  # and through the data home, as the CLI does
        write_profile(profile)
    decks = load_decks()
    assert decks.names == ("anna", "ben")
    options = SceneOptions(
        preset="mixed", n_decks=3, designs=designs, deck_names=["anna", "ben", "stranger"],
        n_cards=(30, 40), face_up_fraction=0.1, image_wh=(1280, 960),
        lighting=Lighting(colour_temp_k=(2700, 2700)),
    )
    scene = render_scene(SCENE_SEED, options)
    ids = identify(scene.image, gt_detections(scene), decks)
    want = expected_owner(scene, ["anna", "ben"])
    truth = {"anna": int((want == 0).sum()), "ben": int((want == 1).sum())}
    assert min(truth.values()) >= 5 and (want == -1).sum() >= 5 and (want == FACE_UP).sum() >= 1
    assert ids.counts() == truth
    assert ids.face_up_count == int((want == FACE_UP).sum())
    assert ids.unknown_count == int((want == -1).sum())  # the uncalibrated deck is not counted
    assert (ids.deck_index[want == -1] == UNKNOWN).all()


def test_same_design_is_flagged_as_confusable(calibrated, designs):
    photo = render_calibration_photo(300, designs[0], image_wh=(1024, 768), colour_temp_k=(4000, 4000))
    result = calibrate_from_scene("anna-2", photo, calibrated, default_embedder())
    assert result.closest is not None and result.closest.deck == "anna"


def test_too_few_cards_is_refused(designs):
    photo = render_calibration_photo(5, designs[0], n_cards=(2, 2), image_wh=(800, 600))
    with pytest.raises(CardtallyError, match=f"^Found 2 usable card backs in x.png; need at least "
                                             f"{MIN_USABLE_CARDS}."):
        calibrate_from_scene("x", photo, DeckSet(()), default_embedder())


def test_two_photos_make_one_profile(designs):
    photos = [render_calibration_photo(seed, designs[0], n_cards=(2, 2), image_wh=(800, 600))
              for seed in (5, 6)]
    result = calibrate_from_scene("x", photos, DeckSet(()), default_embedder())
    assert result.n_cards == 4  # each photo alone is refused (test above)
    assert result.profile.name == "x"


def test_profiles_record_the_version_of_the_embedder_that_calibrated_them(designs, tmp_path):
    photo = render_calibration_photo(5, designs[0], n_cards=(4, 4), image_wh=(800, 600))
    shipped = calibrate_from_scene("x", photo, DeckSet(()), default_embedder())
    assert shipped.profile.embedder_version == embedder_version()
    # A candidate: the shipped network with another doc string, so another file and version.
    proto = onnx.load_from_string(resources.files("cardtally.models").joinpath(EMBEDDER_FILE).read_bytes())
    proto.doc_string = "candidate"
    onnx.save(proto, tmp_path / "candidate.onnx")
    np.save(tmp_path / "candidate_background.npy", background_embeddings())
    candidate = BackEmbedder.from_file(tmp_path / "candidate.onnx")
    result = calibrate_from_scene("x", photo, DeckSet(()), candidate)
    assert result.profile.embedder_version == candidate.version != embedder_version()
    bare = BackEmbedder(candidate.session)
    with pytest.raises(ValueError, match="has no version to calibrate with"):
        calibrate_from_scene("x", photo, DeckSet(()), bare)


def test_helpers():
    a = np.array([[1, 0], [0.99, 0.14], [0, 1], [0.1, 0.99]], np.float32)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    assert design_groups(a).tolist() == [0, 0, 1, 1]
    centres = spherical_kmeans(a, 2)
    assert sorted(np.argmax(a @ centres.T, axis=1).tolist()) == [0, 0, 1, 1]
    np.testing.assert_allclose(nearest_other_card(a, np.array([0, 0, 1, 1])),
                               [a[0] @ a[3], a[1] @ a[3], a[2] @ a[1], a[3] @ a[1]], atol=1e-6)


def square_detections(sides: list[float]) -> CardDetections:
    """Axis-aligned square "cards" of the given side lengths, in a row."""
    quads = []
    for k, side in enumerate(sides):
        x0 = 400.0 * k
        quads.append([[x0, 0], [x0 + side, 0], [x0 + side, side], [x0, side]])
    quad_xy = np.array(quads, np.float32)
    return CardDetections(
        quad_xy=quad_xy, visible_polygons_xy=tuple(quad_xy),
        centre_xy=quad_xy.mean(axis=1), angle_deg=np.zeros(len(sides), np.float32),
        score=np.ones(len(sides), np.float32), image_wh=(400 * len(sides), 400),
    )


def test_calibration_keeps_the_cards_of_the_photos_card_size():
    # Four cards and one outline of two cards merged (twice the area): the merged one goes.
    kept = keep_card_sized(square_detections([100, 102, 98, 101, 142]))
    assert kept.quad_xy[:, 1, 0].tolist() == [100, 502, 898, 1301]
    # Three whole cards and four pieces of others cut by their print, of assorted sizes: the
    # median area is a piece's and only one outline is near it. Dropping the rest would leave
    # too few cards to calibrate, so all are kept for the design check to judge.
    assert len(keep_card_sized(square_detections([100, 100, 100, 70, 55, 40, 30]))) == 7


def test_calibration_photos_are_read_with_the_lone_card_rule(monkeypatch):
    # Spread calibration cards lie alone: one cut in pieces by its print is joined again,
    # whatever the edge head says about the line between the pieces.
    import cardtally.vision.calibration_cards as cards_module
    from cardtally.vision.calibration_cards import CALIBRATION_DETECTOR_SETTINGS, find_cards

    seen = []

    def fake_detect_calibration_cards(image_bgr, settings=None):
        seen.append(settings)
        return square_detections([100, 100, 100])

    monkeypatch.setattr(cards_module, "detect_calibration_cards", fake_detect_calibration_cards)
    assert len(find_cards(np.zeros((64, 64, 3), np.uint8))) == 3
    assert seen == [CALIBRATION_DETECTOR_SETTINGS]
    assert CALIBRATION_DETECTOR_SETTINGS.lone_card_size_tolerance > 0
    assert CALIBRATION_DETECTOR_SETTINGS.lone_card_max_boundary_edge == 1.0
