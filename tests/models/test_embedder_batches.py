"""Training batches: how many Ligretto-style sibling families they hold."""

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
