"""Detector-cut training crops: each labelled by the deck of the back-up card it lies on."""

import numpy as np
import pytest

from cardtally.models.embedder.detector_bank import labelled_crops
from cardtally.models.embedder.scenes import gt_detections
from cardtally.models.synth.scene import SceneOptions, render_scene


def test_crops_are_labelled_by_the_card_under_them_and_face_up_cards_are_left_out():
    options = SceneOptions(preset="spread", n_decks=2, n_cards=(12, 12), image_wh=(640, 480),
                           face_up_fraction=0.3)
    scene = render_scene(5, options)
    names = sorted({card.deck_name for card in scene.cards if not card.face_up})
    labels_of = {name: 10 + k for k, name in enumerate(names)}
    crops, labels = labelled_crops(scene, labels_of, gt_detections(scene))
    backs = [card for card in scene.cards if not card.face_up]
    assert 0 < len(backs) < len(scene.cards)  # the scene has both
    assert crops.shape == (len(backs), 4, 64, 64) and crops.dtype == np.float16
    assert sorted(labels.tolist()) == sorted(labels_of[card.deck_name] for card in backs)


def test_the_training_batch_takes_whole_decks_from_the_bank():
    torch = pytest.importorskip("torch")
    from cardtally.models.embedder.train import BANK_VIEWS, DetectorBank

    crops = np.arange(10, dtype=np.float16)[:, None, None, None] * np.ones((1, 4, 64, 64), np.float16)
    labels = np.array([7, 7, 7, 7, 9, 9, 9, 9, 9, 3])  # deck 3 has too few crops for a class
    bank = DetectorBank(crops, labels)
    batch = {"crops": torch.zeros((2, 4, 64, 64)), "labels": torch.tensor([0, 5]),
             "face_up": torch.zeros(2)}
    out = bank.extend(batch, np.random.default_rng(0), n_classes=2)
    new_labels = out["labels"][2:].tolist()
    assert new_labels == [6] * BANK_VIEWS + [7] * BANK_VIEWS
    # Every appended class holds crops of one bank deck only.
    values = out["crops"][2:, 0, 0, 0].numpy().reshape(2, BANK_VIEWS)
    assert all(set(row) <= {0, 1, 2, 3} or set(row) <= {4, 5, 6, 7, 8} for row in values.tolist())
    assert out["face_up"].shape == (2 + 2 * BANK_VIEWS,) and float(out["face_up"].sum()) == 0.0
