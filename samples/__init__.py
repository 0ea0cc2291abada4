"""Bundled demo photos (rendered by samples/make_samples.py) for ``cardtally demo``."""
