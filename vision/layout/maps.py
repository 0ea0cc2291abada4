"""Run the layout network on an image and hand back its maps, typed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnxruntime as ort

#: The network's output stride (the trunk's neck) and the scale of its centre offsets (cells
#: divided by this, so that the regression targets are of order one); the training targets use
#: the same values.
LAYOUT_STRIDE = 4
OFFSET_SCALE = 16.0
_MULTIPLE = 32


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


@dataclass(frozen=True)
class LayoutMaps:
    """The heads at stride 4 of the image the network saw (float32, (h, w) unless noted).

    ``offset_xy`` points from each cell to its card's centre in cells; ``card_long_cells`` is the
    card's long side in cells. ``image_wh`` is the size of the image given to :func:`read_maps`.
    """

    foreground: np.ndarray
    edge: np.ndarray
    corner: np.ndarray
    edge_orient: np.ndarray  # (2, h, w) cos 2a, sin 2a of the edge's direction
    offset_xy: np.ndarray  # (2, h, w)
    card_long_cells: np.ndarray
    card_orient: np.ndarray  # (2, h, w) cos 4a, sin 4a: the card's turn up to a quarter turn
    image_wh: tuple[int, int]

    @property
    def stride(self) -> int:
        """Input pixels per map cell."""
        return LAYOUT_STRIDE


class LayoutNetwork:
    """Holds the layout network's inference session; :meth:`read` runs it on one image."""

    def __init__(self, session: ort.InferenceSession) -> None:
        self.session = session
        self.input_name = session.get_inputs()[0].name

    def read(self, image_bgr: np.ndarray) -> LayoutMaps:
        """The maps of ``image_bgr`` (uint8, any size: padded to a multiple of 32 on the right
        and bottom with the image's edge colour, the padding cut off the maps again)."""
        h, w = image_bgr.shape[:2]
        ph, pw = -h % _MULTIPLE, -w % _MULTIPLE
        padded = np.pad(image_bgr, ((0, ph), (0, pw), (0, 0)), mode="edge") if ph or pw else image_bgr
        x = np.ascontiguousarray(padded.transpose(2, 0, 1)[None], dtype=np.float32)
        out = self.session.run(None, {self.input_name: x})[0][0]
        oh, ow = h // LAYOUT_STRIDE, w // LAYOUT_STRIDE
        out = out[:, :oh, :ow]
        return LayoutMaps(
            foreground=_sigmoid(out[0]), edge=_sigmoid(out[1]), corner=_sigmoid(out[2]),
            edge_orient=out[3:5].copy(), offset_xy=out[5:7] * OFFSET_SCALE,
            card_long_cells=np.exp2(out[7]), card_orient=out[8:10].copy(), image_wh=(w, h),
        )
