"""Optional modules of the rules (MODULES.md), each a folder registered as one unit (``engine/module.py``,
``Module``): its ``__init__`` holds its descriptor ``MODULE`` (light: its hooks import the rest at their first
call), found by ``module.discover()`` when a race or a reader first needs a module.

``garage/``        the Garage: its options, the Garage deck, the draft and the card-symbol rules (# 18).
``legends/``       Legend cars: the Legend deck, a Legend's move and turn (# 19).
``weather/``       weather tiles and road-condition tokens: start effects and the per-space / per-corner effect
                   tables built once per race, and their set-up events (# 20).
``championship/``  a season race's event card, press corners and sponsorship cards (# 21).
``rain/``          heatlog's own example module, not a rule of Heat (a new module lands as such a folder, its
                   data file and its schemas).
``circuits.py``    the circuits' rules every race reads (chicanes, flooded spaces, # 22): not an optional module.

Pure like the rest of the engine: no I/O; the data (cards, tiles, tokens, skies) comes embedded in ``race_started``.
"""
