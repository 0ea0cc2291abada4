"""cardtally: score Ligretto-style card games from photos of the cards' backs."""

__version__ = "0.1.0"
