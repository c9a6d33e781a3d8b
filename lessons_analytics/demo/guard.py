"""Where a demo may be built: an empty (or absent) folder, or an earlier demo build.

A build rewrites its folder's ``claude/``, ``codex/``, ``repos/`` and warehouse, so a
folder holding anything else (someone's ``repos/<project>/LESSONS``) is refused, and
nothing in it is touched. A build leaves ``MARKER`` at its root; only a folder holding
that file counts as an earlier build.
"""

from __future__ import annotations

from pathlib import Path

from lessons_analytics.errors import LessonsAnalyticsError

__all__ = ["MARKER", "DemoTargetRefused", "check_demo_target", "mark_demo_build"]

MARKER = ".lessons-analytics-demo"
_MARKER_TEXT = "A lessons-analytics demo build: `demo --out` may rebuild this folder.\n"


class DemoTargetRefused(LessonsAnalyticsError):
    """The folder is neither empty nor an earlier demo build."""


def check_demo_target(root: Path) -> None:
    """Raise ``DemoTargetRefused`` unless ``root`` is absent, empty, or an earlier build."""
    if root.is_symlink() or (root.exists() and not root.is_dir()):
        raise DemoTargetRefused(f"{root}: not a folder; the demo needs an empty folder")
    if not root.exists():
        return
    marker = root / MARKER
    if marker.is_file() and not marker.is_symlink():
        return
    if any(root.iterdir()):
        raise DemoTargetRefused(
            f"{root}: not empty and not an earlier demo build (no {MARKER}); "
            "the demo rebuilds its folder, so give an empty or new one"
        )


def mark_demo_build(root: Path) -> None:
    (root / MARKER).write_text(_MARKER_TEXT, encoding="utf-8")
