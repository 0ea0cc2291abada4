"""The whole fit of a photo's rows, on the maps a perfect layout network would give."""

import math
from collections import Counter

import cv2
import numpy as np

from cardtally.models.layout.targets import oracle_maps
from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.fit.band import BAND_END_MARGIN_PX, turned_band
from cardtally.vision.fit.photo import edge_at, fit_band, fit_rows, trim_to_cards
from cardtally.vision.fit.rows import RowFitSettings
from cardtally.vision.fit.siblings import SiblingWindows
from cardtally.vision.fit.spine import foreground_regions, row_band_from_region
from cardtally.vision.layout.cards import SHARP_VOTES, card_long_cells, read_cards
from cardtally.vision.layout.groups import group_cards
from cardtally.vision.layout.photo import PhotoLayout

from .test_rows import QUIET, _backs


def _two_rows(seed):
    """Two one-deck rows of 7 and 5 cards, the way players lay out their sorted cards."""
    poses, decks = [], []
    for row, (n, deck, y) in enumerate(((7, 0, 0.0), (5, 1, 120.0))):
        for k in range(n):
            poses.append([k * 20.0, y, 0.05 + (math.pi if (k + row) % 3 == 0 else 0.0)])
            decks.append(deck)
    options = SceneOptions(image_wh=(1000, 800), poses_mm=np.asarray(poses), card_wh_mm=(59.0, 91.0),
                           card_px=(140, 140), camera_tilt_deg=(5.0, 5.0), lens_distortion=0.0,
                           face_up_fraction=0.0, n_decks=2, card_decks=tuple(decks), lighting=QUIET,
                           clutter=False, occluder_prob=0.0, table_kind="felt")
    return render_scene(seed, options)


def _oracle_layout(scene):
    maps = oracle_maps(scene)
    cards = read_cards(maps, settings=SHARP_VOTES)
    return PhotoLayout(cards, 1.0, card_long_cells(maps) * maps.stride, maps)


def test_each_row_of_a_sorted_photo_is_counted_for_its_deck():
    scene = _two_rows(seed=3)
    layout = _oracle_layout(scene)
    cards = layout.cards
    fitted = fit_rows(scene.image, layout, group_cards(cards), _backs(scene))
    assert len(fitted.rows) == 2
    assert fitted.counts() == Counter(card.deck_name for card in scene.cards)


def test_a_rows_band_is_cut_to_its_cards_within_a_few_pixels():
    scene = _two_rows(seed=3)
    layout = _oracle_layout(scene)
    regions = foreground_regions(layout)
    assert len(regions) == 2
    for points, card_index in regions:
        quads = [np.asarray(layout.cards.quad_xy[i], np.float64) for i in card_index]
        band = row_band_from_region(scene.image, points, layout.maps.stride / layout.scale,
                                    layout.card_long_px, quads,
                                    edge_at=lambda map_xy: edge_at(layout, map_xy))
        trimmed = trim_to_cards(band, layout)
        owner = cv2.remap(scene.owner_map.astype(np.float32), trimmed.map_xy, None,
                          cv2.INTER_NEAREST, borderValue=-1)
        middle = owner[owner.shape[0] // 2]
        on_card = np.nonzero(middle >= 0)[0]
        # the cards start and end a margin from the band's ends, give or take two pixels
        assert abs(int(on_card[0]) - BAND_END_MARGIN_PX) <= 2
        assert abs(trimmed.length_px - 1 - int(on_card[-1]) - BAND_END_MARGIN_PX) <= 2


def test_a_band_read_with_the_card_turned_is_turned_back_by_its_top_card():
    scene = _two_rows(seed=3)
    layout = _oracle_layout(scene)
    backs = _backs(scene)
    truth = sorted(Counter(card.deck_name for card in scene.cards).values())
    counts = []
    for points, card_index in foreground_regions(layout):
        quads = [np.asarray(layout.cards.quad_xy[i], np.float64) for i in card_index]
        band = row_band_from_region(scene.image, points, layout.maps.stride / layout.scale,
                                    layout.card_long_px, quads)
        wrong = turned_band(band, scene.image)
        assert wrong.card_wh == band.card_wh[::-1] and wrong.landscape != band.landscape
        assert abs(wrong.length_px - band.length_px * band.card_wh[0] / band.card_wh[1]) <= 1
        fitted_band, fit = fit_band(scene.image, wrong, layout, backs, RowFitSettings(),
                                    SiblingWindows(backs), None)
        assert fitted_band.landscape == band.landscape
        counts.append(fit.count)
    assert sorted(counts) == truth
