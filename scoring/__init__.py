"""Game rules, rounds and the game ledger (SQLite). Knows nothing about images."""
