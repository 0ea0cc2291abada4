"""``cardtally serve``'s web page: the phones at the table photograph, correct and save a
round through the round use case that ``score`` runs (``cardtally.rounds``).

Needs the ``serve`` extra (Starlette, uvicorn): ``pip install 'cardtally[serve]'``.
"""
