"""What a player or deck name may be, and when two names are the same.

Names end up in the terminal, in file names (decks) and in exported spreadsheets, so they may
not carry control characters (a newline would forge an output line, an ANSI escape would
repaint the terminal). Player names are stored NFC-normalised and compared without case and
without invisible characters, so "Anna" and "Anna" with a zero-width space are one player.
"""

from __future__ import annotations

import re
import unicodedata

from ..errors import CardtallyError

MAX_NAME_CHARS = 40
_DECK_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")
#: Unicode categories refused in a player name: control characters (newline, ESC, ...),
#: unassigned and private-use code points, lone surrogates, line and paragraph separators.
_REFUSED_CATEGORIES = {"Cc", "Cn", "Co", "Cs", "Zl", "Zp"}


def check_deck_name(name: str) -> str:
    """Return ``name`` if it can be a deck (and file) name, else raise :class:`CardtallyError`."""
    if not _DECK_NAME_RE.match(name):
        raise CardtallyError(
            f"Invalid deck name {name!r}: use 1-40 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit."
        )
    return name


def player_name(text: str) -> str:
    """``text`` as a player name: NFC-normalised, stripped; refused with a clear error if it
    holds control characters, is empty once invisible characters are left out, or is long."""
    name = unicodedata.normalize("NFC", text.strip())
    if any(unicodedata.category(char) in _REFUSED_CATEGORIES for char in name):
        raise CardtallyError(
            f"Invalid player name {name!r}: it holds a control character (a newline, a terminal "
            "escape, ...); use letters, digits, spaces and punctuation."
        )
    if not name_key(name):
        raise CardtallyError(f"Invalid player name {name!r}: it shows nothing.")
    if len(name) > MAX_NAME_CHARS:
        raise CardtallyError(
            f"Invalid player name {name!r}: use at most {MAX_NAME_CHARS} characters."
        )
    return name


def name_key(name: str) -> str:
    """What two names must share to be the same player: NFC, case-folded, without invisible
    (format) characters such as zero-width spaces and joiners."""
    shown = "".join(c for c in unicodedata.normalize("NFC", name) if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFC", shown.casefold()).strip()
