"""What the image decoders (libjpeg, libpng, OpenCV) report while decoding a photo.

They write straight to file descriptor 2, not through Python: libjpeg's "Corrupt JPEG data: ..."
is its only sign that a damaged photo was decoded with made-up pixels. :func:`decoder_messages`
diverts descriptor 2 into a memory file while one decode runs, hands the decoder's lines to the
caller (which turns them into a :class:`~cardtally.errors.CardtallyError`) and writes anything
else that arrived meanwhile (another thread's output) back to the real stderr.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import BinaryIO

#: libjpeg's warnings that mean the pixels are not the photo's (jerror.h, JWRN_*). Its other
#: warnings (an unknown JFIF revision, an odd Adobe or ICC marker) leave the pixels right.
_JPEG_CORRUPT = re.compile(
    r"^(Corrupt JPEG data: (?!bad ICC marker)|Premature end of JPEG file"
    r"|Inconsistent progression sequence|Invalid SOS parameters|Application transferred too)"
)
_JPEG_OTHER = re.compile(
    r"^(Corrupt JPEG data|Warning: unknown JFIF|Warning: thumbnail image|Unknown Adobe color"
    r"|Invalid JPEG file structure|Unsupported marker type)"
)
_PNG = re.compile(r"^libpng (error|warning): ")
_OPENCV_LOG = re.compile(r"^\[ ?(WARN|ERROR|INFO|DEBUG):")

# Descriptor 2 is one per process: two decodes at once (the photo reader's thread and another)
# must not swap it under each other.
_DIVERT_LOCK = threading.Lock()


@dataclass
class DecoderReport:
    """The decoder's own lines written during one decode (filled in when the block ends)."""

    lines: list[str] = field(default_factory=list)

    @property
    def jpeg_corrupt(self) -> bool:
        """libjpeg reported data that made it invent pixels (corrupt or missing data)."""
        return any(_JPEG_CORRUPT.match(line) for line in self.lines)

    @property
    def png_error(self) -> bool:
        """libpng gave up on the file (``libpng error: ...``)."""
        return any(line.startswith("libpng error: ") for line in self.lines)


def is_decoder_line(line: str) -> bool:
    """Whether a line on stderr came from libjpeg, libpng or OpenCV's own log."""
    return bool(_JPEG_OTHER.match(line) or _PNG.match(line) or _OPENCV_LOG.match(line))


def _memory_file() -> BinaryIO:
    if hasattr(os, "memfd_create"):  # never touches the disk, which may be full
        return os.fdopen(os.memfd_create("cardtally-decoder", 0), "w+b")
    return tempfile.TemporaryFile()


@contextmanager
def decoder_messages() -> Iterator[DecoderReport]:
    """Divert descriptor 2 while the block runs; the report holds the decoder's lines after it.

    Where stderr cannot be diverted (no descriptor 2, no memory file) the block still runs and
    the report stays empty.
    """
    report = DecoderReport()
    with _DIVERT_LOCK:
        try:
            sink = _memory_file()
            saved_fd = os.dup(2)
        except OSError:
            yield report
            return
        with sink:
            if sys.stderr is not None:
                sys.stderr.flush()  # what Python wrote before stays out of the report
            os.dup2(sink.fileno(), 2)
            try:
                yield report
            finally:
                if sys.stderr is not None:
                    sys.stderr.flush()
                os.dup2(saved_fd, 2)
                os.close(saved_fd)
                sink.seek(0)
                written = sink.read().decode("utf-8", "replace")
                others = []
                for line in written.splitlines():
                    (report.lines if is_decoder_line(line) else others).append(line)
                if others:
                    os.write(2, ("\n".join(others) + "\n").encode())
