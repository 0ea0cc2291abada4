"""Even average of detector weights (every floating-point tensor, batch-norm statistics
included; integer tensors from the last input), the way the shipped game-photo model is the
average of runs 19 and 21 (models/MODEL_CARD.md).

    python -m cardtally.models.detector.average OUT.pt models/detector/card_detector_run19.pt \\
        models/detector/card_detector_run21.pt

Inputs are bare state dicts or training checkpoints (``last.pt``: their weights).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch


def load_weights(path: Path | str, device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
    """The state dict in ``path``: a bare one, or a training checkpoint's ``model``."""
    state = torch.load(path, map_location=device)
    return state["model"] if "optimiser" in state else state


def average_weights(weights: list[dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """The even average of ``weights`` (state dicts of one network)."""
    if not weights:
        raise ValueError("nothing to average")
    return {name: sum(w[name] for w in weights) / len(weights) if tensor.is_floating_point()
            else weights[-1][name] for name, tensor in weights[0].items()}


def main() -> None:
    """Average the given weights and save them to OUT."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("inputs", type=Path, nargs="+")
    args = parser.parse_args()
    torch.save(average_weights([load_weights(path) for path in args.inputs]), args.out)
    print(f"wrote {args.out}: the average of {len(args.inputs)}")


if __name__ == "__main__":
    main()
