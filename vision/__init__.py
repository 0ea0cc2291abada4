"""Photos in, typed card detections out: load, detect, rectify, embed, classify, annotate."""
