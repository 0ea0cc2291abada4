"""Opt-in process tuning for rendering on the fly (training data loaders, benchmarks).

Rendering allocates many short-lived multi-megabyte arrays. glibc returns such blocks to the
kernel on free, so each new one page-faults again; at 512x512 that costs about a quarter of the
render time. Keeping freed memory in the heap removes it. This changes the whole process's
allocator, so it is never done on import: call :func:`tune_malloc` in a worker's init function.
"""

from __future__ import annotations

from cardtally.malloc import set_malloc_thresholds


def tune_malloc(mmap_threshold_bytes: int = 32 << 20, trim_threshold_bytes: int = 1 << 30
                ) -> bool:
    """Keep freed blocks below the thresholds in the heap; True if glibc accepted it."""
    return set_malloc_thresholds(mmap_threshold_bytes, trim_threshold_bytes)
