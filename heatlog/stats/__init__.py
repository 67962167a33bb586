"""Statistics: per-turn facts read off the engine's turn records, per-car and per-driver statistics, openskill
ratings, and the derived ``turns`` table (docs/stats.md)."""

from .derived import TurnsTable
from .facts import TURN_COLUMNS, CarInfo, FactCollector, RaceFacts, TurnFacts, collect, race_facts
from .summary import Career, CarStats, DriverStats, RaceStats, Rating, Tally, career, race_stats, rate

__all__ = [
    "TURN_COLUMNS",
    "CarInfo",
    "CarStats",
    "Career",
    "DriverStats",
    "FactCollector",
    "RaceFacts",
    "RaceStats",
    "Rating",
    "Tally",
    "TurnFacts",
    "TurnsTable",
    "career",
    "collect",
    "race_facts",
    "race_stats",
    "rate",
]
