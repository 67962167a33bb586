"""The key that seals heatlog's caches (snapshots, race summaries, stats facts), kept outside every database.

A cache row is served only when the log vouches for it (the chain it was made from is still the log's) and when
its seal holds. An unkeyed seal (a SHA-256 of values in the file) can be recomputed by anyone who edits the file,
so a forged cache row would be served as truth: the seal is an HMAC under a key that is not in the file, kept
in ``$XDG_DATA_HOME/heatlog/cache.key`` (``~/.local/share/heatlog/cache.key``), made on first use (32 random
bytes, readable by the user alone). Rows sealed elsewhere (a database copied from another machine) do not
verify here: they are recomputed, as any stale cache row is. Where no key can be kept (no writable home), the
process uses a key of its own: its caches are then good for that process only, never wrong.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from ..formats.hashing import hmac_sha256, same_text

__all__ = ["cache_key", "key_path", "same_text", "seal"]


def key_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "heatlog" / "cache.key"


@lru_cache(maxsize=1)
def cache_key() -> bytes:
    """This user's cache key (made on first use); a key of this process alone if none can be kept."""
    path = key_path()
    try:
        data = path.read_bytes()
        if len(data) == 32:
            return data
    except OSError:
        pass
    import secrets  # only when no key is kept yet: it loads random and base64 (replay's start-up, issue 32)

    fresh = secrets.token_bytes(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(fresh)
        return fresh
    except FileExistsError:  # another process made it first (or a damaged one is there: left alone)
        try:
            data = path.read_bytes()
        except OSError:
            return fresh
        return data if len(data) == 32 else fresh
    except OSError:
        return fresh


def seal(*parts: str | bytes) -> str:
    """HMAC-SHA256 under :func:`cache_key` of ``parts`` (each length-prefixed: no two lists of parts collide).
    Computed without OpenSSL (heatlog.formats.hashing.hmac_sha256: the digest ``hmac`` gives); compare seals with
    :func:`same_text`."""
    data: list[bytes] = []
    for part in parts:
        raw = part.encode() if isinstance(part, str) else part
        data.append(len(raw).to_bytes(8, "big"))
        data.append(raw)
    return hmac_sha256(cache_key(), data)
