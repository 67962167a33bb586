"""SHA-256 for the store's hash chain and snapshot seals, without loading OpenSSL.

``hashlib.sha256`` is OpenSSL's: importing ``hashlib`` loads libcrypto, 2–6 ms at every start of a command that
reads a race (issue 10: everyday commands start at once). CPython's own SHA-256, the module ``hashlib`` falls
back to when it is built without OpenSSL (``_sha256`` up to 3.11, ``_sha2`` from 3.12), loads in 0.2 ms and
gives the same digests (it is SHA-256: tests/test_fingerprint.py compares them). Per input it is a little
slower: 0.60 µs against OpenSSL's 0.45 µs for the chain's inputs of a simulated race (an event of 100–400
bytes; same run), 0.3 ms over a race of 2,000 events, less than loading OpenSSL costs; so the store keeps it
for imports and audits too. Large inputs (the rules fingerprint, 0.4 MB) keep hashlib's. Where neither module
exists (another Python), this is hashlib's.

The caches' keyed seals (heatlog.store.cachekey) are HMAC-SHA256 over the same SHA-256 (:func:`hmac_sha256`,
RFC 2104 as the standard library's ``hmac`` computes it without OpenSSL: the same digests,
tests/test_cache_seal.py), and they are compared with :func:`same_text` rather than ``hmac.compare_digest``:
importing ``hmac`` loads OpenSSL too (~3 ms of every ``heatlog show``, issue 32), and ``compare_digest``
raises on a string that is not ASCII, which a seal read from a file may be.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["hmac_sha256", "same_text", "sha256"]


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


#: ``hmac``'s pads (RFC 2104): each key byte XOR 0x36 (inner) and XOR 0x5C (outer).
_INNER = bytes(b ^ 0x36 for b in range(256))
_OUTER = bytes(b ^ 0x5C for b in range(256))
_BLOCK = 64  # SHA-256's block size in bytes


def hmac_sha256(key: bytes, parts: Iterable[bytes]) -> str:
    """``hmac.new(key, b"".join(parts), hashlib.sha256).hexdigest()``, computed with :data:`sha256`."""
    if len(key) > _BLOCK:
        key = sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    inner = sha256(key.translate(_INNER))
    for part in parts:
        inner.update(part)
    outer = sha256(key.translate(_OUTER))
    outer.update(inner.digest())
    return str(outer.hexdigest())


def same_text(a: str, b: str) -> bool:
    """Whether two texts are equal, in a time that depends on their lengths only (as ``hmac.compare_digest``,
    for any text: a seal read from a file may hold any character)."""
    x, y = a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass")
    if len(x) != len(y):
        return False
    diff = 0
    for i, j in zip(x, y, strict=True):
        diff |= i ^ j
    return diff == 0
