"""An exponential moving average of a network's weights, kept beside its training.

Averaging weights along a run smooths the noise of small batches on 2 CPU cores: the even
average of two fine-tunes (runs 19 and 21) counted better than either (git history of models/MODEL_CARD.md).
"""

from __future__ import annotations

import torch


class WeightAverage:
    """``average = decay * average + (1 - decay) * weights`` after every step, over every
    floating-point tensor of the state dict (batch-norm statistics included); integer
    tensors (batch counts) are copied.

    Early on the decay is ``min(decay, (1 + n) / (10 + n))`` after ``n`` updates, so that the
    average does not stay near the starting weights for thousands of steps.
    """

    def __init__(self, model: torch.nn.Module, decay: float,
                 state: dict[str, torch.Tensor] | None = None, updates: int = 0) -> None:
        if not 0.0 < decay < 1.0:
            raise ValueError(f"decay must lie in (0, 1), got {decay}")
        self.decay = decay
        self.updates = updates
        source = state if state is not None else model.state_dict()
        self.state = {name: tensor.detach().clone() for name, tensor in source.items()}

    @torch.no_grad()
    def update(self, model: torch.nn.Module) -> None:
        """Move the average towards ``model``'s current weights."""
        self.updates += 1
        decay = min(self.decay, (1 + self.updates) / (10 + self.updates))
        for name, tensor in model.state_dict().items():
            average = self.state[name]
            if average.is_floating_point():
                average.mul_(decay).add_(tensor.detach(), alpha=1.0 - decay)
            else:
                average.copy_(tensor)
