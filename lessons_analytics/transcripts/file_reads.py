"""Which calls are file reads: the Read tool, and shell commands parsed by ``shell.reads``.

Each read becomes a ``raw_file_reads`` row with the range the call asked for; the delivered
range is cut later (``sql/intermediate``) by what the paired result shows.
"""

from __future__ import annotations

import ntpath
import os
import re
from typing import Any

from lessons_analytics.schema import Batch
from lessons_analytics.shell.reads import is_windows, parse_reads, windows_path
from lessons_analytics.transcripts import JsonObject

SHELL_TOOLS = frozenset(
    {"Bash", "exec_command", "shell_command", "shell", "local_shell_call", "container.exec"}
)
READ_TOOL_DEFAULT_LIMIT = 2000
_AGENT_TAIL = re.compile(r"agentId: ([0-9a-zA-Z]+)")


def agent_id_tail(text: str) -> str | None:
    """The ``agentId: <id>`` tail of a 2.1.x Task/Agent result."""
    match = _AGENT_TAIL.search(text[-2000:])
    return match.group(1) if match else None


def record_reads(
    batch: Batch,
    file_id: int,
    tool_use_id: str,
    tool_name: object,
    tool_input: JsonObject,
    cwd: object,
    command: str | None = None,
) -> list[Any] | None:
    """Add the reads of one call; returns ``[result_style, is_index_read]`` or None."""
    workdir = cwd if isinstance(cwd, str) else None
    if tool_name == "Read":
        return _read_tool(batch, file_id, tool_use_id, tool_input, workdir)
    if tool_name in SHELL_TOOLS:
        if command is None:
            value = tool_input.get("command")
            command = value if isinstance(value, str) else None
        if command:
            return _shell(batch, file_id, tool_use_id, command, workdir)
    return None


def _read_tool(
    batch: Batch, file_id: int, tool_use_id: str, tool_input: JsonObject, cwd: str | None
) -> list[Any] | None:
    path = tool_input.get("file_path")
    if not isinstance(path, str) or not path:
        return None
    if is_windows(path) or (is_windows(cwd) and not path.startswith("/")):
        path = windows_path(ntpath.join(cwd or "", path))
    elif not os.path.isabs(path) and cwd:
        path = os.path.join(cwd, path)
    offset = _positive(tool_input.get("offset"))
    explicit_limit = _positive(tool_input.get("limit"))
    limit = explicit_limit or READ_TOOL_DEFAULT_LIMIT
    start = offset or 1
    batch.file_reads.add(
        {
            "file_id": file_id,
            "tool_use_id": tool_use_id,
            "read_idx": 0,
            "path": path if is_windows(path) else os.path.normpath(path),
            "method": "read-tool",
            "range_start": start,
            "range_end": start + limit - 1,
            # a prefix read names its N: the Read tool with a limit and no offset
            "is_prefix": start == 1 and explicit_limit is not None,
            "is_numbered": True,
            "n_files": 1,
        }
    )
    return ["numbered", _is_index(path)]


def _shell(
    batch: Batch, file_id: int, tool_use_id: str, command: str, cwd: str | None
) -> list[Any] | None:
    reads = parse_reads(command, cwd)
    if not reads:
        return None
    table = batch.file_reads
    for idx, read in enumerate(reads):
        table.add(
            {
                "file_id": file_id,
                "tool_use_id": tool_use_id,
                "read_idx": idx,
                "path": read.path,
                "method": read.method,
                "range_start": read.start,
                "range_end": read.end,
                "tail_n": read.tail_n,
                "head_n": read.head_n,
                "is_prefix": read.is_prefix,
                "is_numbered": read.numbered,
                "grep_pattern": read.grep_pattern,
                "grep_flags": read.grep_flags,
                "n_files": read.n_files,
            }
        )
    first = reads[0]
    style = ("grep" if first.method == "grep" else "numbered") if first.numbered else "plain"
    return [style, any(_is_index(read.path) for read in reads)]


def _is_index(path: str) -> bool:
    # a Windows path is spelt in lower case (shell.reads.windows_path)
    return path.endswith("INDEX.md") or (is_windows(path) and path.endswith("/index.md"))


def _positive(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = int(value)
    return number if number > 0 else None
