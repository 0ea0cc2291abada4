"""The card detector network: a small U-Net with per-pixel heads at stride 2.

Heads (channels of the output, all at half the input resolution):
0 foreground  - logit: any card covers this pixel
1 edge        - logit: physical card boundary (card against table or against another card)
2 centre      - logit: Gaussian peak at a point inside each card's visible part
3, 4 orient   - cos(2*theta), sin(2*theta) of the card's long axis (theta mod 180 deg)
5 log_size    - log2 of the long side of the card under this pixel, in output pixels; read on
                the low-resolution survey pass to choose the processing scale
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from .targets import OUTPUT_STRIDE  # noqa: F401  (re-exported: the stride is the network's)

HEAD_NAMES = ("foreground", "edge", "centre", "orient_cos", "orient_sin", "log_size")


def _conv_bn(c_in: int, c_out: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


class _Down(nn.Module):
    """Halve the resolution, then refine."""

    def __init__(self, c_in: int, c_out: int, dilation: int = 1) -> None:
        super().__init__()
        self.body = nn.Sequential(_conv_bn(c_in, c_out, 2), _conv_bn(c_out, c_out, 1, dilation))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


class _Residual(nn.Module):
    """Two dilated 3x3 convolutions added to their input; the last BatchNorm starts at zero
    so that a block added to trained weights starts as the identity."""

    def __init__(self, channels: int, dilation: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            _conv_bn(channels, channels, 1, dilation),
            nn.Conv2d(channels, channels, 3, 1, padding=dilation, dilation=dilation, bias=False),
            nn.BatchNorm2d(channels),
        )
        nn.init.zeros_(self.body[2].weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(x + self.body(x))


class _Up(nn.Module):
    """Double the resolution, merge the skip connection with a cheap 1x1, refine with a 3x3."""

    def __init__(self, c_in: int, c_skip: int, c_out: int) -> None:
        super().__init__()
        self.merge = nn.Sequential(
            nn.Conv2d(c_in + c_skip, c_out, 1, bias=False),
            nn.BatchNorm2d(c_out),
            nn.ReLU(inplace=True),
            _conv_bn(c_out, c_out),
        )

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        x = F.interpolate(x, size=skip.shape[-2:], mode="bilinear", align_corners=False)
        return self.merge(torch.cat([x, skip], dim=1))


class CardNet(nn.Module):
    """Encoder to 1/32 (wide context for centres of long strips), decoder back to 1/2."""

    def __init__(self, width: int = 16, context_blocks: int = 0) -> None:
        super().__init__()
        w = width
        self.context_blocks = context_blocks
        # Full resolution is expensive: one strided conv only, the depth lives further down.
        self.stem = _conv_bn(3, w, 2)  # 1/2
        self.down2 = _Down(w, w + w // 2)  # 1/4
        self.down3 = _Down(w + w // 2, 3 * w)  # 1/8
        self.down4 = _Down(3 * w, 4 * w, dilation=2)  # 1/16
        self.down5 = _Down(4 * w, 6 * w, dilation=2)  # 1/32
        self.context = _conv_bn(6 * w, 6 * w, dilation=2)
        # Optional depth where it is cheap (1/16 and 1/32): a strip's centre depends on where
        # the strip ends, which only a wide view of the neighbouring cards shows.
        self.refine4 = nn.Sequential(*(_Residual(4 * w, (2, 4)[k % 2]) for k in range(context_blocks)))
        self.refine5 = nn.Sequential(*(_Residual(6 * w, 2) for _ in range(context_blocks)))
        self.up4 = _Up(6 * w, 4 * w, 4 * w)
        self.up3 = _Up(4 * w, 3 * w, 3 * w)
        self.up2 = _Up(3 * w, w + w // 2, w + w // 2)
        self.up1 = _Up(w + w // 2, w, w)
        self.head = nn.Conv2d(w, len(HEAD_NAMES), 1)
        # Start from the prior that few pixels are edges or centres (CenterNet's focal-loss init).
        with torch.no_grad():
            self.head.bias[1:3].fill_(-4.0)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        """``image``: (N, 3, H, W) RGB in [0, 1]; returns (N, 6, H/2, W/2) raw head outputs."""
        x = (image - 0.45) / 0.25
        s1 = self.stem(x)
        s2 = self.down2(s1)
        s3 = self.down3(s2)
        s4 = self.refine4(self.down4(s3))
        s5 = self.refine5(self.context(self.down5(s4)))
        x = self.up4(s5, s4)
        x = self.up3(x, s3)
        x = self.up2(x, s2)
        x = self.up1(x, s1)
        out = self.head(x)
        # Orientation as a unit vector; the other heads stay logits.
        orient = F.normalize(out[:, 3:5], dim=1, eps=1e-6)
        return torch.cat([out[:, :3], orient, out[:, 5:]], dim=1)
