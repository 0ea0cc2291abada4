"""Export a trained detector checkpoint to the shipped ONNX file.

    python -m cardtally.models.detector.export runs/detector/last.pt models/card_detector.onnx
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from .net import CardNet


def export(checkpoint: Path, onnx_path: Path, width: int = 16, ema: bool = False) -> None:
    """Write an opset-17 ONNX model with dynamic batch, height and width, from a training
    checkpoint (``last.pt``; with ``ema``, its moving average of the weights) or a bare
    state dict."""
    state = torch.load(checkpoint, map_location="cpu")
    if ema:
        if "ema" not in state:
            raise SystemExit(f"{checkpoint} keeps no moving average (train with --ema)")
        state = {**state, "model": state["ema"]}
    if "model" not in state:  # weights kept without their run (card_detector_run8.pt, ...)
        state = {"model": state, "step": "unknown",
                 "context_blocks": sum(name.startswith("refine5.") and name.endswith(".body.0.0.weight")
                                       for name in state)}
    model = CardNet(width=width, context_blocks=state.get("context_blocks", 0))
    model.load_state_dict(state["model"])
    model.eval()
    dummy = torch.rand(1, 3, 256, 320)
    torch.onnx.export(
        model,
        dummy,
        str(onnx_path),
        input_names=["image"],
        output_names=["maps"],
        dynamic_axes={"image": {0: "n", 2: "h", 3: "w"}, "maps": {0: "n", 2: "h2", 3: "w2"}},
        opset_version=17,
        dynamo=False,
    )
    print(f"wrote {onnx_path} ({onnx_path.stat().st_size / 1e6:.2f} MB) from step {state['step']}")


def main() -> None:
    """Export a checkpoint's weights to an ONNX file."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("onnx", type=Path)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--ema", action="store_true", help="export the checkpoint's moving average")
    args = parser.parse_args()
    export(args.checkpoint, args.onnx, args.width, args.ema)


if __name__ == "__main__":
    main()
