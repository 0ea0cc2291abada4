"""glibc allocator controls: freed heap memory is kept, then handed back on request."""

import platform
import subprocess
import sys

import pytest

_SCRIPT = """
import os
from cardtally.malloc import release_free_memory, set_malloc_thresholds

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

# Keep freed blocks in the heap, as the training renderer does.
assert set_malloc_thresholds(64 << 20, 1 << 30)
blocks = [bytearray(b"x" * (1 << 20)) for _ in range(48)]
del blocks
kept = rss_mb()
release_free_memory()
print(kept - rss_mb())
"""


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                    reason="the controls are glibc's")
def test_freed_heap_memory_is_returned_on_request() -> None:
    # A child process: the settings are process-wide and must not leak into the suite.
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                          check=True)
    assert float(done.stdout) >= 40.0  # of the 48 MiB freed
