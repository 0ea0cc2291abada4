"""Export a layout-network checkpoint to ONNX (the file cardtally ships and runs).

    python -m cardtally.models.layout.export runs/layout/a/last.pt models/card_layout.onnx

The exported graph takes float32 BGR in [0, 255], (N, 3, H, W) with H and W multiples of 32,
and returns the (N, 10, H/4, W/4) head maps (``net.HEAD_CHANNELS``); N, H and W are dynamic.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from .net import build_layout_net

OPSET = 17


def export_checkpoint(checkpoint: Path, onnx_path: Path) -> float:
    """Write ``onnx_path`` from ``checkpoint``; returns the largest difference between torch and
    onnxruntime on a random image (a check that the export is faithful)."""
    import onnxruntime as ort

    net = build_layout_net(pretrained=False)
    net.load_state_dict(torch.load(checkpoint, map_location="cpu")["model"])
    net.eval()
    example = torch.from_numpy(
        np.random.default_rng(0).uniform(0, 255, (1, 3, 224, 320)).astype(np.float32))
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        net, (example,), str(onnx_path), dynamo=False, opset_version=OPSET,
        input_names=["image_bgr"], output_names=["maps"],
        dynamic_axes={"image_bgr": {0: "n", 2: "h", 3: "w"}, "maps": {0: "n", 2: "h4", 3: "w4"}},
    )
    probe = torch.from_numpy(
        np.random.default_rng(1).uniform(0, 255, (1, 3, 256, 192)).astype(np.float32))
    with torch.no_grad():
        want = net(probe).numpy()
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    got = session.run(None, {"image_bgr": probe.numpy()})[0]
    return float(np.abs(got - want).max())


def main(argv: list[str] | None = None) -> None:
    """Command line: export a checkpoint and say how faithful the ONNX file is."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("onnx_path", type=Path)
    args = parser.parse_args(argv)
    diff = export_checkpoint(args.checkpoint, args.onnx_path)
    size_mb = args.onnx_path.stat().st_size / 2**20
    print(f"wrote {args.onnx_path} ({size_mb:.2f} MiB); max |torch - onnxruntime| = {diff:.2e}")


if __name__ == "__main__":
    main()
