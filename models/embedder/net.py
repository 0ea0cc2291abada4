"""The back embedder network: a small CNN from a masked card crop to an L2-normalised embedding.

Input (n, 4, 64, 64): normalised B, G, R and the visibility mask (see ``vision/rectify.py``).
Outputs: ``embedding`` (n, EMBEDDING_DIM) unit vectors and ``face_up_logit`` (n,).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

EMBEDDING_DIM = 128
WIDTHS = (24, 48, 96, 160)
#: Length of the pooled feature vector (mean and max of the last stage).
POOLED_DIM = 2 * WIDTHS[-1]


def _conv_bn(c_in: int, c_out: int, stride: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True)
    )


class _Residual(nn.Module):
    """conv-bn-relu-conv-bn plus identity: adds depth without changing the resolution."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(channels, channels, 3, 1, 1, bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(channels, channels, 3, 1, 1, bias=False),
            nn.BatchNorm2d(channels),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(x + self.body(x))


class BackEmbedder(nn.Module):
    """Strided conv stages (64 -> 4 px), mean+max pooling, a linear embedding and a face-up head."""

    def __init__(self, in_channels: int = 4, widths: tuple[int, ...] = WIDTHS,
                 embedding_dim: int = EMBEDDING_DIM) -> None:
        super().__init__()
        layers: list[nn.Module] = [_conv_bn(in_channels, widths[0], 2)]
        c_in = widths[0]
        for c_out in widths[1:]:
            layers += [_conv_bn(c_in, c_out, 2), _Residual(c_out)]
            c_in = c_out
        self.features = nn.Sequential(*layers)
        self.embed = nn.Linear(2 * c_in, embedding_dim)
        # "BNNeck": centring the raw embedding before normalising keeps all designs from
        # crowding into one narrow cone (a checkpoint without it loads with an identity neck).
        self.neck = nn.BatchNorm1d(embedding_dim)
        self.face_up = nn.Linear(2 * c_in, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The unit embedding and the face-up logit of each crop."""
        embedding, face_up_logit, _ = self.forward_pooled(x)
        return embedding, face_up_logit

    def forward_pooled(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``forward``'s outputs and the pooled features they come from (for training heads
        that the exported model leaves out)."""
        f = self.features(x)
        # Max pooling keeps small distinctive marks (a family symbol) that the mean dilutes.
        pooled = torch.cat([f.mean(dim=(2, 3)), f.amax(dim=(2, 3))], dim=1)
        embedding = F.normalize(self.neck(self.embed(pooled)), dim=1)
        return embedding, self.face_up(pooled).squeeze(1), pooled
