"""The formats heatlog reads and writes, the layer above the engine: canonical JSON (jsonio), the event
and position schemas and the door's checks (schemas, validation, positions), circuits and the modules' data
files (tracks, module_data, championship, garage_cards), user text as data (usertext), counts in words
(words), hashing. Imports the engine only (tests/test_layers.py).
"""
