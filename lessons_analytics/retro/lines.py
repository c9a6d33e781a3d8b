"""Reading single lines of a transcript back from disk: the whole tool result behind the
warehouse's 300-character head, and an agent's words (its question, a subagent's answer)."""

from __future__ import annotations

from collections import defaultdict

import orjson

_RESULT_CHARS = 20_000


def result_texts(wanted: list[tuple[str | None, int | None]]) -> dict[tuple[str, int], str]:
    """The tool-result text of each (file, line), reading every file once; lines that cannot
    be read are left out (the caller falls back to the warehouse's head)."""
    by_file: dict[str, set[int]] = defaultdict(set)
    for path, line in wanted:
        if path and line:
            by_file[path].add(line)
    out: dict[tuple[str, int], str] = {}
    for path, lines in by_file.items():
        try:
            with open(path, "rb") as handle:
                for number, raw in enumerate(handle, start=1):
                    if number in lines:
                        text = _result_text(raw)
                        if text:
                            out[(path, number)] = text
                    if number >= max(lines):
                        break
        except OSError:
            continue
    return out


def _result_text(raw: bytes) -> str | None:
    try:
        record = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(record, dict):
        return None
    holder = record.get("message") or record.get("payload") or {}
    if not isinstance(holder, dict):
        return None
    if isinstance(holder.get("output"), str):  # Codex function_call_output
        return str(holder["output"])[:_RESULT_CHARS]
    parts: list[str] = []
    for block in holder.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            inner = block.get("content")
            if isinstance(inner, str):
                parts.append(inner)
            elif isinstance(inner, list):
                parts += [b["text"] for b in inner if isinstance(b, dict) and "text" in b]
    return "\n".join(parts)[:_RESULT_CHARS] or None


def last_assistant_text(path: str | None, line: int | None) -> str | None:
    """The text blocks of one transcript line (the subagent's final answer), if readable."""
    if not path or not line:
        return None
    try:
        with open(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if number == line:
                    record = orjson.loads(raw)
                    break
            else:
                return None
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(record, dict):
        return None
    # Claude Code: message.content; Codex: payload.content (output_text blocks)
    holder = record.get("message") or record.get("payload") or {}
    content = holder.get("content") if isinstance(holder, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            b.get("text")
            for b in content
            if isinstance(b, dict) and b.get("type") in ("text", "output_text")
        ]
        return "\n".join(p for p in parts if isinstance(p, str)) or None
    return None
