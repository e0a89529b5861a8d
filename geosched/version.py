"""The package version: the bottom floor, imported by every module that records it (no upward import)."""

__version__ = "0.2.0"
