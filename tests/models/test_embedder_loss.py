"""Embedder training loss: sibling views that hide their symbols are left alone."""

import pytest

torch = pytest.importorskip("torch")

from cardtally.models.embedder.train import blind_sibling_pairs, supcon_loss  # noqa: E402


def test_only_sibling_pairs_with_a_hidden_symbol_are_ignored():
    labels = torch.tensor([0, 0, 1, 1, 2, 3])
    family = torch.tensor([-1, -1, 0, 0, 0, 0])
    shows = torch.tensor([True, True, True, False, True, True])
    ignored = blind_sibling_pairs(labels, family, shows)
    expected = {(3, 4), (4, 3), (3, 5), (5, 3)}  # view 3 (sibling 1, symbol hidden) vs 2 and 3
    assert {tuple(p) for p in ignored.nonzero().tolist()} == expected


def test_ignored_pairs_neither_pull_nor_push():
    torch.manual_seed(0)
    embedding = torch.nn.functional.normalize(torch.randn(3, 8), dim=1)
    labels = torch.tensor([0, 0, 1])
    ignored = torch.zeros(3, 3, dtype=torch.bool)
    ignored[0, 2] = ignored[2, 0] = True
    sim = embedding @ embedding.T / 0.1
    # Anchor 0 sees only its positive (loss 0); anchor 1 weighs its positive against view 2;
    # anchor 2 has no positive (loss 0).
    anchor_1 = -(sim[1, 0] - torch.logsumexp(torch.stack([sim[1, 0], sim[1, 2]]), 0))
    assert torch.isclose(supcon_loss(embedding, labels, 0.1, ignored), anchor_1 / 3)
    anchor_0 = -(sim[0, 1] - torch.logsumexp(torch.stack([sim[0, 1], sim[0, 2]]), 0))
    assert torch.isclose(supcon_loss(embedding, labels, 0.1), (anchor_0 + anchor_1) / 3)
