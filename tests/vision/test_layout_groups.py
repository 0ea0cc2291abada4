"""Groups of cards read from a perfect layout network's maps: rows, fans, piles, lone cards."""

import numpy as np
import pytest

from cardtally.models.layout.targets import oracle_maps
from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.layout.cards import SHARP_VOTES, read_cards
from cardtally.vision.layout.groups import group_cards, overlapping


def _groups(preset, seed):
    scene = render_scene(seed, SceneOptions(preset=preset, n_decks=4, n_cards=(12, 30),
                                            image_wh=(960, 720), card_px=(120, 120)))
    cards = read_cards(oracle_maps(scene), settings=SHARP_VOTES)
    return scene, cards, group_cards(cards)


@pytest.mark.parametrize(("preset", "seed", "kinds"), [
    ("sorted", 3, [("row", 10), ("row", 2)]),
    ("sorted", 7, [("row", 14), ("row", 13)]),
    ("fan", 4, [("fan", 6), ("fan", 7)]),
    ("pile", 5, [("pile", 13)]),
    ("spread", 6, [("alone", 1)] * 12),
])
def test_groups_as_laid(preset, seed, kinds):
    scene, cards, groups = _groups(preset, seed)
    assert [(g.kind, len(g.card_index)) for g in groups] == kinds
    every = sorted(i for g in groups for i in g.card_index)
    assert every == list(range(len(cards)))


def test_a_sorted_row_is_one_deck_in_order_along_its_axis():
    scene, cards, groups = _groups("sorted", 7)
    true_xy = np.array([np.asarray(c.quad_xy).mean(axis=0) for c in scene.cards])
    for group in groups:
        nearest = np.linalg.norm(cards.centre_xy[list(group.card_index)][:, None] - true_xy[None],
                                 axis=-1).argmin(axis=1)
        assert len({scene.cards[k].true_deck_id for k in nearest}) == 1
        along = cards.centre_xy[list(group.card_index)] @ np.asarray(group.axis_xy)
        assert (np.diff(along) > 0).all()


def test_overlap_is_symmetric_and_exact_for_touching_rectangles():
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    quads = np.stack([square, square + (9.9, 0), square + (10.1, 0), square + (5, 5)])
    got = overlapping(quads)
    assert (got == got.T).all()
    assert got[0, 1] and not got[0, 2] and got[0, 3] and got[2, 3]
