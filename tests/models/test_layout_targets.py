"""The layout network's targets, checked against the renderer's exact labels."""

import numpy as np
import pytest

from cardtally.models.layout.targets import LAYOUT_STRIDE, OFFSET_SCALE, layout_targets
from cardtally.models.synth.photo import Lighting
from cardtally.models.synth.scene import SceneOptions, render_scene

QUIET = Lighting(gradient=(0.0, 0.0), vignetting=(0.0, 0.0), noise_sigma=(0.0, 0.0))


def _scene(poses_mm, decks, image_px=640, seed=0):
    opts = SceneOptions(image_wh=(image_px, image_px), poses_mm=np.asarray(poses_mm, float),
                        card_wh_mm=(59.0, 91.0), card_px=(140, 140), camera_tilt_deg=(0.0, 0.0),
                        lens_distortion=0.0, face_up_fraction=0.0, n_decks=2, card_decks=decks,
                        lighting=QUIET, clutter=False, occluder_prob=0.0)
    return render_scene(seed, opts)


def test_two_apart_cards_give_one_vote_point_and_four_corners_each():
    scene = _scene([[0, 0, 0], [90, 0, 0]], (0, 1))
    assert len(scene.cards) == 2
    t = layout_targets(scene)
    owner = scene.owner_map[LAYOUT_STRIDE // 2::LAYOUT_STRIDE, LAYOUT_STRIDE // 2::LAYOUT_STRIDE]
    assert np.array_equal(t.foreground > 0, owner >= 0)
    h, w = t.foreground.shape
    ys, xs = np.nonzero(t.quad_ok > 0)
    votes = np.stack([xs + 0.5 + t.offset[0, ys, xs] * OFFSET_SCALE,
                      ys + 0.5 + t.offset[1, ys, xs] * OFFSET_SCALE], axis=1)
    for index, card in enumerate(scene.cards):
        mine = owner[ys, xs] == index
        centre = np.asarray(card.quad_xy).mean(axis=0) / LAYOUT_STRIDE
        assert np.abs(votes[mine] - centre).max() < 1e-3
    assert int((t.corner == 1.0).sum()) == 8


def test_edge_direction_follows_the_card_sides():
    scene = _scene([[0, 0, 0.3]], (0,))
    t = layout_targets(scene)
    quad = np.asarray(scene.cards[0].quad_xy, float)
    side_angles = [np.arctan2(*(quad[(k + 1) % 4] - quad[k])[::-1]) for k in range(4)]
    wanted = {(round(np.cos(2 * a), 2), round(np.sin(2 * a), 2)) for a in side_angles}
    on_edge = t.edge > 0
    got = {(round(float(c), 2), round(float(s), 2))
           for c, s in zip(t.edge_orient[0][on_edge], t.edge_orient[1][on_edge], strict=True)}
    assert got == wanted  # two directions (long and short sides), nothing else


def test_printed_lines_are_never_edges():
    scene = _scene([[0, 0, 0]], (0,))
    t = layout_targets(scene)
    owner = scene.owner_map
    s = LAYOUT_STRIDE
    h, w = t.edge.shape
    blocks = owner[: h * s, : w * s].reshape(h, s, w, s)
    inside = (blocks == 0).all(axis=(1, 3))
    # cells inside the card with a whole cell between them and its outline carry no edge,
    # whatever the design prints there
    inner = inside[1:-1, 1:-1] & inside[:-2, 1:-1] & inside[2:, 1:-1] & inside[1:-1, :-2] & inside[1:-1, 2:]
    assert inner.sum() > 500
    assert not (t.edge[1:-1, 1:-1][inner] > 0).any()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sorted_photo_has_one_deck_a_row(seed):
    scene = render_scene(seed, SceneOptions(preset="sorted", n_decks=6, image_wh=(1280, 960)))
    groups = np.asarray(scene.params.get("group_of_card", []))
    decks_by_row: dict[int, set] = {}
    for card in scene.cards:
        decks_by_row.setdefault(int(groups[card.card_id]), set()).add(card.true_deck_id)
    assert all(len(decks) == 1 for decks in decks_by_row.values())
    row_decks = [next(iter(d)) for d in decks_by_row.values()]
    assert len(row_decks) == len(set(row_decks))


def test_printed_cells_lie_inside_cards_clear_of_edges_and_on_strong_print():
    scene = _scene([[0, 0, 0]], (0,))
    t = layout_targets(scene)
    printed = t.printed > 0
    assert printed.any()  # the procedural design prints lines
    assert not (printed & (t.edge > 0)).any()
    assert not (printed & (t.foreground == 0)).any()
    # two cells of clearance: no printed cell touches an edge cell's 5x5 neighbourhood
    edge_y, edge_x = np.nonzero(t.edge > 0)
    print_y, print_x = np.nonzero(printed)
    gap = np.maximum(np.abs(print_y[:, None] - edge_y[None]), np.abs(print_x[:, None] - edge_x[None]))
    assert gap.min() > 2


def test_a_plain_card_has_no_printed_cells():
    scene = _scene([[0, 0, 0]], (0,))
    blank = scene.image.copy()
    blank[scene.owner_map == 0] = (200, 180, 160)
    from cardtally.models.layout.targets import printed_cells
    edge_cells = layout_targets(scene).edge > 0
    assert not printed_cells(blank, scene.owner_map, edge_cells).any()
