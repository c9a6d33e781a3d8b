"""The shapes of a lesson base's text that several modules recognise (lesson-base.md): a
lesson id, a lesson file name, the sleep marker line. One definition each, so the base
reader, ``check``, ``lint``, ``stats --mark``, the poison scan and the transcript parsers
agree on what is a lesson and what is the marker.

Only ``re`` here: the transcript parsers import this, and they must stay quick to import.

Choices, where the spec is silent:

- A lesson id is ``L-`` and ASCII digits (``[0-9]``, not ``\\d``): the SQL models in
  ``sql/`` use ``[0-9]``, and an id written in other scripts' digits would be a lesson to
  the Python reader and none to the warehouse.
- The sleep marker is recognised case-blind, with any spacing around ``<!--``,
  ``sleep-due`` and ``:``, after a leading byte-order mark: a hand-edited or older marker
  is still the one marker (``check`` counts it, ``stats --mark`` refreshes it in place).
  A comment that merely starts with ``sleep-due`` and has no ``:`` is not a marker.
"""

from __future__ import annotations

import re

__all__ = [
    "LESSON_FILE",
    "LESSON_ID",
    "LESSON_ID_IN_TEXT",
    "LESSON_ID_PATTERN",
    "LESSONS_DIR",
    "SLEEP_MARKER",
    "is_sleep_marker",
    "is_sleep_marker_body",
]

# the folder of a lesson base
LESSONS_DIR = "LESSONS"

LESSON_ID_PATTERN = r"L-[0-9]+"
# a whole value (a front matter ``id``)
LESSON_ID = re.compile(rf"^{LESSON_ID_PATTERN}$")
# an id inside text: an INDEX.md cell, a retired line, a tool result
LESSON_ID_IN_TEXT = re.compile(rf"\b{LESSON_ID_PATTERN}\b")
# a lesson file: the id, then an optional slug (``L-0123-retest.md``); group 1 is the id
LESSON_FILE = re.compile(rf"^({LESSON_ID_PATTERN})(?![0-9])[^/]*\.md$")

SLEEP_MARKER = re.compile(r"^\ufeff?\s*<!--\s*sleep-due\s*:", re.IGNORECASE)
_MARKER_BODY = re.compile(r"^\s*sleep-due\s*:", re.IGNORECASE)


def is_sleep_marker(line: str | bytes) -> bool:
    """True for an ``INDEX.md`` line that is a sleep marker (where it stands is checked by
    ``check``); bytes are read as UTF-8, a bad byte replaced."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    return SLEEP_MARKER.match(line) is not None


def is_sleep_marker_body(body: str) -> bool:
    """True when an HTML comment's inside (between ``<!--`` and ``-->``) is the marker's."""
    return _MARKER_BODY.match(body) is not None
