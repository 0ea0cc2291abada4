"""Player and deck names: what is refused, what is one name."""

import pytest

from cardtally.errors import CardtallyError
from cardtally.scoring.names import check_deck_name, name_key, player_name


def test_player_names_are_stored_nfc() -> None:
    assert player_name(" Rene\u0301 ") == "Ren\u00e9"


@pytest.mark.parametrize(
    ("one", "other"),
    [("Anna", "anna"), ("Anna", "An\u200bna"), ("Ren\u00e9", "Rene\u0301"), ("Bo", "\u2060Bo\ufeff")],
)
def test_names_that_look_alike_are_one_name(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)


@pytest.mark.parametrize("text", ["A\nB", "A\rB", "\x1b[31mA", "A\x00", "A\u2028B", "A\x7f"])
def test_control_characters_are_refused(text: str) -> None:
    with pytest.raises(CardtallyError, match="holds a control character"):
        player_name(text)


def test_long_player_name_is_refused() -> None:
    with pytest.raises(CardtallyError, match="use at most 40 characters"):
        player_name("x" * 41)
    assert player_name("Zoë-Émilie O'Brien") == "Zoë-Émilie O'Brien"


@pytest.mark.parametrize("name", ["../x", ".hidden", "a/b", "r" * 41, "", "red star"])
def test_bad_deck_names_are_refused(name: str) -> None:
    with pytest.raises(CardtallyError, match="Invalid deck name"):
        check_deck_name(name)
