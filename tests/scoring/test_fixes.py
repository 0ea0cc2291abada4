"""``--fix`` corrections applied to photo counts before saving."""

import pytest

from cardtally.errors import CardtallyError
from cardtally.scoring.fixes import apply_fixes

PLAYERS = ("Anna", "Ben")
CENTER = {"Anna": 10, "Ben": 7}
PILE = {"Anna": 0, "Ben": 3}


@pytest.mark.parametrize(
    ("fixes", "center", "pile"),
    [
        ([], CENTER, PILE),
        (["Anna=centre:+1"], {"Anna": 11, "Ben": 7}, PILE),
        (["ben=pile:-1", "Ben=center:+2"], {"Anna": 10, "Ben": 9}, {"Anna": 0, "Ben": 2}),
        (["Ben=leftover:-3"], CENTER, {"Anna": 0, "Ben": 0}),
    ],
)
def test_fixes_apply(fixes, center, pile) -> None:
    assert apply_fixes(CENTER, PILE, fixes, PLAYERS) == (center, pile)


@pytest.mark.parametrize(
    ("fix", "message"),
    [
        ("Anna+1", "Bad --fix 'Anna+1': write NAME=centre:+N or NAME=pile:-N, e.g. --fix Anna=centre:+1."),
        ("Cleo=pile:+1", "Unknown player 'Cleo' in --fix. The players are: Anna, Ben."),
        ("Ben=pile:-4", "--fix 'Ben=pile:-4' would leave Ben with -1 cards; counts cannot be negative."),
    ],
)
def test_bad_fixes(fix: str, message: str) -> None:
    with pytest.raises(CardtallyError) as error:
        apply_fixes(CENTER, PILE, [fix], PLAYERS)
    assert str(error.value) == message
