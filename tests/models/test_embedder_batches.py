"""Training batches: how many Ligretto-style sibling families they hold."""

import cv2
import numpy as np
import pytest

from cardtally.models.embedder import batches


@pytest.mark.parametrize("families", [None, 3])
def test_each_sibling_is_a_class_of_its_own(families):
    batch = batches.make_batch(4, 7) if families is None else batches.make_batch(4, 7, families=families)
    backs = batch["labels"][batch["labels"] >= 0]
    designs = batches.RANDOM_DESIGNS + (families or batches.FAMILIES) * batches.FAMILY_SIZE
    assert np.array_equal(np.bincount(backs), np.full(designs, batches.VIEWS_PER_DESIGN))
    fronts = batches.FRONT_DESIGNS * batches.VIEWS_PER_FRONT
    assert int((batch["labels"] < 0).sum()) == fronts and batch["face_up"].sum() == fronts


def test_a_family_differs_only_where_its_symbols_are():
    from cardtally.models.synth.designs import design_family

    for seed in range(6):
        family = design_family(np.random.default_rng(seed), n=batches.FAMILY_SIZE)
        places = batches.telling_masks(family)
        # The centre symbol, and on some backs two corner copies.
        assert len(places) in (1, 3)
        telling = np.sum(places, axis=0) > 0
        differs = np.zeros(telling.shape, bool)
        for sibling in family[1:]:
            differs |= np.abs(sibling.astype(int) - family[0]).max(axis=2) > 8
        assert np.array_equal(telling, differs)
        assert 0.01 < telling.mean() < 0.25


def test_whole_designs_show_their_symbols_and_covered_ones_do_not():
    from cardtally.models.embedder.views import _card_quad, _warp_share
    from cardtally.models.synth.designs import design_family

    places = batches.telling_masks(design_family(np.random.default_rng(2), n=batches.FAMILY_SIZE))
    centre = max(places, key=np.sum)
    quad = _card_quad(np.float32([150, 150]), 120.0, 0.3)
    visible = np.zeros((300, 300), np.float32)
    cv2.fillConvexPoly(visible, np.round(quad).astype(np.int32), 1.0)
    assert _warp_share(centre, quad, visible) > 0.97
    # A card over the middle leaves the centre symbol hidden.
    visible[100:200, 60:240] = 0
    assert _warp_share(centre, quad, visible) < 0.03


def test_a_batch_says_which_sibling_views_show_their_symbol():
    batch = batches.make_batch(4, 7, families=3)
    family = batch["family"]
    siblings = batch["labels"][family >= 0]
    assert np.array_equal(np.unique(family[family >= 0]), [0, 1, 2])
    assert np.array_equal(np.unique(siblings), np.arange(batches.RANDOM_DESIGNS, batches.RANDOM_DESIGNS + 12))
    # Designs without siblings and face-up fronts always count as telling; about half of the
    # sibling views lie with their symbols covered.
    assert batch["shows_symbol"][family < 0].all()
    assert 0.2 < batch["shows_symbol"][family >= 0].mean() < 0.9


def test_a_batch_names_each_siblings_symbol():
    from cardtally.models.synth.designs import named_design_family, random_back_design
    from cardtally.models.synth.symbols import SYMBOL_NAMES

    batch = batches.make_batch(4, 7, families=2)
    assert (batch["symbol"][batch["family"] < 0] == -1).all()
    # The same draws as the batch's own: 32 random backs, then the families.
    rng = np.random.default_rng([4, 7])
    for _ in range(batches.RANDOM_DESIGNS):
        random_back_design(rng)
    names = [name for _ in range(2) for name, _ in named_design_family(rng, n=batches.FAMILY_SIZE)]
    expected = np.repeat([SYMBOL_NAMES.index(n) for n in names], batches.VIEWS_PER_DESIGN)
    assert np.array_equal(batch["symbol"][batch["family"] >= 0], expected)


def test_a_step_is_the_same_whatever_ran_before_it():
    # The camera noise comes from OpenCV's generator, which anything in the process may draw
    # from: a resumed run or a data worker must still get the step's own batch.
    first = batches.make_batch(5, 3)["crops"]
    cv2.randn(np.empty((100, 100), np.float32), 0.0, 1.0)
    batches.make_batch(5, 4)
    np.testing.assert_array_equal(batches.make_batch(5, 3)["crops"], first)
    views, _ = batches.validation_set(6, n_designs=2, views=2)
    cv2.randn(np.empty((10, 10), np.float32), 0.0, 1.0)
    np.testing.assert_array_equal(batches.validation_set(6, n_designs=2, views=2)[0], views)


def test_calibration_views_change_only_the_views_asked_for():
    plain = batches.make_batch(6, 2)
    mixed = batches.make_batch(6, 2, calibration_views=1)
    for key in ("labels", "face_up", "family", "symbol"):
        np.testing.assert_array_equal(plain[key], mixed[key])
    assert not np.array_equal(plain["crops"], mixed["crops"])
