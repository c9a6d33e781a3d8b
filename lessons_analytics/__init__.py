"""lessons-analytics: measure whether the lessons given to AI coding agents actually work."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
