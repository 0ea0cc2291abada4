"""The ledger's SQLite schema and its version (``PRAGMA user_version``).

To change the schema: bump :data:`SCHEMA_VERSION` and add a step to :data:`MIGRATIONS` that takes
a database at the previous version to the new one (it runs inside the opening transaction).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

SCHEMA_VERSION = 1

SCHEMA_V1 = """
CREATE TABLE games (
    id                     INTEGER PRIMARY KEY,
    created_at             TEXT    NOT NULL,
    rules                  TEXT    NOT NULL,
    deck_size              INTEGER NOT NULL,
    pile_size              INTEGER NOT NULL,
    points_per_center_card INTEGER NOT NULL,
    penalty_per_card       INTEGER NOT NULL,
    caller_bonus           INTEGER NOT NULL,
    target                 INTEGER NOT NULL,
    target_kind            TEXT    NOT NULL CHECK (target_kind IN ('points', 'round-wins')),
    max_rounds             INTEGER,
    min_players            INTEGER NOT NULL,
    max_players            INTEGER NOT NULL
);
CREATE TABLE players (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seat    INTEGER NOT NULL,
    name    TEXT    NOT NULL,
    deck    TEXT    NOT NULL,
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, name),
    UNIQUE (game_id, deck)
);
CREATE TABLE rounds (
    game_id     INTEGER NOT NULL REFERENCES games (id),
    number      INTEGER NOT NULL CHECK (number >= 1),
    caller_seat INTEGER,
    warnings    TEXT    NOT NULL DEFAULT '[]',  -- JSON list of physical-check messages
    evidence    TEXT,                           -- JSON from photo scoring (photos, hashes, ...)
    created_at  TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL,
    PRIMARY KEY (game_id, number),
    FOREIGN KEY (game_id, caller_seat) REFERENCES players (game_id, seat)
);
CREATE TABLE round_counts (
    game_id      INTEGER NOT NULL,
    round_number INTEGER NOT NULL,
    seat         INTEGER NOT NULL,
    center_cards INTEGER NOT NULL CHECK (center_cards >= 0),
    pile_cards   INTEGER NOT NULL CHECK (pile_cards >= 0),
    PRIMARY KEY (game_id, round_number, seat),
    FOREIGN KEY (game_id, round_number) REFERENCES rounds (game_id, number) ON DELETE CASCADE,
    FOREIGN KEY (game_id, seat) REFERENCES players (game_id, seat)
);
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

#: version -> step that takes a database at ``version - 1`` to ``version``.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {}


def create_schema(conn: sqlite3.Connection) -> None:
    """Create the current schema in an empty database (inside the caller's transaction)."""
    for statement in SCHEMA_V1.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def migrate(conn: sqlite3.Connection, from_version: int) -> None:
    """Bring a database at ``from_version`` up to :data:`SCHEMA_VERSION` (inside a transaction)."""
    for version in range(from_version + 1, SCHEMA_VERSION + 1):
        MIGRATIONS[version](conn)
        conn.execute(f"PRAGMA user_version = {version}")
