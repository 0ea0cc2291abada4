"""The photo round use case: count a round's photos, keep their evidence, apply the players'
corrections, count a saved round again and edit it.

The command line (``cardtally.cli``) and any other front end (a web page) call it; it never
prints or asks anything: it returns typed results and raises
:class:`~cardtally.errors.CardtallyError` with a message for the user.
"""
