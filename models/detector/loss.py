"""Detector losses: BCE for masks, CenterNet focal loss for centre peaks, masked L1 orientation and size."""

from __future__ import annotations

import torch
from torch.nn import functional as F


def centre_focal_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Penalty-reduced focal loss (CenterNet): peaks are where target == 1."""
    prob = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    is_peak = target.ge(0.999).float()
    pos = -torch.log(prob) * (1 - prob) ** 2 * is_peak
    neg = -torch.log(1 - prob) * prob**2 * (1 - target) ** 4 * (1 - is_peak)
    n_peaks = is_peak.sum().clamp(min=1.0)
    return (pos.sum() + neg.sum()) / n_peaks


def detector_loss(
    out: torch.Tensor, maps: dict[str, torch.Tensor], centre_weight: float = 1.0,
    between_edge_weight: float = 1.0,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Total loss and its parts for logging. ``out`` is (N, 6, h, w) from CardNet.

    ``centre_weight`` scales the centre-peak loss in the total (the parts are logged unscaled).
    ``between_edge_weight`` weighs the edge loss of the cells where two cards meet (the
    ``edge_between`` map) that many times; the commonest merged cards lie apart from their
    neighbour only by such an edge.
    """
    fg_t, edge_t = maps["foreground"], maps["edge"]
    fg = F.binary_cross_entropy_with_logits(out[:, 0], fg_t)
    edge_weight = None
    if between_edge_weight != 1.0:
        edge_weight = 1.0 + (between_edge_weight - 1.0) * maps["edge_between"]
    edge = F.binary_cross_entropy_with_logits(
        out[:, 1], edge_t, weight=edge_weight, pos_weight=torch.tensor(3.0, device=out.device)
    )
    centre = centre_focal_loss(out[:, 2], maps["centre"])
    orient_err = (out[:, 3:5] - maps["orient"]).abs().sum(dim=1)
    orient = (orient_err * fg_t).sum() / fg_t.sum().clamp(min=1.0)
    size_err = (out[:, 5] - maps["log_size"]).abs()
    # Zero marks pixels without a usable size (table, broken quads); real sizes are >= 2^3.
    has_size = maps["log_size"].gt(0.5).float()
    size = (size_err * has_size).sum() / has_size.sum().clamp(min=1.0)
    total = fg + 2.0 * edge + centre_weight * centre + 0.5 * orient + 0.5 * size
    parts = {
        name: float(value.detach())
        for name, value in (("fg", fg), ("edge", edge), ("centre", centre), ("orient", orient), ("size", size))
    }
    return total, parts
