"""How decks look in review images: a stable, distinct colour and a short label per deck."""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable

BGR = tuple[int, int, int]

#: Twelve colours that are far apart and bright enough for dark felt (after the "20 distinct
#: colours" list by Sasha Trubetskoy). Yellow and white are left out: they mean "unknown" and
#: "face up". Stored as BGR.
DECK_PALETTE_BGR: tuple[BGR, ...] = (
    (75, 25, 230),  # red
    (75, 180, 60),  # green
    (216, 99, 67),  # blue
    (49, 130, 245),  # orange
    (180, 30, 145),  # purple
    (244, 212, 66),  # cyan
    (230, 50, 240),  # magenta
    (69, 239, 191),  # lime
    (212, 190, 250),  # pink
    (144, 153, 70),  # teal
    (255, 190, 220),  # lavender
    (195, 255, 170),  # mint
)
#: One-word deck names up to this long are shown whole on the labels.
SHORT_WORD_CHARS = 5


#: Colour words in deck names, by palette slot: a deck named after a colour ("red-star",
#: "blue") is drawn in that colour when it is free. Yellow decks get lime (yellow means unknown).
COLOUR_WORD_SLOTS = {
    word: slot
    for slot, words in enumerate((
        "red", "green", "blue", "orange", "purple violet", "cyan turquoise", "magenta",
        "lime yellow", "pink rose", "teal", "lavender lilac", "mint",
    ))
    for word in words.split()
}  # fmt: skip


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[\s_\-.]+", name) if w]


def _preferred_slot(deck_name: str) -> tuple[int, bool]:
    """Palette slot for a deck, and whether it comes from a colour word in the name."""
    for word in _words(deck_name.lower()):
        if word in COLOUR_WORD_SLOTS:
            return COLOUR_WORD_SLOTS[word], True
    # crc32, not hash(): Python salts str hashes per process and the colour must be stable.
    return zlib.crc32(deck_name.encode("utf-8")) % len(DECK_PALETTE_BGR), False


def deck_colour(deck_name: str) -> BGR:
    """The deck's preferred outline colour (BGR), the same on every run: the colour its name
    says ("red-star" is red) or else one picked by a hash of the name."""
    return DECK_PALETTE_BGR[_preferred_slot(deck_name)[0]]


def assign_deck_colours(deck_names: Iterable[str]) -> dict[str, BGR]:
    """Distinct colours for a set of decks: each deck gets :func:`deck_colour` unless another
    deck took it first, then the next free palette colour. Decks named after a colour choose
    first, then the rest in name order, so the result depends only on the set of names."""
    colours: dict[str, BGR] = {}
    taken: set[int] = set()
    slots = {name: _preferred_slot(name) for name in set(deck_names)}
    for name in sorted(slots, key=lambda n: (not slots[n][1], n)):
        slot = slots[name][0]
        for step in range(len(DECK_PALETTE_BGR)):
            candidate = (slot + step) % len(DECK_PALETTE_BGR)
            if candidate not in taken:
                slot = candidate
                break
        taken.add(slot)  # beyond twelve decks colours repeat; the labels still tell them apart
        colours[name] = DECK_PALETTE_BGR[slot]
    return colours


def _abbreviation_options(name: str) -> list[str]:
    """Labels for a deck name, shortest and most telling first."""
    words = _words(name) or ["?"]
    if len(words) == 1:
        word = words[0]
        options = [word if len(word) <= SHORT_WORD_CHARS else word[:3], word[:4], word[:5]]
    else:
        initials = "".join(w[0] for w in words[:-1][:2])
        options = [initials + words[-1][0], initials + words[-1][:2], initials + words[-1][:3]]
    return list(dict.fromkeys(o.upper() for o in options))


def deck_abbreviations(deck_names: Iterable[str]) -> dict[str, str]:
    """Short unique labels for the decks: initials ("red-star" -> "RS"), a short word whole
    ("grey" -> "GREY"), else three letters ("purple" -> "PUR"). Clashing decks take more of
    their last word ("red-star", "red-sun" -> "RST", "RSU"), then a digit."""
    names = list(dict.fromkeys(deck_names))
    options = {name: _abbreviation_options(name) for name in names}
    level = dict.fromkeys(names, 0)
    for _ in range(SHORT_WORD_CHARS):
        short = {n: options[n][min(level[n], len(options[n]) - 1)] for n in names}
        clashing = [n for n in names if sum(v == short[n] for v in short.values()) > 1]
        if not clashing:
            return short
        for name in clashing:
            level[name] += 1
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(short[name], []).append(name)
    for label, members in groups.items():
        if len(members) > 1:
            short.update({n: f"{label}{k}" for k, n in enumerate(members, start=1)})
    return short
