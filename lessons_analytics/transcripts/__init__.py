"""The two runtimes' transcripts as rows: ``claude`` and ``codex`` parse a file's lines,
``tool_results`` summarises what a tool returned, ``file_reads`` tells which calls read a file
(the Read tool, and shell commands through ``lessons_analytics.shell``).

Every parser is a ``TranscriptParser``: ``load`` hands it one decoded JSON object at a time
and takes care of everything around it (bytes, bad JSON, rolling a failed line back)."""

from __future__ import annotations

from typing import Any, Protocol

# a decoded JSON object: its values are whatever the transcript holds, so a parser tests them
# before use and passes the ones it stores on unchanged, for the raw schema to check
JsonObject = dict[str, Any]


class TranscriptParser(Protocol):
    """Parses the lines of one transcript file, in order, into its ``Batch``.

    ``line`` may raise on a line it cannot take (``BadValue`` from the schema, or anything
    else an odd shape causes): the loader then takes that line's rows back out of every table,
    restores the file's context and counts the line as bad. It must not keep state of its own
    that a rejected line could leave half-changed, except in the file's ``context`` dict."""

    def line(self, line_no: int, record: JsonObject) -> None: ...
