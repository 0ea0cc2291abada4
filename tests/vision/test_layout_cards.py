"""Cards read from layout maps: with a perfect network's maps, every card of a sorted row, a
pile and a spread is found once, at its centre, with the photo's card size."""

import numpy as np
import pytest

from cardtally.models.layout.targets import oracle_maps
from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.layout.cards import LONG_OVER_SHORT, SHARP_VOTES, read_cards
from cardtally.vision.layout.maps import LayoutMaps


def _scene(preset, seed):
    return render_scene(seed, SceneOptions(preset=preset, n_decks=4, n_cards=(12, 30),
                                           image_wh=(960, 720), card_px=(120, 120)))


@pytest.mark.parametrize(("preset", "seed"), [("sorted", 3), ("rows", 4), ("pile", 5),
                                              ("spread", 6)])
def test_every_card_found_once_at_its_centre(preset, seed):
    scene = _scene(preset, seed)
    cards = read_cards(oracle_maps(scene), settings=SHARP_VOTES)
    true_xy = np.array([np.asarray(c.quad_xy).mean(axis=0) for c in scene.cards])
    assert len(cards) == len(scene.cards)
    distance = np.linalg.norm(cards.centre_xy[:, None] - true_xy[None], axis=-1)
    short_px = cards.card_long_px / LONG_OVER_SHORT
    assert (distance.min(axis=1) < 0.15 * short_px).all()
    assert sorted(distance.argmin(axis=1).tolist()) == list(range(len(scene.cards)))


def test_card_size_is_the_photo_s_card_size():
    scene = _scene("sorted", 3)
    cards = read_cards(oracle_maps(scene), settings=SHARP_VOTES)
    quads = np.stack([c.quad_xy for c in scene.cards])
    true_long = np.median(np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=-1).max(axis=1))
    assert abs(cards.card_long_px / true_long - 1) < 0.05
    sides = np.linalg.norm(cards.quad_xy - np.roll(cards.quad_xy, -1, axis=1), axis=-1)
    assert np.allclose(sides.max(axis=1), cards.card_long_px, rtol=1e-4)


def test_a_table_without_cards_has_none():
    h, w = 80, 120
    zeros = np.zeros((h, w), np.float32)
    maps = LayoutMaps(foreground=zeros + 0.1, edge=zeros, corner=zeros,
                      edge_orient=np.zeros((2, h, w), np.float32),
                      offset_xy=np.zeros((2, h, w), np.float32), card_long_cells=zeros + 30,
                      card_orient=np.zeros((2, h, w), np.float32),
                      image_wh=(4 * w, 4 * h))
    assert len(read_cards(maps)) == 0
