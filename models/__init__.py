"""Shipped ONNX models, their model card, and the code that trains and exports them."""
