"""The race log over the store: the door and the projector (racelog), the list of races (racelist), the
set-up event (race_start), who played a race (played_by) and a season's state as the door needs it
(season_view). Imports the engine, the formats and the store only (tests/test_layers.py).
"""
