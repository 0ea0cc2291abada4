"""The layout network's training loss: one term per head, each over the cells where it means
something (edge direction on edges, offsets and size on cards with a plausible quad)."""

from __future__ import annotations

import torch
from torch.nn import functional as F

#: Edges are ~5-10% of cells; their loss is weighted up so that a thin edge is worth learning.
EDGE_POS_WEIGHT = 4.0
LOSS_WEIGHTS = {"foreground": 1.0, "edge": 2.0, "orient": 0.5, "corner": 1.0, "offset": 1.0,
                "size": 0.5, "card_orient": 0.5}
#: Printed lines inside cards weigh this much more as edge negatives: the head that fired on
#: the printed borders of family designs (one per strip, ~10 px inside it) made the row
#: program see two cards in one.
PRINT_NEG_WEIGHT = 4.0
#: Corner peaks are ~0.1% of cells: cells near a corner weigh up to this much more.
CORNER_PEAK_WEIGHT = 50.0


def corner_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy against the Gaussian corner heatmap, weighted towards the peaks.

    (CenterNet's focal loss, normalised by the number of peaks, blew up on crops with few
    corners in the first trials.)"""
    weight = 1.0 + CORNER_PEAK_WEIGHT * target
    return F.binary_cross_entropy_with_logits(logits, target, weight=weight)


def layout_loss(output: torch.Tensor, batch: dict[str, torch.Tensor]
                ) -> tuple[torch.Tensor, dict[str, float]]:
    """Weighted sum of the head losses, and each term's value for the log."""
    fg_t, edge_t = batch["foreground"], batch["edge"]
    on_card = batch["quad_ok"] > 0
    on_edge = edge_t > 0
    terms: dict[str, torch.Tensor] = {}
    terms["foreground"] = F.binary_cross_entropy_with_logits(output[:, 0], fg_t)
    terms["edge"] = F.binary_cross_entropy_with_logits(
        output[:, 1], edge_t, weight=1.0 + PRINT_NEG_WEIGHT * batch["printed"],
        pos_weight=torch.tensor(EDGE_POS_WEIGHT, device=output.device))
    terms["corner"] = corner_loss(output[:, 2], batch["corner"])
    orient = output[:, 3:5].permute(0, 2, 3, 1)[on_edge]
    orient_t = batch["edge_orient"].permute(0, 2, 3, 1)[on_edge]
    terms["orient"] = (F.l1_loss(orient, orient_t) if len(orient)
                       else output.sum() * 0.0)
    offset = output[:, 5:7].permute(0, 2, 3, 1)[on_card]
    offset_t = batch["offset"].permute(0, 2, 3, 1)[on_card]
    terms["offset"] = (F.smooth_l1_loss(offset, offset_t, beta=0.1) if len(offset)
                       else output.sum() * 0.0)
    size = output[:, 7][on_card]
    terms["size"] = (F.smooth_l1_loss(size, batch["log_size"][on_card], beta=0.1) if len(size)
                     else output.sum() * 0.0)
    card_orient = output[:, 8:10].permute(0, 2, 3, 1)[on_card]
    card_orient_t = batch["card_orient"].permute(0, 2, 3, 1)[on_card]
    terms["card_orient"] = (F.l1_loss(card_orient, card_orient_t) if len(card_orient)
                            else output.sum() * 0.0)
    total = sum(LOSS_WEIGHTS[k] * v for k, v in terms.items())
    return total, {k: float(v.detach()) for k, v in terms.items()}
