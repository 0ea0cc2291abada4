"""The layout network: the pretrained PP-OCR trunk and small heads at stride 4.

Input: float32 BGR images in [0, 255], shape (N, 3, H, W) with H and W multiples of 32; the
network normalises them itself, so callers never repeat PP-OCR's statistics. Output (N, 10, H/4,
W/4), channels in :data:`HEAD_CHANNELS` order; the probability maps are logits.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from .trunk import NECK_CHANNELS, PPOCR_MEAN_BGR, PPOCR_STD_BGR, OnnxTrunk, ppocr_det_path

#: Output channels, in order: foreground, physical edge and exposed-corner logits; the edge's
#: direction as (cos 2a, sin 2a); the offset to the card's centre (dx, dy) in cells divided by
#: ``targets.OFFSET_SCALE``; log2 of the card's long side in cells; the card's turn up to a
#: quarter turn as (cos 4a, sin 4a).
HEAD_CHANNELS = ("foreground", "edge", "corner", "orient_cos", "orient_sin", "offset_x",
                 "offset_y", "log_size", "card_cos", "card_sin")
#: The neck's features are large (std ~6, max ~60): scaled down before the new heads.
NECK_SCALE = 1.0 / 8.0
HEAD_WIDTH = 64


class LayoutNet(nn.Module):
    """PP-OCR trunk (pretrained or not) followed by two 3x3 convolutions and a 1x1 head."""

    def __init__(self, trunk: nn.Module) -> None:
        super().__init__()
        self.trunk = trunk
        mean = torch.tensor(PPOCR_MEAN_BGR).view(1, 3, 1, 1) * 255.0
        std = torch.tensor(PPOCR_STD_BGR).view(1, 3, 1, 1) * 255.0
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)
        self.neck = nn.Sequential(
            nn.Conv2d(NECK_CHANNELS, HEAD_WIDTH, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(HEAD_WIDTH, HEAD_WIDTH, 3, padding=2, dilation=2), nn.ReLU(inplace=True),
        )
        self.head = nn.Conv2d(HEAD_WIDTH, len(HEAD_CHANNELS), 1)
        nn.init.normal_(self.head.weight, std=0.01)
        nn.init.zeros_(self.head.bias)
        with torch.no_grad():  # rare positives start rare (edges, corners)
            self.head.bias[1] = -2.0
            self.head.bias[2] = -4.0
            self.head.bias[7] = 5.0  # log2 of a ~32-cell card

    def forward(self, image_bgr: torch.Tensor) -> torch.Tensor:
        """The head maps (logits and regressions) of a batch of BGR images in [0, 255]."""
        x = (image_bgr - self.mean) / self.std
        features = self.trunk(x) * NECK_SCALE
        return self.head(self.neck(features))


def build_layout_net(pretrained: bool = True, onnx_path: Path | None = None) -> LayoutNet:
    """A new layout network; its trunk holds PP-OCRv5's weights or, with ``pretrained=False``,
    the same architecture re-initialised at random (for the pretrained-vs-scratch comparison)."""
    trunk = OnnxTrunk(onnx_path or ppocr_det_path())
    if not pretrained:
        trunk.reset_parameters()
    return LayoutNet(trunk)
