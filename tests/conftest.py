"""Hypothesis profiles for the whole suite.

``default`` is derandomized: the examples come from a fixed seed, so the suite gives the same verdict on every
machine and every run (CI lands or does not land on the code, not on luck). ``explore`` draws fresh examples on
every run, to hunt for new counterexamples; pin every one it finds with ``@example`` next to its test:

    HYPOTHESIS_PROFILE=explore python -m pytest tests/test_properties.py tests/test_knowledge.py
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("default", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
