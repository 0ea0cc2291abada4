"""Synthetic scenes: exact labels, determinism, every preset and option (fast: small images)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from cardtally.models.synth import (
    Lighting,
    SceneOptions,
    card_crop,
    dense_targets,
    design_family,
    load_design,
    random_back_design,
    random_front,
    render_calibration_photo,
    render_scene,
)
from cardtally.models.synth.fronts import _court_figure

SMALL = SceneOptions(image_wh=(384, 288), n_cards=(8, 30))
QUIET = Lighting(glare_prob=0, shadow_prob=0, defocus_prob=0, motion_blur_prob=0,
                 noise_sigma=(0, 0), gradient=(0, 0), vignetting=(0, 0))


def _check_labels(scene, min_strip_px: float) -> None:
    h, w = scene.image.shape[:2]
    assert scene.owner_map.shape == (h, w)
    assert scene.owner_map.dtype == np.int32
    ids, counts = np.unique(scene.owner_map, return_counts=True)
    per_card = dict(zip(ids.tolist(), counts.tolist(), strict=True))
    # every label has visible pixels, every owner id has a label
    assert set(per_card) - {-1} == set(range(len(scene.cards)))
    for k, c in enumerate(scene.cards):
        assert c.visible_px == per_card[k]
        assert c.strip_px >= min_strip_px
        assert 0 < c.visible_fraction <= 1
        assert scene.owner_map[int(c.centre_xy[1]), int(c.centre_xy[0])] == k
        assert c.quad_xy.shape == (4, 2) and c.quad_xy.dtype == np.float32
        assert c.visible_polygon_xy.ndim == 2 and c.visible_polygon_xy.shape[1] == 2
        assert (c.deck_id == -1) == c.face_up
    counts_expected = {n: 0 for n in scene.deck_names}
    for c in scene.cards:
        if not c.face_up:
            counts_expected[scene.deck_names[c.deck_id]] += 1
    assert scene.counts() == counts_expected
    assert scene.face_up_count + sum(scene.counts().values()) == len(scene.cards)


@pytest.mark.parametrize("preset", ["mixed", "spread", "rows", "fan", "pile"])
def test_presets_render_with_consistent_labels(preset):
    opts = dataclasses.replace(SMALL, preset=preset, face_up_fraction=0.2)
    scene = render_scene(3, opts)
    assert scene.layout == preset
    assert scene.image.shape == (288, 384, 3) and scene.image.dtype == np.uint8
    assert len(scene.cards) > 0
    _check_labels(scene, opts.min_strip_px)


def test_same_seed_same_bytes_and_labels():
    a, b = render_scene(11, SMALL), render_scene(11, SMALL)
    assert a.jpeg_bytes == b.jpeg_bytes
    assert np.array_equal(a.image, b.image) and np.array_equal(a.owner_map, b.owner_map)
    assert [c.quad_xy.tolist() for c in a.cards] == [c.quad_xy.tolist() for c in b.cards]
    assert not np.array_equal(a.image, render_scene(12, SMALL).image)


def test_jpeg_bytes_decode_to_image():
    s = render_scene(2, SMALL)
    dec = cv2.imdecode(np.frombuffer(s.jpeg_bytes, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(dec, s.image)


def test_min_strip_is_enforced():
    opts = dataclasses.replace(SMALL, preset="rows", min_strip_px=25, n_cards=(20, 30))
    scene = render_scene(5, opts)
    _check_labels(scene, 25)


def test_pile_cards_keep_a_fifth_visible():
    opts = dataclasses.replace(SMALL, preset="pile", n_cards=(15, 20))
    for c in render_scene(4, opts).cards:
        assert c.visible_fraction >= 0.2 - 1e-6


def _two_card_scene(offset_frac: float, seed: int = 0, tilt=(0.0, 0.0)):
    w_mm, h_mm = 59.0, 91.0
    poses = np.array([[0, 0, 0], [offset_frac * w_mm, 0, 0]])
    opts = SceneOptions(image_wh=(800, 800), poses_mm=poses, card_wh_mm=(w_mm, h_mm),
                        card_px=(240, 240), camera_tilt_deg=tilt, lens_distortion=0.0,
                        face_up_fraction=0.0, n_decks=2, card_decks=(0, 1), lighting=QUIET)
    return render_scene(seed, opts), (w_mm, h_mm)


@pytest.mark.parametrize("offset_frac", [0.15, 0.3, 0.6])
def test_visible_fraction_of_card_covered_except_a_strip(offset_frac):
    scene, (w_mm, h_mm) = _two_card_scene(offset_frac)
    assert [c.card_id for c in scene.cards] == [0, 1]
    bottom, top = scene.cards
    r = scene.params["corner_mm"]
    # the top card's rounded corners uncover exactly what the bottom card's corners lack
    expected = offset_frac * w_mm * h_mm / (w_mm * h_mm - (4 - np.pi) * r * r)
    assert bottom.visible_fraction == pytest.approx(expected, abs=0.01)
    assert top.visible_fraction == pytest.approx(1.0, abs=0.01)
    px_per_mm = scene.params["camera"]["px_per_mm"]
    assert bottom.strip_px == pytest.approx(offset_frac * w_mm * px_per_mm, abs=2.0)
    assert scene.counts() == {scene.deck_names[0]: 1, scene.deck_names[1]: 1}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_quads_land_on_the_card_after_tilt_and_distortion(seed):
    opts = dataclasses.replace(SMALL, preset="spread", camera_tilt_deg=(25, 35),
                               lens_distortion=0.06, image_wh=(480, 360), n_cards=(3, 8))
    scene = render_scene(seed, opts)
    full = [k for k, c in enumerate(scene.cards) if c.visible_fraction > 0.99]
    assert full
    for k in full:
        quad = scene.cards[k].quad_xy
        inside = np.zeros(scene.owner_map.shape, np.uint8)
        cv2.fillPoly(inside, [np.round(quad * 8).astype(np.int32)], 1, cv2.LINE_8, 3)
        # straight quad edges vs edges bent by the lens: allow 1.5 px
        inside = cv2.dilate(inside, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (4, 4)))
        mine = scene.owner_map == k
        assert inside[mine].all()  # every pixel of the card is within its quad
        # and the quad is filled by the card except the rounded corners (a few %)
        assert mine.sum() / max(cv2.contourArea(quad), 1) > 0.93


def test_dense_targets_shapes_and_meaning():
    scene = render_scene(7, SMALL)
    t = dense_targets(scene, stride=2)
    for key in ("foreground", "edge", "centre", "instance", "deck"):
        assert t[key].shape == (144, 192), key
    assert t["instance"].dtype == np.int32 and t["foreground"].dtype == np.float32
    assert np.array_equal(t["foreground"] > 0, t["instance"] >= 0)
    near_cards = cv2.dilate(t["foreground"], np.ones((3, 3), np.uint8))
    assert t["edge"][near_cards == 0].sum() == 0  # edges follow card outlines
    assert t["edge"].sum() > 0
    assert 0 < t["centre"].max() <= 1
    for c in scene.cards:
        cy, cx = int(c.centre_xy[1] // 2), int(c.centre_xy[0] // 2)
        assert t["centre"][cy, cx] > 0.5


def test_card_crop_is_rectified_visible_part():
    scene, _ = _two_card_scene(0.3)
    crop = card_crop(scene, 1, size=64)
    assert crop.shape == (64, 64, 3) and crop.dtype == np.uint8
    strip = card_crop(scene, 0, size=64, fill_hidden=True)
    assert strip.shape == (64, 64, 3)


def test_families_and_given_designs():
    fam = SceneOptions(image_wh=(320, 240), n_cards=(5, 10), families=True)
    scene = render_scene(1, fam)
    assert len(scene.deck_names) == 4 and len(set(scene.deck_names)) == 4
    designs = [random_back_design(np.random.default_rng(i)) for i in range(2)]
    given = SceneOptions(image_wh=(320, 240), n_cards=(5, 10), designs=designs,
                         deck_names=["ann", "bob"])
    scene = render_scene(1, given)
    assert scene.deck_names == ["ann", "bob"]
    assert np.array_equal(scene.deck_designs[0], designs[0])


def test_calibration_photo_has_one_deck():
    design = random_back_design(np.random.default_rng(3))
    s = render_calibration_photo(1, design, image_wh=(480, 360), deck_name="me",
                                 colour_temp_k=(2700, 3000))
    assert s.deck_names == ["me"] and s.face_up_count == 0
    assert 1 <= len(s.cards) <= 10 and s.layout in ("spread", "rows")


def test_design_functions(tmp_path):
    rng = np.random.default_rng(0)
    for bordered in (None, True, False):
        d = random_back_design(rng, (118, 182), bordered=bordered)
        assert d.shape == (182, 118, 3) and d.dtype == np.uint8
    fam = design_family(rng, 4)
    assert len(fam) == 4 and all(f.shape == (364, 236, 3) for f in fam)
    diff = np.abs(fam[0].astype(int) - fam[1].astype(int)).sum(axis=2) > 0
    assert 0 < diff.mean() < 0.3  # same base, only the symbols differ
    assert random_front(rng).shape == (364, 236, 3)
    p = tmp_path / "back.png"
    cv2.imwrite(str(p), np.full((100, 70, 3), 200, np.uint8))
    assert load_design(p).shape == (364, 236, 3)


def test_options_are_validated():
    with pytest.raises(ValueError, match="preset"):
        SceneOptions(preset="heap")
    with pytest.raises(ValueError, match="n_cards"):
        SceneOptions(n_cards=(5, 2))
    with pytest.raises(ValueError, match="court_style must be flat or figure, got 'photo'"):
        SceneOptions(court_style="photo")


def test_court_figure_is_a_busy_picture_turned_half_way():
    """Court cards drawn as "figure" carry many colours, the lower half the upper one turned
    by 180 degrees; "flat" keeps the two-band picture the benchmark splits were rendered with."""
    picture = _court_figure(np.random.default_rng(3), (246, 128))
    assert picture.shape == (246, 128, 3)
    assert np.array_equal(picture, picture[::-1, ::-1])
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 20
    flat = [random_front(np.random.default_rng(seed)) for seed in range(40)]
    figure = [random_front(np.random.default_rng(seed), court_style="figure") for seed in range(40)]
    changed = [not np.array_equal(a, b) for a, b in zip(flat, figure, strict=True)]
    assert 0 < sum(changed) < 40  # only the court cards differ


@pytest.mark.parametrize("kind", ["wood", "felt", "cloth", "laminate", "tablecloth", "knit"])
def test_every_table_kind(kind):
    opts = dataclasses.replace(SMALL, table_kind=kind, n_cards=(3, 8))
    scene = render_scene(1, opts)
    assert scene.params["table"]["kind"] == kind
    _check_labels(scene, opts.min_strip_px)


@pytest.mark.parametrize("change", [
    {"card_px": (60, 90)},
    {"clutter": False, "lens_distortion": 0.0},
    {"camera_tilt_deg": (35, 35), "jpeg_quality": (50, 50)},
    {"lighting": QUIET},
    {"row_offset_frac": (0.15, 0.15), "preset": "rows"},
    {"occluder_prob": 1.0},
    {"busy_clutter": True, "court_style": "figure", "face_up_fraction": 1.0},
])
def test_options(change):
    opts = dataclasses.replace(SMALL, **change)
    scene = render_scene(2, opts)
    _check_labels(scene, opts.min_strip_px)
    if "card_px" in change:
        card_h_px = scene.params["card_wh_mm"][1] * scene.params["camera"]["px_per_mm"]
        assert 60 <= card_h_px <= 90
    if "jpeg_quality" in change:
        assert scene.params["jpeg_quality"] == 50


def test_knit_share_draws_knits_and_the_default_mixture_has_none():
    assert render_scene(3, dataclasses.replace(SMALL, knit_share=1.0)).params["table"]["kind"] == "knit"
    from cardtally.models.synth.tables import TABLE_KINDS, random_table

    rng = np.random.default_rng(0)
    drawn = {random_table(rng, (16, 16), 1.0)[1]["kind"] for _ in range(200)}
    assert drawn == set(TABLE_KINDS)  # every default kind, and never a knit
    with pytest.raises(ValueError, match="knit_share must be in"):
        SceneOptions(knit_share=1.5)


def test_given_designs_may_have_alpha_and_any_size():
    rgba = np.zeros((120, 80, 4), np.uint8)
    rgba[..., 2] = 200
    opts = dataclasses.replace(SMALL, designs=[rgba], n_cards=(3, 5))
    scene = render_scene(0, opts)
    assert scene.deck_names == ["deck0"]
    assert all(c.deck_id in (-1, 0) for c in scene.cards)


def test_calibration_lighting_override_must_be_a_lighting_field():
    design = random_back_design(np.random.default_rng(0))
    with pytest.raises(TypeError):
        render_calibration_photo(0, design, image_wh=(320, 240), sunlight=True)


def test_tables_are_float32_for_every_kind_and_colour():
    from cardtally.models.synth.tables import ALL_TABLE_KINDS, random_table

    rng = np.random.default_rng(0)
    for kind in ALL_TABLE_KINDS:
        for _ in range(4):  # tablecloths draw one of three patterns
            for white in (False, True):
                tex, info = random_table(rng, (64, 48), 1.0, kind, white=white)
                assert tex.dtype == np.float32 and tex.shape == (48, 64, 3), (kind, info)


def _is_ligretto_front(front: np.ndarray) -> bool:
    # Ligretto fronts are coloured inside a thin white rim; ordinary fronts stay white there.
    height, width = front.shape[:2]
    return int(np.ptp(front[height // 2, width // 10].astype(int))) > 60


def test_ordinary_front_share_sets_the_kind_of_face_up_cards():
    """The default keeps the benchmark splits' mixture (4 ordinary fronts in 10); the training
    renders ask for more ordinary white fronts."""
    def ligretto_count(share: float) -> int:
        return sum(_is_ligretto_front(random_front(np.random.default_rng(seed), ordinary_share=share))
                   for seed in range(60))

    assert ligretto_count(1.0) == 0
    assert ligretto_count(0.0) == 60
    assert 0 < sum(_is_ligretto_front(random_front(np.random.default_rng(seed)))
                   for seed in range(20)) < 20
    with pytest.raises(ValueError, match="ordinary_front_share must be in"):
        SceneOptions(ordinary_front_share=-0.1)
