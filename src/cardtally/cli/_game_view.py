"""What the ``game``, ``round`` and ``demo`` commands print: JSON on stdout, warnings, and
text views (plain fixed-width tables that stay within 80 columns for up to about six players).
The ledger and the games' JSON objects are ``rounds.games``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import typer

from ..scoring.ledger import Game
from ..scoring.rules import RuleSet


def print_json(data: Any) -> None:
    """``data`` as indented JSON on stdout, names with accents kept as they are."""
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def echo_warnings(number: int, warnings: Sequence[str]) -> None:
    """Physical-check warnings of a saved round, on stderr."""
    for warning in warnings:
        typer.echo(f"Warning: round {number}: {warning}", err=True)
    if warnings:
        typer.echo(
            f"Round {number} is saved with the warning(s) above; correct it with: "
            f"cardtally round edit {number} --center NAME=N --leftover NAME=N",
            err=True,
        )


# -- text ----------------------------------------------------------------------------------------


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], right: Sequence[int] = ()) -> str:
    """A plain table: columns two spaces apart, columns in ``right`` right-aligned."""
    cells = [[str(h) for h in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for row in cells:
        parts = [
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def join_names(names: Sequence[str]) -> str:
    """Names as a sentence lists them: ``Anna``, ``Anna and Ben``, ``Anna, Ben and Cleo``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _amount(game: Game, player: str) -> str:
    standing = next(s for s in game.summary.standings if s.player == player)
    if game.rules.target_kind == "round-wins":
        return f"{standing.round_wins} round wins, {standing.total} points"
    return f"{standing.total} points"


def result_line(game: Game) -> str:
    """``Winner: Anna (104 points).``, ``Leaders: Anna and Bea (12 points).`` and the like."""
    summary = game.summary
    if summary.finished:
        names = summary.winners
        label = "Winner" if len(names) == 1 else "Winners (shared first place)"
    else:
        names = summary.leaders
        label = "Leader" if len(names) == 1 else "Leaders (shared first place)"
    return f"{label}: {join_names(names)} ({_amount(game, names[0])})."


def finished_message(game: Game) -> str:
    """Why a round cannot be added to the finished ``game``: who won, and how to add
    it anyway (``--force``)."""
    names = game.summary.winners
    verb = "won" if len(names) == 1 else "share first place"
    return (
        f"Game {game.id} is finished: {join_names(names)} {verb} "
        f"({_amount(game, names[0])}). Add the round anyway with --force."
    )


def rules_summary(rules: RuleSet) -> str:
    """``ligretto, first to 99 points (-2 per pile card)``."""
    house = f"-{rules.penalty_per_card} per pile card"
    if rules.caller_bonus:
        house += f", +{rules.caller_bonus} for calling out"
    return f"{rules.name}, {rules.describe_end()} ({house})"


def heading(game: Game) -> str:
    """``Game N: <rules>; K rounds played.``, the first line of a game's view."""
    played = len(game.rounds)
    rounds = "1 round played" if played == 1 else f"{played} rounds played"
    return f"Game {game.id}: {rules_summary(game.rules)}; {rounds}."


def render_round_grid(game: Game) -> str:
    """One row per round: each player's running total with the round's points."""
    marker = game.rules.target_kind == "round-wins"
    headers = ["round", *game.players, "called out"] + (["round win"] if marker else [])
    rows = []
    for stored, scored in zip(game.rounds, game.summary.rounds, strict=True):
        row: list[Any] = [stored.number]
        row += [f"{scored.totals[p]} ({scored.scores[p]:+d})" for p in game.players]
        row.append(stored.entry.caller or "-")
        if marker:
            row.append(scored.winner or "tie")
        rows.append(row)
    return table(headers, rows, right=range(1, len(game.players) + 1))


def render_standings(game: Game) -> str:
    """The standings as a table: place, player, deck, total and, where round wins
    decide the game, the round wins."""
    marker = game.rules.target_kind == "round-wins"
    headers = ["place", "player", "deck", "total"] + (["round wins"] if marker else [])
    rows = [
        [s.place, s.player, s.deck, s.total] + ([s.round_wins] if marker else [])
        for s in game.summary.standings
    ]
    return table(headers, rows, right=[0, 3, 4])


def render_game(game: Game) -> str:
    """``game show``: heading, players, round grid, warnings, standings, leader or winner."""
    lines = [
        heading(game),
        "Players: " + ", ".join(f"{s.player} ({s.deck})" for s in game.seats) + ".",
        "",
    ]
    if game.rounds:
        lines += [render_round_grid(game), ""]
        flagged = [(r.number, w) for r in game.rounds for w in r.warnings]
        if flagged:
            lines += ["Warnings:", *(f"  round {n}: {w}" for n, w in flagged), ""]
    else:
        lines += [
            "No rounds yet. Add one with: cardtally round add --center NAME=N ... "
            "--leftover NAME=N ...",
            "",
        ]
    lines += [render_standings(game), "", result_line(game)]
    if game.summary.finished:
        lines.append(f"Finished after round {game.summary.finished_after_round}.")
    return "\n".join(lines)


def render_round(game: Game, number: int, with_result: bool = True) -> str:
    """``round add/edit``: the round's counts and points, totals, and (``with_result``) the
    game's leader or winner."""
    stored = game.round(number)
    scored = game.summary.rounds[number - 1]
    rows = [
        [
            c.player,
            c.center_cards,
            c.pile_cards,
            f"{scored.scores[c.player]:+d}",
            scored.totals[c.player],
        ]
        for c in stored.entry.counts
    ]
    lines = [
        f"Round {number} of game {game.id} ({game.rules.name}):",
        table(["player", "centre", "left", "points", "total"], rows, right=[1, 2, 3, 4]),
        f"Called out: {stored.entry.caller or 'nobody'}.",
    ]
    if game.rules.target_kind == "round-wins":
        lines.append(f"Round win: {scored.winner or 'nobody (tie)'}.")
    if with_result:
        lines.append(result_line(game))
    return "\n".join(lines)
