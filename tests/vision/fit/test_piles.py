"""The card fit names the deck of spread and piled cards on rendered scenes: calibrated decks,
a stranger deck left unknown, fronts face up, a family whose symbol is hidden doubtful."""

import math

import numpy as np
import pytest

from cardtally.models.synth.designs import named_design_family, random_back_design
from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.embed import BackEmbedder
from cardtally.vision.fit.back_median import build_back
from cardtally.vision.fit.card_fit import fit_backs
from cardtally.vision.fit.piles import fit_lone_card, fit_pile

from .test_back_median import card_frames
from .test_rows import QUIET

CARD_MM = (59.0, 91.0)


def calibrated(designs, names, seed):
    """Each deck calibrated from its own rendered calibration photo (other light)."""
    return fit_backs([build_back(name, card_frames(seed + k, design))
                      for k, (design, name) in enumerate(zip(designs, names, strict=True))])


def scene_of(seed, designs, names, poses=None, decks=None, face_up=0.0, preset="spread",
             n_cards=(12, 12)):
    options = SceneOptions(preset=preset, designs=designs, deck_names=names, n_cards=n_cards,
                           face_up_fraction=face_up, image_wh=(1600, 1200), lighting=QUIET,
                           clutter=False, occluder_prob=0.0, lens_distortion=0.0,
                           poses_mm=None if poses is None else np.asarray(poses),
                           card_wh_mm=CARD_MM if poses is not None else None,
                           card_decks=decks, card_px=(260, 260) if poses is not None else None)
    return render_scene(seed, options)


@pytest.fixture(scope="module")
def four_decks():
    rng = np.random.default_rng(46)
    designs = [random_back_design(rng) for _ in range(5)]
    names = ["red", "blue", "green", "gold", "stranger"]
    return designs, names, calibrated(designs[:4], names[:4], 4600)


@pytest.fixture(scope="module")
def embedder():
    return BackEmbedder()


def test_every_spread_card_of_four_calibrated_decks_gets_its_deck(four_decks, embedder):
    designs, names, backs = four_decks
    scene = scene_of(7, designs[:4], names[:4])
    fits = [fit_lone_card(scene.image, c.quad_xy, backs, embedder, c.visible_polygon_xy)
            for c in scene.cards]
    assert len(fits) == 12
    assert [f.deck_name for f in fits] == [c.deck_name for c in scene.cards]
    assert not any(f.face_up or f.doubtful for f in fits)
    assert min(f.margin for f in fits) >= 0.1


def test_a_stranger_deck_is_unknown_and_fronts_lie_face_up(four_decks, embedder):
    designs, names, backs = four_decks
    scene = scene_of(11, designs, names, face_up=0.25, n_cards=(16, 16),
                     decks=(4, 0, 1, 4, 2, 3) * 2 + (4, 0, 1, 2))
    fits = [fit_lone_card(scene.image, c.quad_xy, backs, embedder, c.visible_polygon_xy)
            for c in scene.cards]
    kinds = {"stranger": 0, "face up": 0, "calibrated": 0}
    for card, fit in zip(scene.cards, fits, strict=True):
        if card.face_up:
            kinds["face up"] += 1
            assert fit.face_up and fit.deck_name is None
        elif card.deck_name == "stranger":
            kinds["stranger"] += 1
            assert fit.deck_name is None and not fit.face_up
        else:
            kinds["calibrated"] += 1
            assert fit.deck_name == card.deck_name and not fit.face_up
    assert all(n >= 2 for n in kinds.values()), kinds


def pile_poses(n, seed, spread_mm=14.0):
    """``n`` cards dropped around one point, bottom card first."""
    rng = np.random.default_rng(seed)
    return [[float(x), float(y), float(a)] for x, y, a in
            zip(rng.normal(0, spread_mm, n), rng.normal(0, spread_mm, n),
                rng.uniform(0, 2 * math.pi, n), strict=True)]


def top_first(scene):
    return sorted(scene.cards, key=lambda c: -c.card_id)


def test_each_card_of_a_pile_of_five_gets_its_deck(four_decks, embedder):
    designs, names, backs = four_decks
    scene = scene_of(5, designs[:4], names[:4], poses=pile_poses(5, 3), decks=(0, 1, 2, 3, 1))
    cards = top_first(scene)
    assert len(cards) == 5
    fits = fit_pile(scene.image, [c.quad_xy for c in cards], backs, embedder)
    assert [f.deck_name for f in fits] == [c.deck_name for c in cards]
    assert all(not f.face_up for f in fits)


def test_a_family_card_is_told_by_its_symbol_and_doubtful_where_it_is_hidden(embedder):
    pairs = named_design_family(np.random.default_rng(6), n=4)
    designs, names = [d for _, d in pairs], [s for s, _ in pairs]
    backs = calibrated(designs, names, 4700)
    # The top card lies across the middle of the card under it: its symbol is hidden, its
    # ends show.
    poses = [[0.0, 0.0, 0.0], [0.0, 0.0, math.pi / 2]]
    scene = scene_of(9, designs, names, poses=poses, decks=(1, 2))
    top, under = top_first(scene)
    fits = fit_pile(scene.image, [top.quad_xy, under.quad_xy], backs, embedder)
    assert fits[0].deck_name == top.deck_name and not fits[0].doubtful
    assert fits[1].deck_name is None and fits[1].doubtful and not fits[1].face_up
    assert set(fits[1].candidates) == set(names)
