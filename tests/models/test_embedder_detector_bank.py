"""Detector-cut training crops: each labelled by the deck of the back-up card it lies on."""

import numpy as np
import pytest

from cardtally.models.embedder.detector_bank import labelled_crops
from cardtally.models.embedder.scenes import gt_detections
from cardtally.models.synth.scene import SceneOptions, render_scene


def test_crops_are_labelled_by_the_card_under_them_and_face_up_cards_are_marked():
    options = SceneOptions(preset="spread", n_decks=2, n_cards=(12, 12), image_wh=(640, 480),
                           face_up_fraction=0.3)
    scene = render_scene(5, options)
    names = sorted({card.deck_name for card in scene.cards if not card.face_up})
    labels_of = {name: 10 + k for k, name in enumerate(names)}
    bank = labelled_crops(scene, labels_of, gt_detections(scene))
    backs = [card for card in scene.cards if not card.face_up]
    assert 0 < len(backs) < len(scene.cards)  # the scene has both
    assert bank.crops.shape == (len(scene.cards), 4, 64, 64) and bank.crops.dtype == np.float16
    # gt_detections lists the cards in scene order.
    assert bank.face_up.tolist() == [card.face_up for card in scene.cards]
    assert bank.labels.tolist() == [-1 if card.face_up else labels_of[card.deck_name]
                                    for card in scene.cards]


def test_the_training_batch_takes_whole_decks_from_the_bank():
    torch = pytest.importorskip("torch")
    from cardtally.models.embedder.train import BANK_VIEWS, DetectorBank

    crops = np.arange(10, dtype=np.float16)[:, None, None, None] * np.ones((1, 4, 64, 64), np.float16)
    # Deck 3 has too few crops for a class; the last two crops lie face up.
    labels = np.array([7, 7, 7, 7, 9, 9, 9, 9, 3, -1, -1])
    crops = np.arange(len(labels), dtype=np.float16)[:, None, None, None] * np.ones((1, 4, 64, 64), np.float16)
    face_up = labels == -1
    bank = DetectorBank(crops, labels, face_up)
    batch = {"crops": torch.zeros((2, 4, 64, 64)), "labels": torch.tensor([0, 5]),
             "face_up": torch.zeros(2)}
    out = bank.extend(batch, np.random.default_rng(0), n_classes=2, n_face_up=2)
    assert out["labels"][2:].tolist() == [6] * BANK_VIEWS + [7] * BANK_VIEWS + [-1, -1]
    values = out["crops"][2:, 0, 0, 0].numpy()
    # Every appended class holds crops of one bank deck only, and the face-up crops come last.
    classes = values[: 2 * BANK_VIEWS].reshape(2, BANK_VIEWS).tolist()
    assert all(set(row) <= {0, 1, 2, 3} or set(row) <= {4, 5, 6, 7} for row in classes)
    assert sorted(values[2 * BANK_VIEWS :].tolist()) == [9.0, 10.0]
    assert out["face_up"][2:].tolist() == [0.0] * (2 * BANK_VIEWS) + [1.0, 1.0]


def test_bank_crops_are_views_without_siblings():
    torch = pytest.importorskip("torch")
    from cardtally.models.embedder.train import BANK_VIEWS, DetectorBank

    labels = np.array([7, 7, 7, 7, -1])
    crops = np.zeros((len(labels), 4, 64, 64), np.float16)
    bank = DetectorBank(crops, labels, labels == -1)
    batch = {"crops": torch.zeros((2, 4, 64, 64)), "labels": torch.tensor([0, 1]),
             "face_up": torch.zeros(2), "family": torch.tensor([0, 0]),
             "shows_symbol": torch.tensor([True, False]), "symbol": torch.tensor([3, 5])}
    out = bank.extend(batch, np.random.default_rng(0), n_classes=1, n_face_up=1)
    added = BANK_VIEWS + 1
    assert out["family"].tolist() == [0, 0] + [-1] * added
    assert out["shows_symbol"].tolist() == [True, False] + [True] * added
    assert out["symbol"].tolist() == [3, 5] + [-1] * added
