"""The calibrated back in the deck profile: stored compactly, read back as it was."""

import json

import numpy as np
import pytest

from cardtally.errors import CardtallyError
from cardtally.models.synth.designs import random_back_design
from cardtally.vision.decks import DeckProfile, DeckSet, read_profile, write_profile
from cardtally.vision.fit.back_median import build_back
from cardtally.vision.fit.backs import calibrated_backs, decode_back, encode_back

from .test_back_median import card_frames


def profile_with(back, name: str = "red") -> DeckProfile:
    prototypes = np.eye(4, 8, dtype=np.float32)
    return DeckProfile(name=name, prototypes=prototypes, threshold=0.8, embedder_version="v",
                       n_cards=5, created="2024-01-01T00:00:00+00:00", back=back)


def test_the_back_goes_into_the_profile_and_comes_back():
    back = build_back("red", card_frames(304, random_back_design(np.random.default_rng(4))))
    path = write_profile(profile_with(back))
    loaded = read_profile(path).back
    assert loaded.deck_name == "red"
    np.testing.assert_array_equal(loaded.back_bgr, back.back_bgr)
    np.testing.assert_allclose(loaded.spread, back.spread, atol=0.5)
    # Compact: lossless PNG, 64-87 kB of JSON text per deck on seeds 300-303 (72 kB here).
    assert len(json.dumps(encode_back(back))) < 100_000
    again = calibrated_backs(DeckSet((read_profile(path),)))
    assert list(again) == ["red"] and np.array_equal(again["red"].back_bgr, back.back_bgr)


def test_a_damaged_back_is_a_corrupt_profile():
    back = build_back("red", card_frames(304, random_back_design(np.random.default_rng(4))))
    path = write_profile(profile_with(back))
    data = json.loads(path.read_text())
    data["back"]["back_png"] = "AAAA"
    path.write_text(json.dumps(data))
    with pytest.raises(CardtallyError, match=r"is corrupt \(bad or missing field: the back is not a readable PNG\)"):
        read_profile(path)
    with pytest.raises(ValueError, match="back_bgr must be"):
        decode_back("red", {**encode_back(back), "back_png": encode_back(back)["spread_png"]})


def test_a_profile_without_a_back_loads_and_says_to_calibrate_again():
    profile = read_profile(write_profile(profile_with(None)))
    assert profile.back is None
    with pytest.raises(CardtallyError) as refused:
        calibrated_backs(DeckSet((profile,)))
    assert str(refused.value) == (
        "Deck 'red' was calibrated by an older cardtally that did not keep its card back; "
        "calibrate it again with 'cardtally calibrate red PHOTO... --replace'.")
