"""Write Claude Code and Codex transcripts in their real on-disk shapes, for tests.

    s = ClaudeSession(projects / "-proj", session_id, cwd=str(project), version="2.0.42")
    s.prompt("2026-11-03T10:00:00Z", "fix the board")
    call = s.bash("2026-11-03T10:00:05Z", "head -40 LESSONS/INDEX.md")
    s.result(call, "2026-11-03T10:00:06Z", text)
    s.write()

Lines carry the envelope of trace-formats.md §1.2 (uuid, parentUuid chain, sessionId,
timestamp, cwd, version); tool results pair with their calls by tool_use id.
"""

from __future__ import annotations

import itertools
import json
import uuid as uuidlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_counter = itertools.count(1)


def reset_ids() -> None:
    """Start the id sequence again, so a scenario gets the same ids in any test order."""
    global _counter
    _counter = itertools.count(1)


def new_id(prefix: str = "") -> str:
    n = next(_counter)
    return f"{prefix}{uuidlib.UUID(int=n + (7 << 100))}"


def numbered(text: str, start: int = 1, sep: str = "→") -> str:
    """Read tool output: right-aligned line numbers and a separator (→ or tab)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return "\n".join(f"{n:>6}{sep}{line}" for n, line in enumerate(lines, start))


@dataclass
class ClaudeSession:
    folder: Path
    session_id: str
    cwd: str
    version: str = "2.0.42"
    agent_id: str | None = None
    lines: list[dict[str, Any]] = field(default_factory=list)
    _last: str | None = None

    def _line(self, kind: str, ts: str, **extra: Any) -> dict[str, Any]:
        line: dict[str, Any] = {
            "parentUuid": self._last,
            "isSidechain": self.agent_id is not None,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": "main",
            "type": kind,
            "uuid": new_id(),
            "timestamp": ts,
        }
        if self.agent_id is not None:
            line["agentId"] = self.agent_id
        line.update(extra)
        self.lines.append(line)
        self._last = line["uuid"]
        return line

    def prompt(self, ts: str, text: str, **extra: Any) -> dict[str, Any]:
        return self._line("user", ts, message={"role": "user", "content": text}, **extra)

    def tool(self, ts: str, name: str, tool_input: dict[str, Any]) -> str:
        call_id = "toolu_01" + new_id().replace("-", "")[-22:]
        self._line(
            "assistant",
            ts,
            requestId="req_" + call_id[6:],
            message={
                "id": "msg_" + call_id[6:],
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-4-20250514",
                "content": [{"type": "tool_use", "id": call_id, "name": name, "input": tool_input}],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        )
        return call_id

    def bash(self, ts: str, command: str) -> str:
        return self.tool(ts, "Bash", {"command": command, "description": "run"})

    def read(self, ts: str, path: str, offset: int | None = None, limit: int | None = None) -> str:
        args: dict[str, Any] = {"file_path": path}
        if offset is not None:
            args["offset"] = offset
        if limit is not None:
            args["limit"] = limit
        return self.tool(ts, "Read", args)

    def result(
        self, call_id: str, ts: str, text: str, *, is_error: bool = False, tur: Any = None
    ) -> dict[str, Any]:
        block: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result", "content": text}
        if is_error:
            block["is_error"] = True
        extra: dict[str, Any] = {}
        if tur is not None:
            extra["toolUseResult"] = tur
        return self._line("user", ts, message={"role": "user", "content": [block]}, **extra)

    def path(self) -> Path:
        if self.agent_id is None:
            return self.folder / f"{self.session_id}.jsonl"
        return self.folder / self.session_id / "subagents" / f"agent-{self.agent_id}.jsonl"

    def write(self, replay: list[dict[str, Any]] | None = None) -> Path:
        """Write the file; ``replay`` lines (another session's) go first, as a resume does."""
        target = self.path()
        target.parent.mkdir(parents=True, exist_ok=True)
        body = [{**line, "sessionId": self.session_id} for line in (replay or [])] + self.lines
        target.write_text("".join(json.dumps(line) + "\n" for line in body), encoding="utf-8")
        return target


@dataclass
class CodexRollout:
    """A wrapped-era Codex rollout (`{"timestamp","type","payload"}` lines)."""

    folder: Path
    session_id: str
    cwd: str
    started: str
    lines: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._add(self.started, "session_meta", {
            "id": self.session_id, "timestamp": self.started, "cwd": self.cwd,
            "originator": "codex_cli_rs", "cli_version": "0.104.0", "source": "cli",
        })  # fmt: skip
        self._add(self.started, "turn_context", {"cwd": self.cwd, "model": "gpt-5.2-codex"})

    def _add(self, ts: str, kind: str, payload: dict[str, Any]) -> None:
        self.lines.append({"timestamp": ts, "type": kind, "payload": payload})

    def user(self, ts: str, text: str) -> None:
        self._add(
            ts,
            "response_item",
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
        )
        self._add(ts, "event_msg", {"type": "user_message", "message": text})

    def exec(self, ts: str, cmd: str, out_ts: str, output: str, wall: float, code: int = 0) -> str:
        call_id = "call_" + new_id().replace("-", "")[-20:]
        args = json.dumps({"cmd": cmd, "workdir": self.cwd})
        self._add(
            ts,
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": args,
                "call_id": call_id,
            },
        )
        text = (
            f"Chunk ID: 1a2b3c\nWall time: {wall:.4f} seconds\nProcess exited with code {code}\n"
            f"Original token count: {len(output) // 4}\nOutput:\n{output}"
        )
        self._add(
            out_ts,
            "response_item",
            {"type": "function_call_output", "call_id": call_id, "output": text},
        )
        return call_id

    def shell_command(self, ts: str, command: str, out_ts: str, output: str, wall: float) -> str:
        call_id = "call_" + new_id().replace("-", "")[-20:]
        args = json.dumps({"command": command, "workdir": self.cwd})
        self._add(
            ts,
            "response_item",
            {
                "type": "function_call",
                "name": "shell_command",
                "arguments": args,
                "call_id": call_id,
            },
        )
        text = f"Exit code: 0\nWall time: {wall} seconds\nOutput:\n{output}"
        self._add(
            out_ts,
            "response_item",
            {"type": "function_call_output", "call_id": call_id, "output": text},
        )
        return call_id

    def write(self) -> Path:
        day = self.started[:10].replace("-", "/")
        stamp = self.started[:19].replace(":", "-")
        target = self.folder / day / f"rollout-{stamp}-{self.session_id}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(json.dumps(line) + "\n" for line in self.lines), encoding="utf-8")
        return target
