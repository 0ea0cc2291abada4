"""Card detector: network, training data, training loop and ONNX export (torch: offline only)."""
