"""Training batches: how many Ligretto-style sibling families they hold."""

import numpy as np
import pytest

from cardtally.models.embedder import train


@pytest.mark.parametrize("families", [None, 3])
def test_each_sibling_is_a_class_of_its_own(families):
    batch = train.make_batch(4, 7) if families is None else train.make_batch(4, 7, families=families)
    backs = batch["labels"][batch["labels"] >= 0]
    designs = train.RANDOM_DESIGNS + (families or train.FAMILIES) * train.FAMILY_SIZE
    assert np.array_equal(np.bincount(backs), np.full(designs, train.VIEWS_PER_DESIGN))
    fronts = train.FRONT_DESIGNS * train.VIEWS_PER_FRONT
    assert int((batch["labels"] < 0).sum()) == fronts and batch["face_up"].sum() == fronts
