"""Optional modules of the rules (MODULES.md): each a small file beside the base step machine.

``garage``   the Garage: its options, the Garage deck, the draft and the card-symbol rules (# 18).
``legends``  Legend cars: the Legend deck and a Legend's move (# 19).
``weather``  weather tiles and road-condition tokens: start effects and the per-space / per-corner effect
             tables built once per race (# 20).

Pure like the rest of the engine: no I/O; the data (cards, tiles, tokens) comes embedded in ``race_started``.
"""
