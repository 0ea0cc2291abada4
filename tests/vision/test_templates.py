"""Card-frame templates: building them, telling sibling decks apart, storing them.

Rendered Ligretto-style families (one design, a different symbol per deck) through the real
rectification; the shipped embedder alone cannot separate such decks.
"""

import numpy as np
import pytest

from cardtally.models.embedder.scenes import calibrate_from_scene, expected_owner, gt_detections
from cardtally.models.synth.designs import design_family
from cardtally.models.synth.photo import Lighting
from cardtally.models.synth.scene import SceneOptions, render_calibration_photo, render_scene
from cardtally.vision.decks import DeckSet
from cardtally.vision.embed import default_embedder
from cardtally.vision.identify import IdentifySettings, classify, identify
from cardtally.vision.rectify import card_crops, rectify_card
from cardtally.vision.templates import (
    TEMPLATE_WH,
    DeckTemplate,
    build_template,
    decode_template,
    encode_template,
    match_siblings,
    normalised_frame,
)

NAMES = ["anna", "ben", "cleo"]


def photo_frames(design, seed: int, kelvin: float, min_visible: float):
    photo = render_calibration_photo(seed, design, image_wh=(1280, 960), colour_temp_k=(kelvin, kelvin))
    dets = gt_detections(photo)
    frames = []
    for i in range(len(dets)):
        card, mask = rectify_card(photo.image, dets.quad_xy[i], dets.visible_polygons_xy[i])
        frame, small_mask = normalised_frame(card, mask)
        if small_mask.mean() >= min_visible:
            frames.append((frame, small_mask))
    return frames


@pytest.fixture(scope="module")
def family_templates():
    designs = design_family(np.random.default_rng(4), n=4)
    templates = [build_template(photo_frames(d, 100 + k, 6500, 0.0)) for k, d in enumerate(designs)]
    return designs, templates


def test_whole_cards_of_a_family_under_other_light(family_templates):
    designs, templates = family_templates
    results = []
    for k, design in enumerate(designs):
        for frame, mask in photo_frames(design, 200 + k, 2700, 0.9):
            match = match_siblings(templates, frame, mask)
            results.append((k, match.best, match.separation >= 0.15, match.visible_detail > 0.8))
    assert len(results) == 18
    assert all(want == got and sure and detail for want, got, sure, detail in results)


def test_a_strip_without_the_symbol_shows_no_detail(family_templates):
    designs, templates = family_templates
    frame, mask = photo_frames(designs[1], 201, 2700, 0.9)[0]
    strip = np.zeros_like(mask)
    strip[:, : TEMPLATE_WH[0] // 6] = True  # a finger-width strip along the long edge
    match = match_siblings(templates, frame, strip & mask)
    assert match.visible_detail < IdentifySettings().min_visible_detail


def test_nothing_to_compare():
    template = DeckTemplate(np.full((61, 40, 3), 0.5, np.float32), np.full((61, 40, 3), 0.1, np.float32))
    frame = np.full((61, 40, 3), 0.5, np.float32)
    mask = np.ones((61, 40), bool)
    assert match_siblings([template], frame, mask).best == -1  # one template: no siblings
    assert match_siblings([template, template], frame, mask).best == -1  # a flat card
    assert match_siblings([template, template], frame, np.zeros_like(mask)).best == -1
    assert build_template([(frame, np.zeros_like(mask))]) is None  # nothing visible enough


def test_encode_decode_round_trip(family_templates):
    template = family_templates[1][0]
    back = decode_template(encode_template(template))
    np.testing.assert_allclose(back.median, template.median, atol=1.25 / 255)
    np.testing.assert_allclose(back.spread, template.spread, atol=1.25 / 255)
    with pytest.raises(ValueError, match="^template median has 3 values, expected 7320$"):
        decode_template({"median": "AAAA", "spread": "AAAA"})
    with pytest.raises(ValueError, match="shape"):
        DeckTemplate(np.zeros((3, 3, 3), np.float32), np.zeros((3, 3, 3), np.float32))


def test_a_family_round_counts_exactly():
    """Three decks of one family, spread out under warm light: exact per-player counts.

    Embedders run 2 and 5 alone got 2 and 1 of these 15 cards right and the templates settled
    the rest; run 12, trained to name the symbols, gets all 15 on its own (the
    shipped models get this scene right, not every scene: docs/BENCHMARKS.md).
    """
    designs = design_family(np.random.default_rng(13), n=3)
    decks = DeckSet(())
    for k, name in enumerate(NAMES):
        photo = render_calibration_photo(200 + k, designs[k], image_wh=(1024, 768), deck_name=name,
                                         colour_temp_k=(6500, 6500))
        result = calibrate_from_scene(name, photo, decks, default_embedder())
        assert result.profile.template is not None
        decks = DeckSet((*decks.profiles, result.profile))
    options = SceneOptions(preset="spread", n_decks=3, designs=designs, deck_names=NAMES,
                           n_cards=(12, 18), image_wh=(1280, 960),
                           lighting=Lighting(colour_temp_k=(2700, 2700)))
    scene = render_scene(1, options)
    detections = gt_detections(scene)
    want = expected_owner(scene, NAMES)
    truth = {name: int((want == k).sum()) for k, name in enumerate(NAMES)}
    assert truth == {"anna": 9, "ben": 2, "cleo": 4}
    assert identify(scene.image, detections, decks).counts() == truth
    plain = classify(default_embedder().embed(card_crops(scene.image, detections)), decks)
    assert np.array_equal(plain.deck_index, want)


def test_crops_keep_the_rectified_frames_that_settle_siblings_reads():
    """identify warps each card once: the crops carry the frames the templates compare."""
    scene = render_scene(3, SceneOptions(preset="spread", n_cards=(4, 6), image_wh=(640, 480)))
    detections = gt_detections(scene)
    crops = card_crops(scene.image, detections, keep_rectified=True)
    assert crops.rectified is not None and len(crops.rectified) == len(detections)
    for i, (card, mask) in enumerate(crops.rectified):
        expected_card, expected_mask = rectify_card(
            scene.image, detections.quad_xy[i], detections.visible_polygons_xy[i])
        assert np.array_equal(card, expected_card) and np.array_equal(mask, expected_mask)
    assert card_crops(scene.image, detections).rectified is None


def test_cards_of_another_layout_stay_out_of_the_template(family_templates, monkeypatch):
    designs, _ = family_templates
    good = photo_frames(designs[0], 100, 6500, 0.5)
    # Outlines the detector got wrong (two cards merged, a card cut by its print) rectify a
    # card with its symbol elsewhere in the frame.
    wrong = [(np.roll(frame, TEMPLATE_WH[1] // 2, axis=0), mask) for frame, mask in good[:3]]
    clean = build_template(good)
    kept_out = build_template(good + wrong)
    np.testing.assert_array_equal(kept_out.median, clean.median)
    monkeypatch.setattr("cardtally.vision.templates.TEMPLATE_MIN_AGREEMENT", -1.0)
    taken_in = build_template(good + wrong)
    assert np.abs(taken_in.median - clean.median).mean() > 3 * np.abs(kept_out.median - clean.median).mean() + 0.01
