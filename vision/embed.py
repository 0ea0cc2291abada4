"""The shipped back embedder: masked card crops in, unit embeddings and face-up odds out."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from importlib import resources

import numpy as np
import onnxruntime as ort

from cardtally.errors import CardtallyError

from .onnx_session import load_packaged_model
from .rectify import CROP_PX, INPUT_CHANNELS, CardCrops

EMBEDDER_FILE = "back_embedder.onnx"
#: Crops per ``session.run``: bounds memory on photos with hundreds of cards.
BATCH_CROPS = 256


@dataclass(frozen=True)
class Embeddings:
    """``vectors`` (n, embedding_dim) unit rows; ``face_up_prob`` (n,) in [0, 1]."""

    vectors: np.ndarray
    face_up_prob: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.face_up_prob)
        if self.vectors.ndim != 2 or len(self.vectors) != n:
            raise ValueError(f"vectors must have shape ({n}, d), got {self.vectors.shape}")

    def __len__(self) -> int:
        return len(self.face_up_prob)

    @property
    def embedding_dim(self) -> int:
        return int(self.vectors.shape[1])


class BackEmbedder:
    """Holds only the ONNX session; :meth:`embed` returns results instead of storing them."""

    def __init__(self, session: ort.InferenceSession | None = None) -> None:
        self.session = session or load_packaged_model(EMBEDDER_FILE)
        self.input_name = self.session.get_inputs()[0].name
        self.output_names = [o.name for o in self.session.get_outputs()]

    def embed(self, crops: CardCrops | np.ndarray) -> Embeddings:
        """Embed (n, 4, 64, 64) crops (see :func:`cardtally.vision.rectify.normalise_crop`)."""
        pixels = crops.pixels if isinstance(crops, CardCrops) else np.asarray(crops, np.float32)
        if pixels.ndim != 4 or pixels.shape[1:] != (INPUT_CHANNELS, CROP_PX, CROP_PX):
            raise ValueError(
                f"crops must have shape (n, {INPUT_CHANNELS}, {CROP_PX}, {CROP_PX}), got {pixels.shape}"
            )
        vectors, logits = [], []
        for start in range(0, len(pixels), BATCH_CROPS):
            batch = np.ascontiguousarray(pixels[start : start + BATCH_CROPS], np.float32)
            out = dict(zip(self.output_names, self.session.run(None, {self.input_name: batch}),
                           strict=True))
            vectors.append(out["embedding"])
            logits.append(out["face_up_logit"])
        if not vectors:
            return Embeddings(np.zeros((0, self.embedding_dim), np.float32), np.zeros((0,), np.float32))
        stacked = np.concatenate(vectors).astype(np.float32)
        # Re-normalise: the graph already does, but float rounding must not move thresholds.
        stacked /= np.maximum(np.linalg.norm(stacked, axis=1, keepdims=True), 1e-12)
        prob = 1.0 / (1.0 + np.exp(-np.concatenate(logits).astype(np.float32)))
        return Embeddings(vectors=stacked, face_up_prob=prob)

    @property
    def embedding_dim(self) -> int:
        return int(self.session.get_outputs()[0].shape[1])


@functools.lru_cache(maxsize=1)
def embedder_version() -> str:
    """Short content hash of the shipped model: deck profiles record it and are checked against it.

    Any retrained model changes the embedding space, so old prototypes would be meaningless.
    """
    try:
        data = resources.files("cardtally.models").joinpath(EMBEDDER_FILE).read_bytes()
    except OSError:
        raise CardtallyError(
            f"The model file {EMBEDDER_FILE} is missing from the installation; reinstall cardtally."
        ) from None
    return "sha256:" + hashlib.sha256(data).hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def default_embedder() -> BackEmbedder:
    """The shipped embedder, created once per process."""
    return BackEmbedder()
