"""Views: terminal and HTML renderings of race states. They read the engine's state; they never change it."""


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless one: "1 lap", "2 laps", "0 rounds"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


__all__ = ["counted"]
