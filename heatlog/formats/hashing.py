"""SHA-256 for the store's hash chain and snapshot seals, without loading OpenSSL.

``hashlib.sha256`` is OpenSSL's: importing ``hashlib`` loads libcrypto, 2–6 ms at every start of a command that
reads a race (issue 10: everyday commands start at once). CPython's own SHA-256, the module ``hashlib`` falls
back to when it is built without OpenSSL (``_sha256`` up to 3.11, ``_sha2`` from 3.12), loads in 0.2 ms and
gives the same digests (it is SHA-256: tests/test_fingerprint.py compares them). Per input it is a little
slower: 0.60 µs against OpenSSL's 0.45 µs for the chain's inputs of a simulated race (an event of 100–400
bytes; same run), 0.3 ms over a race of 2,000 events, less than loading OpenSSL costs; so the store keeps it
for imports and audits too. Large inputs (the rules fingerprint, 0.4 MB) keep hashlib's. Where neither module
exists (another Python), this is hashlib's.
"""

from __future__ import annotations

from typing import Any

__all__ = ["sha256"]


def _sha256() -> Any:
    import importlib

    for name in ("_sha256", "_sha2"):  # CPython 3.11; 3.12 and later
        try:
            return importlib.import_module(name).sha256
        except (ImportError, AttributeError):
            continue
    import hashlib  # another Python

    return hashlib.sha256


sha256: Any = _sha256()

