"""The recorder's words for the Garage (# 18.5), kept where tests and the season's CLI read them: the draft's
questions, card names typed at the table and what each draft event says are the Garage module's own
(``engine/modules/garage/recorder.py`` and ``words.py``, asked through its descriptor's notation, issue 26);
this file re-exports them and holds nothing of its own.
"""

from __future__ import annotations

from ..engine.module import cards_held as cards_held
from ..engine.modules.garage.recorder import draft_event as draft_event
from ..engine.modules.garage.recorder import draft_events as draft_events
from ..engine.modules.garage.recorder import draft_prompt as draft_prompt
from ..engine.modules.garage.recorder import named_card as named_card
from ..engine.modules.garage.recorder import parse_garage_cards as parse_garage_cards
from ..engine.modules.garage.words import card_label as card_label
from ..engine.modules.garage.words import card_words as card_words
from ..engine.modules.garage.words import says as says
