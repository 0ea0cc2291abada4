"""Process-wide glibc allocator controls; no-ops where the C library is not glibc.

Two jobs want opposite things, so nothing is changed on import:

- the training data renderer allocates the same multi-megabyte buffers thousands of times and
  keeps freed ones in the heap (``set_malloc_thresholds``, via ``cardtally.models.synth.speed``);
- ``count`` handles a few large photos one after another: glibc keeps the freed buffers of one
  photo in the heap, so the peak grows from photo to photo (ten 12 MP photos: ~690 MB);
  handing free heap memory back between photos (``release_free_memory``) keeps it at ~610 MB.
  (Fixing the mmap threshold at 1 MiB gave ~495 MB but twice the page faults and ~40% more
  time.)
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


@cache
def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt, libc.malloc_trim  # noqa: B018  (glibc only: musl, macOS lack them)
    except (OSError, AttributeError):
        return None
    return libc


def set_malloc_thresholds(mmap_threshold_bytes: int, trim_threshold_bytes: int | None = None
                          ) -> bool:
    """Fix glibc's mmap (and optionally trim) threshold; True if glibc accepted it."""
    libc = _glibc()
    if libc is None:
        return False
    ok = libc.mallopt(_M_MMAP_THRESHOLD, int(mmap_threshold_bytes))
    if trim_threshold_bytes is not None:
        ok &= libc.mallopt(_M_TRIM_THRESHOLD, int(trim_threshold_bytes))
    return bool(ok)


def release_free_memory() -> None:
    """Give the heap's free memory back to the kernel (``malloc_trim``)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
