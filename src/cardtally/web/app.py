"""The web page of ``cardtally serve``: a Starlette app over one :class:`~.table.Table`.

Every request but the page's static files must carry the session token (``?token=...``, as in
the printed URL): only the people at the table can see or post rounds. Photos come as the raw
body of a POST (the page sends the file the phone's camera gave), limited in size and type
before the project's loader decodes them. The table's work (counting, saving) runs in a worker
thread, one request at a time, so the event loop stays free and the ledger has one writer.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import CardtallyError
from ..rounds.leftovers import PHOTOS
from ..scoring.rules import DEFAULT_RULES
from .table import SETS, Table

#: The largest photo the page takes (a 12 MP phone JPEG is 3-8 MB; a 48 MP one ~ 20 MB).
MAX_PHOTO_BYTES = 25 * 1024 * 1024
STATIC_PACKAGE = ("cardtally.web", "static")
#: The house rules a new game may change (``game new``'s options of the same names).
RULE_OVERRIDES = ("target", "rounds", "penalty", "bonus", "pile_size", "deck_size")


class TokenGate:
    """403 for any request (but the static files) without the session token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith("/static/"):
            given = QueryParams(scope.get("query_string", b"")).get("token", "")
            if not secrets.compare_digest(given.encode(), self.token):
                response = error_response(
                    "Forbidden: open the address cardtally serve printed (with its token).", 403
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def error_response(message: str, status: int) -> JSONResponse:
    """An error the page shows as it is."""
    return JSONResponse({"error": message}, status_code=status)


def create_app(token: str, table: Table | None = None) -> ASGIApp:
    """The page's app; every request needs ``token``."""
    table = table or Table()

    async def locked(work: Callable[..., Any], *args: Any) -> Any:
        def run() -> Any:
            with table.lock:
                return work(*args)

        return await run_in_threadpool(run)

    async def state_after(work: Callable[..., Any], *args: Any) -> JSONResponse:
        def run() -> dict[str, Any]:
            with table.lock:
                try:
                    done = work(*args)
                finally:
                    # Even refused work may have changed the round (e.g. opened it).
                    table.changes += 1
                state = table.state()
            return state if done is None else {"done": done, **state}

        return JSONResponse(await run_in_threadpool(run))

    async def page(request: Request) -> Response:
        html = resources.files(STATIC_PACKAGE[0]).joinpath(STATIC_PACKAGE[1], "index.html")
        return HTMLResponse(html.read_text(encoding="utf-8"),
                            headers={"Cache-Control": "no-store"})

    async def state(request: Request) -> JSONResponse:
        return JSONResponse(await locked(table.state))

    async def version(request: Request) -> Response:
        # Polled every few seconds by every phone: no lock (a photo may be being counted),
        # and a 304 where the phone already has this version.
        tag = f'"{await run_in_threadpool(table.version)}"'
        if request.headers.get("if-none-match") == tag:
            return Response(status_code=304, headers={"ETag": tag})
        return JSONResponse({"version": tag.strip('"')},
                            headers={"ETag": tag, "Cache-Control": "no-cache"})

    async def photo(request: Request) -> Response:
        label = request.query_params.get("set", "")
        if label not in SETS:
            return error_response(f"Unknown photo set {label!r}: give centre or leftover.", 400)
        data, content_type = await uploaded_photo(request)
        return await state_after(table.add_photo, label, data, content_type)

    async def calibration_photo(request: Request) -> Response:
        data, content_type = await uploaded_photo(request)
        return await state_after(table.add_calibration_photo, data, content_type)

    async def calibrate(request: Request) -> JSONResponse:
        body = await json_body(request)
        return await state_after(table.calibrate, str(body.get("deck") or "").strip(),
                                 bool(body.get("replace")))

    async def drop_calibration(request: Request) -> JSONResponse:
        return await state_after(table.calibration.drop)

    async def card(request: Request) -> JSONResponse:
        body = await json_body(request)
        number = body.get("number")
        if not isinstance(number, int) or isinstance(number, bool):
            raise CardtallyError("Say which card by its number in the review image.")
        return await state_after(table.give_card, str(body.get("set", "")),
                                 str(body.get("photo", "")), number, str(body.get("player", "")))

    async def settle(request: Request) -> JSONResponse:
        body = await json_body(request)
        caller = body.get("caller") or None
        left = body.get("left") or {}
        if not isinstance(left, dict):
            raise CardtallyError("Give the typed leftover counts as {player: count}.")
        return await state_after(table.settle, None if caller is None else str(caller),
                                 str(body.get("leftovers") or PHOTOS), left)

    async def fix(request: Request) -> JSONResponse:
        body = await json_body(request)
        return await state_after(table.fix_count, str(body.get("fix", "")))

    async def new_game(request: Request) -> JSONResponse:
        body = await json_body(request)
        players = body.get("players")
        if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
            raise CardtallyError("Give the players as a list of {player, deck}.")
        seats = [(str(p.get("player") or "").strip(), str(p.get("deck") or "").strip())
                 for p in players]
        overrides = {key: whole_number(body, key) for key in RULE_OVERRIDES}
        return await state_after(table.new_game, seats, str(body.get("rules") or DEFAULT_RULES),
                                 overrides)

    async def save(request: Request) -> JSONResponse:
        return await state_after(table.save)

    async def discard(request: Request) -> JSONResponse:
        return await state_after(table.discard)

    async def review(request: Request) -> Response:
        label = request.path_params["label"]
        path = await locked(table.review_image, label, int(request.path_params["index"]))
        return FileResponse(path, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    async def refused(request: Request, exc: Exception) -> Response:
        return error_response(str(exc), getattr(exc, "status", 400))

    routes = [
        Route("/", page),
        Route("/api/state", state),
        Route("/api/version", version),
        Route("/api/photo", photo, methods=["POST"]),
        Route("/api/card", card, methods=["POST"]),
        Route("/api/settle", settle, methods=["POST"]),
        Route("/api/fix", fix, methods=["POST"]),
        Route("/api/game", new_game, methods=["POST"]),
        Route("/api/save", save, methods=["POST"]),
        Route("/api/discard", discard, methods=["POST"]),
        Route("/api/calibration/photo", calibration_photo, methods=["POST"]),
        Route("/api/calibration/drop", drop_calibration, methods=["POST"]),
        Route("/api/calibrate", calibrate, methods=["POST"]),
        Route("/api/review/{label}/{index:int}", review),
        Mount("/static", StaticFiles(packages=[STATIC_PACKAGE]), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={CardtallyError: refused})
    return TokenGate(app, token)


class UploadRefused(CardtallyError):
    """An upload refused before it is read as a photo (its type or size); ``status``: the HTTP
    status the page gets."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


async def uploaded_photo(request: Request) -> tuple[bytes, str]:
    """The photo a POST carries as its body, and its content type; refused (415, 413) when it
    is not a photo's type or larger than :data:`MAX_PHOTO_BYTES`, before it is all read."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    # A phone's camera says image/...; a file picker may give no type at all (then the
    # browser sends octet-stream): the loader, which reads the bytes, decides.
    if not (content_type.startswith("image/") or content_type == "application/octet-stream"):
        raise UploadRefused(
            f"Only photos can be uploaded (this file is {content_type or 'of no type'}).", 415
        )
    too_big = UploadRefused(
        f"The photo is larger than {MAX_PHOTO_BYTES // (1024 * 1024)} MB; take it at a lower "
        "resolution.", 413
    )
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_PHOTO_BYTES:
        raise too_big
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_PHOTO_BYTES:
            raise too_big
        chunks.append(chunk)
    return b"".join(chunks), content_type


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object; a clear error for anything else."""
    try:
        body = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError):
        body = None
    if not isinstance(body, dict):
        raise CardtallyError("The request should be a JSON object.")
    return body


def whole_number(body: dict[str, Any], key: str) -> int | None:
    """``body[key]`` as a whole number (missing, null or "": ``None``), named as ``game new``'s
    option in the error."""
    value = body.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value.strip()):
        return int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise CardtallyError(f"--{key.replace('_', '-')} must be a whole number; got {value!r}.")
    return value


def new_token() -> str:
    """A random session token for the printed URL."""
    return secrets.token_urlsafe(16)
