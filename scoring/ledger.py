"""The game ledger: games, players and rounds in one SQLite file (``cardtally.db``).

Safety rules:

* every change runs in one ``BEGIN IMMEDIATE`` transaction (:meth:`Ledger.transaction`), so a
  crash or ``kill -9`` at any moment leaves the previous state (SQLite's rollback journal);
* a second writer waits up to :data:`BUSY_TIMEOUT_S`, then gets "the game ledger is busy";
* an existing file is opened with ``mode=rw`` (never created or replaced); a file that is not a
  cardtally ledger gives an error naming it and saying how to move it aside.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

from ..errors import CardtallyError
from .rounds import PlayerCounts, RoundEntry
from .rules import RuleSet
from .schema import SCHEMA_VERSION, create_schema, migrate
from .standings import GameSummary, Seat, summarize

BUSY_TIMEOUT_S = 5.0
SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_MESSAGE = "The game ledger is busy (another cardtally is writing); try again."
NEW_GAME_HINT = "cardtally game new --player NAME=DECK --player NAME=DECK"
MAX_SQLITE_INTEGER = 2**63 - 1

_RULE_COLUMNS = (
    "deck_size",
    "pile_size",
    "points_per_center_card",
    "penalty_per_card",
    "caller_bonus",
    "target",
    "target_kind",
    "max_rounds",
    "min_players",
    "max_players",
)


@dataclass(frozen=True)
class StoredRound:
    """One saved round: its counts, the physical-check warnings it was saved with,
    the photo evidence (decoded JSON; None for rounds typed by hand) and when it
    was saved and last changed."""

    number: int
    entry: RoundEntry
    warnings: tuple[str, ...]
    evidence: Any | None  # decoded JSON, from photo scoring
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class Game:
    """One game as the ledger holds it: rules, seats in order and the saved rounds."""

    id: int
    created_at: str
    rules: RuleSet
    seats: tuple[Seat, ...]
    rounds: tuple[StoredRound, ...]

    @property
    def players(self) -> tuple[str, ...]:
        """The players' names, in seat order."""
        return tuple(seat.player for seat in self.seats)

    @cached_property
    def summary(self) -> GameSummary:
        """Scores, running totals and standings of the saved rounds (computed once)."""
        return summarize(self.rules, self.seats, [r.entry for r in self.rounds])

    def round(self, number: int) -> StoredRound:
        """Round ``number``; a clear error if the game has no such round."""
        if 1 <= number <= len(self.rounds):
            return self.rounds[number - 1]
        if not self.rounds:
            raise CardtallyError(f"Game {self.id} has no rounds yet.")
        held = "round 1" if len(self.rounds) == 1 else f"rounds 1-{len(self.rounds)}"
        raise CardtallyError(f"Game {self.id} has no round {number} (it has {held}).")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Ledger:
    """An open ledger file. Use :meth:`open`; close it (or use it as a context manager)."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn
        self._depth = 0

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(
        cls, path: Path, *, create: bool = True, busy_timeout_s: float | None = None
    ) -> Ledger | None:
        """Open the ledger at ``path``; create it if missing and ``create`` (else return None).

        The folder must exist. Raises :class:`CardtallyError` for a file that is not a cardtally
        ledger, one from a newer cardtally, or one that is busy.
        """
        timeout = BUSY_TIMEOUT_S if busy_timeout_s is None else busy_timeout_s
        path = Path(path).absolute()
        if path.is_dir():
            raise _not_a_ledger(path, "it is a folder")
        exists = path.exists()
        if not exists and not create:
            return None
        if exists:
            _check_header(path)
        uri = f"{path.as_uri()}?mode={'rw' if exists else 'rwc'}"
        with _translate_errors(path):
            conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)
        ledger = cls(path, conn)
        try:
            ledger._prepare()
        except BaseException:
            conn.close()
            raise
        return ledger

    def _prepare(self) -> None:
        with _translate_errors(self.path):
            self._conn.execute("PRAGMA foreign_keys = ON")
            problems = [row[0] for row in self._conn.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise _not_a_ledger(self.path, f"damaged: {problems[0]}")
            if self._user_version() == SCHEMA_VERSION:
                return
        with self.transaction() as conn:
            version = self._user_version()  # again: another process may have done it
            if version > SCHEMA_VERSION:
                raise CardtallyError(
                    f"The game ledger {self.path} was written by a newer cardtally (schema "
                    f"{version}; this one knows {SCHEMA_VERSION}). Upgrade cardtally."
                )
            if version == 0:
                if conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                    raise _not_a_ledger(self.path, "an SQLite file of another program")
                create_schema(conn)
            elif version < SCHEMA_VERSION:
                migrate(conn, version)

    def _user_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        """Close the database connection (``with Ledger(...)`` does it on leaving)."""
        self._conn.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- transactions --------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``): all of it is saved, or none of it.

        Nested use joins the outer transaction, so a command can read, check and write
        atomically with the same methods that open their own transaction when used alone.
        """
        if self._depth:
            self._depth += 1
            try:
                yield self._conn
            finally:
                self._depth -= 1
            return
        with _translate_errors(self.path):
            self._conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            with _translate_errors(self.path):
                yield self._conn
                self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise
        finally:
            self._depth = 0

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with _translate_errors(self.path):
            yield self._conn

    # -- reading -------------------------------------------------------------------------------

    def current_game_id(self) -> int | None:
        """The current game's ID, or None when none is set; a damaged setting is a clear
        error."""
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM settings WHERE key = 'current_game'").fetchone()
        if row is None:
            return None
        if not str(row[0]).isdigit():
            raise CardtallyError(
                f"The game ledger {self.path} is damaged: the current game is {row[0]!r}, not a "
                "game number. Pick a game with 'cardtally game show GAME' or undo the hand edit."
            )
        return int(row[0])

    def game_ids(self) -> list[int]:
        """The IDs of every game in the ledger, oldest first."""
        with self._reading() as conn:
            return [row[0] for row in conn.execute("SELECT id FROM games ORDER BY id")]

    def games_with_deck(self, deck: str) -> list[tuple[int, str]]:
        """(game id, player) of every game in which someone plays ``deck``."""
        with self._reading() as conn:
            return [(int(game_id), str(name)) for game_id, name in conn.execute(
                "SELECT game_id, name FROM players WHERE deck = ? ORDER BY game_id", (deck,))]

    def game(self, game_id: int | None = None) -> Game:
        """Game ``game_id``, or the current game when None."""
        if game_id is None:
            game_id = self.current_game_id()
            if game_id is None:
                raise CardtallyError(f"No game yet. Start one with: {NEW_GAME_HINT}")
        if not 1 <= game_id <= MAX_SQLITE_INTEGER:  # SQLite cannot even look such an id up
            raise CardtallyError(f"No game {game_id} in the ledger; see: cardtally game list")
        try:
            return self._read_game(game_id)
        except _HandEdited as exc:
            raise CardtallyError(
                f"The game ledger {self.path} is damaged: in game {game_id}, {exc}. Undo the hand "
                f"edit, or move the ledger aside (e.g. mv '{self.path}' '{self.path}.broken') to "
                "start a new one."
            ) from None

    def _read_game(self, game_id: int) -> Game:
        with self._reading() as conn:
            row = conn.execute(
                f"SELECT created_at, rules, {', '.join(_RULE_COLUMNS)} FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
            if row is None:
                raise CardtallyError(f"No game {game_id} in the ledger; see: cardtally game list")
            try:
                rules = RuleSet(row[1], **dict(zip(_RULE_COLUMNS, row[2:], strict=True)))
            except (TypeError, ValueError):
                raise _HandEdited("the rules hold a value that is not a valid number") from None
            seats = [
                (seat, Seat(name, deck))
                for seat, name, deck in conn.execute(
                    "SELECT seat, name, deck FROM players WHERE game_id = ? ORDER BY seat",
                    (game_id,),
                )
            ]
            by_seat = {seat: s.player for seat, s in seats}
            counts: dict[int, list[PlayerCounts]] = {}
            for number, seat, center, pile in conn.execute(
                "SELECT round_number, seat, center_cards, pile_cards FROM round_counts "
                "WHERE game_id = ? ORDER BY round_number, seat",
                (game_id,),
            ):
                if type(center) is not int or type(pile) is not int or seat not in by_seat:
                    raise _HandEdited(f"round {number} has a count that is not a whole number "
                                      f"or a player who is not in the game")
                counts.setdefault(number, []).append(PlayerCounts(by_seat[seat], center, pile))
            rounds = tuple(
                StoredRound(
                    number=number,
                    entry=RoundEntry(tuple(counts.get(number, ())), by_seat.get(caller_seat)),
                    warnings=tuple(_json_column(warnings, number, "warnings", list)),
                    evidence=None if evidence is None else _json_column(
                        evidence, number, "evidence", dict),
                    created_at=created,
                    updated_at=updated,
                )
                for number, caller_seat, warnings, evidence, created, updated in conn.execute(
                    "SELECT number, caller_seat, warnings, evidence, created_at, updated_at "
                    "FROM rounds WHERE game_id = ? ORDER BY number",
                    (game_id,),
                )
            )
        return Game(game_id, row[0], rules, tuple(s for _, s in seats), rounds)

    # -- writing (each call is one transaction, or part of the caller's) ------------------------

    def create_game(self, rules: RuleSet, seats: list[Seat]) -> int:
        """Store a new game with its players and make it the current game; return its id."""
        with self.transaction() as conn:
            values = [getattr(rules, column) for column in _RULE_COLUMNS]
            cursor = conn.execute(
                f"INSERT INTO games (created_at, rules, {', '.join(_RULE_COLUMNS)}) "
                f"VALUES (?, ?{', ?' * len(_RULE_COLUMNS)})",
                (_now(), rules.name, *values),
            )
            game_id = int(cursor.lastrowid or 0)
            conn.executemany(
                "INSERT INTO players (game_id, seat, name, deck) VALUES (?, ?, ?, ?)",
                [(game_id, seat, s.player, s.deck) for seat, s in enumerate(seats)],
            )
            self.set_current_game(game_id)
        return game_id

    def set_current_game(self, game_id: int) -> None:
        """Make ``game_id`` the game that commands use without ``--game``."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO settings (key, value) VALUES ('current_game', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(game_id),),
            )

    def add_round(
        self,
        game_id: int,
        entry: RoundEntry,
        warnings: list[str],
        evidence: Mapping[str, Any] | None = None,
    ) -> int:
        """Append ``entry`` as the game's next round; return its number."""
        with self.transaction() as conn:
            game = self.game(game_id)
            number = len(game.rounds) + 1
            now = _now()
            conn.execute(
                "INSERT INTO rounds (game_id, number, caller_seat, warnings, evidence, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    number,
                    _seat_of(game, entry.caller),
                    json.dumps(warnings),
                    None if evidence is None else json.dumps(evidence),
                    now,
                    now,
                ),
            )
            self._write_counts(conn, game, number, entry)
        return number

    def replace_round(
        self,
        game_id: int,
        number: int,
        entry: RoundEntry,
        warnings: list[str],
        evidence: Mapping[str, Any] | None = None,
    ) -> None:
        """Replace the counts and caller of round ``number``, all in one transaction.

        Its evidence stays unless ``evidence`` is given (``round recount`` replaces it).
        """
        with self.transaction() as conn:
            game = self.game(game_id)
            game.round(number)  # exists?
            conn.execute(
                "UPDATE rounds SET caller_seat = ?, warnings = ?, updated_at = ? "
                "WHERE game_id = ? AND number = ?",
                (_seat_of(game, entry.caller), json.dumps(warnings), _now(), game_id, number),
            )
            if evidence is not None:
                conn.execute(
                    "UPDATE rounds SET evidence = ? WHERE game_id = ? AND number = ?",
                    (json.dumps(evidence), game_id, number),
                )
            conn.execute(
                "DELETE FROM round_counts WHERE game_id = ? AND round_number = ?",
                (game_id, number),
            )
            self._write_counts(conn, game, number, entry)

    def remove_last_round(self, game_id: int) -> int:
        """Delete the game's last round; return its number."""
        with self.transaction() as conn:
            game = self.game(game_id)
            if not game.rounds:
                raise CardtallyError(f"Game {game_id} has no rounds to undo.")
            number = len(game.rounds)
            conn.execute("DELETE FROM rounds WHERE game_id = ? AND number = ?", (game_id, number))
        return number

    @staticmethod
    def _write_counts(conn: sqlite3.Connection, game: Game, number: int, entry: RoundEntry) -> None:
        if set(entry.players) != set(game.players):
            raise ValueError(f"Round players {entry.players} != game players {game.players}")
        conn.executemany(
            "INSERT INTO round_counts (game_id, round_number, seat, center_cards, pile_cards) "
            "VALUES (?, ?, ?, ?, ?)",
            [
                (game.id, number, _seat_of(game, c.player), c.center_cards, c.pile_cards)
                for c in entry.counts
            ],
        )


class _HandEdited(Exception):
    """A ledger value no cardtally wrote (its text says which); :meth:`Ledger.game` words it."""


def _json_column(text: Any, number: int, column: str, kind: type) -> Any:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        value = None
    if not isinstance(value, kind):
        raise _HandEdited(f"round {number}'s {column} column is not the JSON cardtally writes")
    return value


def _seat_of(game: Game, player: str | None) -> int | None:
    return None if player is None else game.players.index(player)


def _not_a_ledger(path: Path, reason: str) -> CardtallyError:
    return CardtallyError(
        f"The game ledger {path} cannot be used ({reason}). Move it aside "
        f"(e.g. mv '{path}' '{path}.broken') and run the command again to start a new ledger."
    )


def _check_header(path: Path) -> None:
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise CardtallyError(f"Cannot read the game ledger {path}: {exc.strerror}.") from None
    if header and header != SQLITE_HEADER:
        raise _not_a_ledger(path, "not an SQLite database")


@contextmanager
def _translate_errors(path: Path) -> Iterator[None]:
    """sqlite3 errors -> :class:`CardtallyError` with a message the user can act on."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        text = str(exc)
        if "locked" in text or "busy" in text:
            raise CardtallyError(BUSY_MESSAGE) from None
        if "disk is full" in text or "disk I/O error" in text:
            # A failed write is rolled back (the journal restores the file on the next open).
            raise CardtallyError(
                f"Cannot write the game ledger {path}: {text} (is the disk full?). Nothing was "
                "changed; free some space and try again."
            ) from None
        raise CardtallyError(f"Cannot use the game ledger {path}: {text}.") from None
    except sqlite3.DatabaseError as exc:
        raise _not_a_ledger(path, f"damaged: {exc}") from None
