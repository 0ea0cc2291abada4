"""Opt-in process tuning for rendering on the fly (training data loaders, benchmarks).

Rendering allocates many short-lived multi-megabyte arrays. glibc returns such blocks to the
kernel on free, so each new one page-faults again; at 512x512 that costs about a quarter of the
render time. Keeping freed memory in the heap removes it. This changes the whole process's
allocator, so it is never done on import: call :func:`tune_malloc` in a worker's init function.
"""

from __future__ import annotations

import ctypes
import ctypes.util

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def tune_malloc(mmap_threshold_bytes: int = 32 << 20, trim_threshold_bytes: int = 1 << 30
                ) -> bool:
    """Keep freed blocks below the thresholds in the heap; True if glibc accepted it."""
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return False
    ok = mallopt(_M_MMAP_THRESHOLD, int(mmap_threshold_bytes))
    ok &= mallopt(_M_TRIM_THRESHOLD, int(trim_threshold_bytes))
    return bool(ok)
