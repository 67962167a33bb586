"""heatlog: an event-sourced race logger and replay tool for Heat: Pedal to the Metal."""

__version__ = "0.1.0"
RULES_VERSION = "1"
