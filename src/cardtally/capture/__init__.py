"""Capture: getting a photo from a webcam, a phone's camera stream or a video file (not vision)."""
