"""Progress over a command's photos, on stderr.

When stderr is a terminal, a rich progress bar counts the photos done and names the stage
the current photo is in (reading it, finding its cards, telling their decks apart: on a
large photo each takes seconds); it disappears when the work is done. The line about each
photo counted is printed either way, so logs and pipes get the same words and nothing but
data goes to stdout.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

#: What each stage of ``vision.count.STAGES`` is called in the bar.
STAGE_NAMES = {
    "decode": "reading the photo",
    "detect": "finding the cards",
    "identify": "telling the decks apart",
}


def stderr_is_terminal() -> bool:
    """Whether someone watches stderr (a bar there would be noise in a log or a pipe)."""
    return sys.stderr is not None and sys.stderr.isatty()


class PhotoProgress:
    """A context manager over ``total`` photos: :meth:`stage` as a photo's stage begins,
    :meth:`done` with the line to say once a photo is counted."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._bar: Progress | None = None
        self._task = None

    def __enter__(self) -> PhotoProgress:
        if stderr_is_terminal() and self.total:
            self._bar = Progress(
                TextColumn("Counting photos"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.description}"), TimeElapsedColumn(),
                console=Console(file=sys.stderr), transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("", total=self.total)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def stage(self, path: Path, stage: str) -> None:
        """The photo at ``path`` enters ``stage`` (a ``vision.count.STAGES`` name)."""
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, description=f"{path.name}: {STAGE_NAMES[stage]}")

    def done(self, line: str) -> None:
        """A photo is counted: say ``line`` (above the bar) and move the bar on."""
        if self._bar is not None and self._task is not None:
            self._bar.console.print(line, markup=False, highlight=False)
            self._bar.advance(self._task)
        else:
            typer.echo(line, err=True)
