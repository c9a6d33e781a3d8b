"""Claude Code transcripts (every era of trace-formats.md §1) into raw rows.

One call parses the new complete lines of one file. The per-file ``context`` dict survives
between runs (it is stored with the file's ingest state) so that a grown file continues where
it stopped: inline sidechain roots, and tool calls still waiting for their result.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from lessons_analytics.schema import Batch, EventRow, ToolResultRow
from lessons_analytics.transcripts import JsonObject, file_reads
from lessons_analytics.transcripts.tool_results import (
    add_mentions,
    block_text,
    input_json,
    summarize,
)

BOOKKEEPING = {
    "summary", "file-history-snapshot", "queue-operation", "last-prompt", "permission-mode",
    "ai-title", "custom-title", "agent-name", "agent-color", "agent-setting", "mode", "pr-link",
    "frame-link", "tag",
}  # fmt: skip
_TEXT_KEEP = 4000
_HARNESS_KEEP = 1000  # hook payloads: ids are taken from the whole text, only a glance is kept
_INTERRUPT = "[Request interrupted by user"
_REJECTED = "The user doesn't want to proceed with this tool use"


def prompt_hash(prompt: object) -> str | None:
    if not isinstance(prompt, str) or not prompt:
        return None
    # md5 of the first 200 characters, so SQL can compute the same key from a message text
    return hashlib.md5(prompt.strip()[:200].encode("utf-8", "replace")).hexdigest()


class ClaudeFileParser:
    """Parses lines of one Claude Code file into ``batch``."""

    def __init__(self, batch: Batch, file_id: int, agent_hint: str | None, context: JsonObject):
        self.batch = batch
        self.file_id = file_id
        self.agent_hint = agent_hint
        self.sidechain_roots: dict[str, str] = context.setdefault("sidechain_roots", {})
        self.pending: dict[str, list[Any]] = context.setdefault("pending", {})

    def line(self, line_no: int, record: JsonObject) -> None:
        kind = record.get("type")
        if not isinstance(kind, str):
            kind = "<none>"
        env = self._envelope(line_no, record, kind)
        if kind == "assistant":
            self._assistant(env, record)
        elif kind == "user":
            self._user(env, record)
        elif kind in ("system", "attachment", "progress"):
            self._harness(env, record, kind)
        elif kind not in BOOKKEEPING:
            env["is_known_type"] = False
            env["text"] = orjson.dumps(record)[:_TEXT_KEEP].decode("utf-8", "replace")
        self.batch.events.add(env)

    def _envelope(self, line_no: int, record: JsonObject, kind: str) -> EventRow:
        get = record.get  # some twenty keys read per line
        uuid = get("uuid")
        is_sidechain = bool(get("isSidechain"))
        agent_id = get("agentId") or self.agent_hint
        if is_sidechain and agent_id is None and isinstance(uuid, str):
            agent_id = self._sidechain_agent(uuid, get("parentUuid"))
        ts = get("timestamp")
        if ts is None and kind == "file-history-snapshot":
            snapshot = get("snapshot")
            ts = snapshot.get("timestamp") if isinstance(snapshot, dict) else None
        return {
            "file_id": self.file_id,
            "line_no": line_no,
            "runtime": "claude",
            "line_type": kind,
            "subtype": get("subtype"),
            "is_known_type": True,
            "uuid": uuid,
            "parent_uuid": get("parentUuid"),
            "session_id": get("sessionId"),
            "agent_id": agent_id,
            "is_sidechain": is_sidechain,
            "ts": ts,  # a number or a non-ISO string is a wrong type: the line is rejected
            "cwd": get("cwd"),
            "version": get("version"),
            "request_id": get("requestId"),
            "is_meta": bool(get("isMeta")),
            "is_api_error": bool(get("isApiErrorMessage")),
        }

    def _sidechain_agent(self, uuid: str, parent: object) -> str:
        # Inline sidechains (<= 1.0.x) have no agentId: each chain rooted at a null parent is
        # one subagent run, named after its root line.
        root = self.sidechain_roots.get(parent) if isinstance(parent, str) else None
        root = root or uuid
        self.sidechain_roots[uuid] = root
        return f"sidechain-{root}"

    def _assistant(self, env: EventRow, record: JsonObject) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            return
        env["role"] = "assistant"
        env["message_id"] = message.get("id")
        env["model"] = message.get("model")
        usage = message.get("usage")
        if isinstance(usage, dict):
            env["input_tokens"] = usage.get("input_tokens")
            env["output_tokens"] = usage.get("output_tokens")
            env["cache_creation_tokens"] = usage.get("cache_creation_input_tokens")
            env["cache_read_tokens"] = usage.get("cache_read_input_tokens")
        content = message.get("content")
        seen: set[object] = set()
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    if _repeated(block.get("id"), seen):
                        continue
                    self._tool_use(env, block)
        env["tool_uses"] = len(seen)

    def _tool_use(self, env: EventRow, block: JsonObject) -> None:
        tool_input = block.get("input")
        if not isinstance(tool_input, dict):
            tool_input = {}
        name = block.get("name")
        tool_use_id = block.get("id")
        command = tool_input.get("command") if name == "Bash" else None
        self.batch.tool_calls.add(
            {
                "file_id": self.file_id,
                "line_no": env["line_no"],
                "runtime": "claude",
                "session_id": env["session_id"],
                "agent_id": env["agent_id"],
                "uuid": env["uuid"],
                "message_id": env.get("message_id"),
                "tool_use_id": tool_use_id,
                "tool_name": name,
                "ts": env["ts"],
                "cwd": env["cwd"],
                "command": command if isinstance(command, str) else None,
                "file_path": _str(tool_input.get("file_path") or tool_input.get("notebook_path")),
                "read_offset": _int(tool_input.get("offset")) if name == "Read" else None,
                "read_limit": _int(tool_input.get("limit")) if name == "Read" else None,
                "prompt_hash": prompt_hash(tool_input.get("prompt"))
                if name in ("Task", "Agent")
                else None,
                "input_json": input_json(tool_input),
            }
        )
        if not isinstance(tool_use_id, str):
            return
        style = file_reads.record_reads(
            self.batch, self.file_id, tool_use_id, name, tool_input, env["cwd"]
        )
        if style is not None:
            self.pending[tool_use_id] = style

    def _user(self, env: EventRow, record: JsonObject) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            return
        env["role"] = "user"
        content = message.get("content")
        source = "system" if env["is_meta"] else "user"
        if isinstance(content, str):
            self._text(env, content, source)
            return
        if not isinstance(content, list):
            return
        texts = []
        seen: set[object] = set()
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                if _repeated(block.get("tool_use_id"), seen):
                    continue
                self._tool_result(env, block, record.get("toolUseResult"))
            elif block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
        env["tool_results"] = len(seen)
        if texts:
            self._text(env, "\n".join(texts), source)

    def _text(self, env: EventRow, text: str, source: str) -> None:
        env["text"] = text[:_TEXT_KEEP]
        self._mentions(env, text, source, None)

    def _mentions(self, env: EventRow, text: str, source: str, tool_use_id: str | None) -> None:
        add_mentions(self.batch, env, text, source, tool_use_id)

    def _tool_result(self, env: EventRow, block: JsonObject, tur: object) -> None:
        tool_use_id = _str(block.get("tool_use_id"))
        text = block_text(block.get("content"))
        read = self.pending.pop(tool_use_id, None) if tool_use_id else None
        style = read[0] if read else None
        summary = summarize(text, style)
        row: ToolResultRow = {
            "file_id": self.file_id,
            "line_no": env["line_no"],
            "runtime": "claude",
            "session_id": env["session_id"],
            "agent_id": env["agent_id"],
            "uuid": env["uuid"],
            "tool_use_id": tool_use_id,
            "ts": env["ts"],
            "is_error": bool(block.get("is_error")),
            "is_interrupt": _INTERRUPT in text[:200],
            "is_rejected": _REJECTED in text[:300],
        }
        row.update(summary.columns())
        if isinstance(tur, dict):
            _enrich(row, tur)
        if row.get("spawned_agent_id") is None and "agentId: " in text:
            row["spawned_agent_id"] = file_reads.agent_id_tail(text)
        self.batch.tool_results.add(row)
        if read and read[1]:
            self.batch.read_texts.add(
                {"file_id": self.file_id, "tool_use_id": tool_use_id, "text": text}
            )
        else:
            self._mentions(env, text, "tool_result", tool_use_id)

    def _harness(self, env: EventRow, record: JsonObject, kind: str) -> None:
        if kind == "system":
            content = record.get("content")
            text = content if isinstance(content, str) else ""
            env["text"] = text[:_TEXT_KEEP] or None
            self._mentions(env, text, "system", None)
            return
        payload = record.get("attachment") if kind == "attachment" else record.get("data")
        if not isinstance(payload, dict):
            return
        if kind == "progress" and payload.get("type") == "agent_progress":
            return  # a streamed copy of a subagent's own transcript, which is loaded from its file
        text = orjson.dumps(payload).decode("utf-8", "replace")
        env["subtype"] = env["subtype"] or _str(payload.get("type"))
        env["text"] = text[:_HARNESS_KEEP]
        self._mentions(env, text, "hook", None)


def _enrich(row: ToolResultRow, tur: JsonObject) -> None:
    agent_id = tur.get("agentId")
    if isinstance(agent_id, str):
        row["spawned_agent_id"] = agent_id
    file_info = tur.get("file")
    if isinstance(file_info, dict):
        row["tur_start_line"] = _int(file_info.get("startLine"))
        row["tur_num_lines"] = _int(file_info.get("numLines"))
        row["tur_total_lines"] = _int(file_info.get("totalLines"))
    if tur.get("interrupted") is True:
        row["is_interrupt"] = True
    duration = tur.get("totalDurationMs") or tur.get("durationMs")
    if isinstance(duration, int | float):
        row["duration_s"] = duration / 1000.0


def parse_meta(batch: Batch, file_id: int, path: str, data: bytes, session_id: str | None) -> None:
    """A 2.1.x ``agent-<id>.meta.json`` sidecar; raises ValueError when it is not an object."""
    meta = orjson.loads(data)
    if not isinstance(meta, dict):
        raise ValueError("meta.json is not a JSON object")
    name = path.rsplit("/", 1)[-1]
    agent_id = name.removeprefix("agent-").removesuffix(".meta.json")
    batch.subagent_meta.add(
        {
            "file_id": file_id,
            "path": path,
            "session_id": session_id,
            "agent_id": agent_id,
            "agent_type": _str(meta.get("agentType")),
            "description": _str(meta.get("description")),
            "tool_use_id": _str(meta.get("toolUseId")),
        }
    )


def _repeated(block_id: object, seen: set[object]) -> bool:
    """True for a second block with the same id in one line (kept once, so a call has one
    row per line and the de-duplication in SQL has a total order); blocks without a string
    id are each kept."""
    if not isinstance(block_id, str):
        seen.add(object())
        return False
    if block_id in seen:
        return True
    seen.add(block_id)
    return False


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None
