"""Layout network v2 (training side): pretrained trunk, heads, targets, data, training, export."""
