"""Layout (version 2): the layout network's maps of a photo, and the cards they show."""
