"""Write an embedder's impostor cohort (``NAME_background.npy``) beside its ONNX file.

    python -m cardtally.models.embedder.background models/back_embedder.onnx

The export writes it with every new model; this rewrites it for a model already exported when
the runtime descriptor around the network changes (``vision/embed.py``). No torch needed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnxruntime as ort

from ...vision.embed import BACKGROUND_SUFFIX, BackEmbedder

BACKGROUND_SEED = 31337


def background_embeddings(session: ort.InferenceSession, seed: int = BACKGROUND_SEED,
                          n_designs: int = 150, views: int = 4) -> np.ndarray:
    """Runtime embeddings (network + colour) of views of random procedural designs no deck will
    have: the impostors a deck's acceptance threshold is set against (cohort normalisation)."""
    from ..synth.designs import random_back_design
    from .views import render_view, seed_camera_noise

    rng = np.random.default_rng(seed)
    # The shipped cohorts were made in fresh processes: the camera noise starts where it does
    # there, whatever this process drew before.
    seed_camera_noise(0)
    designs = [random_back_design(rng) for _ in range(n_designs)]
    crops = np.stack([render_view(rng, d, designs)[0] for d in designs for _ in range(views)])
    return BackEmbedder(session).embed(crops).vectors


def write_background(model_bytes: bytes, model_path: Path) -> Path:
    """Save the cohort of the model ``model_bytes`` beside ``model_path`` (float16)."""
    session = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    path = model_path.with_name(model_path.stem + BACKGROUND_SUFFIX)
    vectors = background_embeddings(session)
    np.save(path, vectors.astype(np.float16))
    print(f"wrote {path} {vectors.shape}")
    return path


def main() -> None:
    """Write MODEL_background.npy beside an exported embedder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="an exported embedder (.onnx)")
    args = parser.parse_args()
    write_background(args.model.read_bytes(), args.model)


if __name__ == "__main__":
    main()
