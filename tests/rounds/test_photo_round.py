"""The photo round use case without the command line: count, propose, correct, save,
count again, edit. The vision stage is the stand-in of photo_fakes.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from photo_fakes import calibrate, fake_vision, round_photos, write_photo  # noqa: F401

from cardtally.errors import CardtallyError
from cardtally.home import ledger_path
from cardtally.rounds.card_fixes import CardFixer, parse_card_fixes
from cardtally.rounds.edit import edit_round, redraw_reviews
from cardtally.rounds.evidence import RoundEvidence
from cardtally.rounds.leftovers import FROM_PHOTOS
from cardtally.rounds.photo_round import PhotoRound
from cardtally.rounds.recount import RoundRecount
from cardtally.rounds.review import new_review_dir
from cardtally.scoring.ledger import Game, Ledger
from cardtally.scoring.rules import get_rules
from cardtally.scoring.standings import Seat

SEATS = [Seat("Anna", "red"), Seat("Ben", "blue"), Seat("Cleo", "yellow")]
#: Card 6 of the centre is purple: no player's deck, so a doubtful card.
CENTRE = ["red"] * 3 + ["blue"] * 2 + ["purple"]
LEFT = ["blue"] * 2 + ["yellow"] * 4


@pytest.fixture
def ledger(fake_vision, cardtally_home: Path):  # noqa: F811
    calibrate("red", "blue", "yellow")
    ledger_path().parent.mkdir(parents=True, exist_ok=True)
    with Ledger.open(ledger_path()) as opened:
        opened.create_game(get_rules("ligretto"), SEATS)
        yield opened


def scoring(ledger: Ledger, cards: list[str] = (), fixes: list[str] = ()) -> PhotoRound:
    game = ledger.game(None)
    fixer = CardFixer(parse_card_fixes(cards, game.players), {s.player: s.deck for s in SEATS})
    review_dir = new_review_dir(game.id, len(game.rounds) + 1)
    return PhotoRound(game, review_dir, fixer, fixes, "Anna", FROM_PHOTOS)


def counts(game: Game, number: int = 1) -> dict[str, tuple[int, int]]:
    return {c.player: (c.center_cards, c.pile_cards) for c in game.round(number).entry.counts}


class Lines:
    """A progress listener that keeps what it hears."""

    def __init__(self) -> None:
        self.stages: list[tuple[str, str]] = []
        self.lines: list[str] = []

    def stage(self, path: Path, stage: str) -> None:
        self.stages.append((path.name, stage))

    def done(self, line: str) -> None:
        self.lines.append(line)


def test_count_propose_correct_and_save(ledger: Ledger, tmp_path: Path):
    centre, left = round_photos(tmp_path, CENTRE, LEFT)
    round_ = scoring(ledger)
    heard = Lines()
    round_.count([centre], [left], heard)
    assert heard.lines == ["centre: centre.png: 6 cards", "leftover: left.png: 6 cards"]
    assert [stage for _, stage in heard.stages] == ["decode", "detect", "identify"] * 2
    entry, warnings = round_.proposal()
    assert {c.player: (c.center_cards, c.pile_cards) for c in entry.counts} == {
        "Anna": (3, 0), "Ben": (2, 2), "Cleo": (0, 4)}
    assert warnings == ["1 centre card(s) match no player's deck and are not scored."]
    assert round_.cards_to_check() == ["centre centre.png: card 6 matches no player's deck"]
    assert round_.point_swings() == {"Anna": (0, 1), "Ben": (0, 1), "Cleo": (0, 1)}

    # Card 6 is Cleo's (as typed at the question), and Ben has one more card left.
    more = CardFixer(parse_card_fixes(["centre:6=Cleo"], ["Anna", "Ben", "Cleo"]),
                     {s.player: s.deck for s in SEATS})
    round_.correct(more, ["Ben=pile:+1"])
    entry, warnings = round_.proposal()
    assert {c.player: (c.center_cards, c.pile_cards) for c in entry.counts} == {
        "Anna": (3, 0), "Ben": (2, 3), "Cleo": (1, 4)}
    assert round_.cards_to_check() == [] and warnings == []

    number = round_.save(ledger)
    assert number == 1
    stored = ledger.game(None).round(1)
    evidence = RoundEvidence.from_json(stored.evidence)
    assert evidence is not None and evidence.to_json() == stored.evidence  # read back whole
    assert evidence.card_fixes == ("centre:6=Cleo",) and evidence.fixes == ("Ben=pile:+1",)
    assert [card.text for card in evidence.hand_cards] == ["centre:centre.png:6=Cleo"]
    assert [c.text for c in evidence.corrections] == ["--card centre:centre.png:6=Cleo",
                                                      "--fix Ben=pile:+1"]
    assert evidence.center[0].card_decks == ("red",) * 3 + ("blue",) * 2 + ("yellow",)
    assert all(Path(p.review_image).is_file() and Path(p.cards_file).is_file()
               for p in evidence.all_photos)


def test_not_saved_when_the_game_changed_meanwhile(ledger: Ledger, tmp_path: Path):
    centre, left = round_photos(tmp_path, CENTRE, LEFT)
    round_ = scoring(ledger)
    round_.count([centre], [left])
    other = scoring(ledger)
    other.count([centre], [left])
    other.save(ledger)
    with pytest.raises(CardtallyError, match=r"^Not saved: game 1 changed while the photos"):
        round_.save(ledger)


def test_a_recount_keeps_the_card_given_by_hand(ledger: Ledger, tmp_path: Path):
    centre, left = round_photos(tmp_path, CENTRE, LEFT)
    round_ = scoring(ledger, cards=["centre:6=Cleo"])
    round_.count([centre], [left])
    round_.save(ledger)
    recount = RoundRecount(ledger.game(None), 1)
    recount.count(new_review_dir(1, 1))
    assert not recount.changed
    assert recount.kept_texts() == ["--card centre:centre.png:6=Cleo"]

    write_photo(centre, CENTRE + ["red"])  # the photo changed since the round was scored
    with pytest.raises(CardtallyError, match=r"its photo .*centre.png has changed since the"):
        RoundRecount(ledger.game(None), 1)


def test_a_recount_that_changes_the_counts_is_saved_with_its_trail(ledger: Ledger,
                                                                   tmp_path: Path):
    centre, left = round_photos(tmp_path, CENTRE, LEFT)
    round_ = scoring(ledger)
    round_.count([centre], [left])
    round_.save(ledger)
    game = ledger.game(None)
    edited = edit_round(game, 1, "--center Ben=5", center=["Ben=5"])
    ledger.replace_round(1, 1, edited.entry, [], evidence=edited.evidence.to_json())
    recount = RoundRecount(ledger.game(None), 1)
    recount.count(new_review_dir(1, 1))
    assert recount.kept_texts() == ["--center Ben=5"] and not recount.changed
    evidence = recount.evidence()
    assert [c.command for c in evidence.corrections] == ["round edit", "round recount"]
    assert len(evidence.recounts) == 1 and evidence.typed_counts == {"centre": {"Ben": 5}}


def test_edit_gives_a_card_and_draws_its_review_image_again(ledger: Ledger, tmp_path: Path):
    centre, left = round_photos(tmp_path, CENTRE, LEFT)
    round_ = scoring(ledger)
    round_.count([centre], [left])
    round_.save(ledger)
    edited = edit_round(ledger.game(None), 1, "--card centre:1=Ben", cards=["centre:1=Ben"])
    assert {c.player: c.center_cards for c in edited.entry.counts} == {
        "Anna": 2, "Ben": 3, "Cleo": 0}
    assert edited.evidence.center[0].card_decks[0] == "blue"
    assert edited.problems == [] and [r.n_by_hand for r in edited.redraws] == [1]
    review = Path(edited.evidence.center[0].review_image)
    before = review.read_bytes()
    assert redraw_reviews(edited.redraws) == [review]
    assert review.read_bytes() != before


def test_a_round_typed_in_by_hand_has_no_cards_to_give(ledger: Ledger):
    from cardtally.scoring.entry import build_round

    entry = build_round(["Anna", "Ben", "Cleo"], center=["Anna=3", "Ben=2", "Cleo=1"],
                        leftover=["Anna=0", "Ben=2", "Cleo=4"], caller="Anna")
    ledger.add_round(1, entry, [])
    with pytest.raises(CardtallyError, match=r"^Round 1 keeps no record of its cards"):
        edit_round(ledger.game(None), 1, "--card centre:1=Ben", cards=["centre:1=Ben"])
    edited = edit_round(ledger.game(None), 1, "--center Ben=5", center=["Ben=5"])
    assert edited.evidence.source == "hand" and len(edited.evidence.corrections) == 1
    with pytest.raises(CardtallyError, match=r"^Round 1 was typed in by hand; there are no"):
        RoundRecount(ledger.game(None), 1)
