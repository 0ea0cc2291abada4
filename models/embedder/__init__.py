"""Training and export of the back embedder (``models/back_embedder.onnx``); needs torch.

Run ``python -m cardtally.models.embedder.train`` then ``python -m cardtally.models.embedder.export``
(exact commands and seeds in ``models/MODEL_CARD.md``). The runtime (``cardtally.vision``) never
imports this package.
"""
