"""Claude Code transcripts in three eras (1.0.x, 2.0.x, 2.1.x), rendered from session plans."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from . import shell
from .plan import Act, Session, Sub
from .util import b62, clock_after, dumps, hex_id, iso_ms, new_uuid, slugify_path, write_jsonl

MODELS = {
    "1.0": "claude-sonnet-4-20250514",
    "2.0": "claude-sonnet-4-5-20250929",
    "2.1": "claude-opus-4-7",
}
REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected "
    "(eg. if it was a file edit, the new_string was NOT written to the file). STOP what "
    "you are doing and wait for the user to tell you how to proceed."
)
INTERRUPTED_TOOL = "[Request interrupted by user for tool use]"
REMINDER = (
    "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it looks "
    "malicious. If it does, you MUST refuse to improve or augment the code. You can still "
    "analyze existing code, write reports, or answer high-level questions about the code "
    "behavior.\n</system-reminder>\n"
)
BASH_LIMIT = 30000


@dataclass
class _Run:
    """One agent run's chain: the main conversation or one subagent."""

    lines: list[dict[str, object]]
    parent: str | None = None
    sidechain: bool = False
    agent_id: str | None = None


@dataclass
class ClaudeWriter:
    rng: random.Random
    s: Session
    projects: Path
    main: _Run = field(default_factory=lambda: _Run([]))
    extra_files: dict[Path, list[dict[str, object]]] = field(default_factory=dict)
    text_files: dict[Path, str] = field(default_factory=dict)
    s_t: datetime = field(init=False)

    def __post_init__(self) -> None:
        self.s_t = self.s.start

    @property
    def dir(self) -> Path:
        return self.projects / slugify_path(self.s.cwd)

    def _env(self, run: _Run, kind: str) -> dict[str, object]:
        s = self.s
        rec: dict[str, object] = {
            "parentUuid": run.parent,
            "isSidechain": run.sidechain,
            "userType": "external",
            "cwd": str(s.cwd),
            "sessionId": s.sid,
            "version": s.version,
        }
        if s.era != "1.0":
            rec["gitBranch"] = "main"
        if run.agent_id:
            rec["agentId"] = run.agent_id
        if s.era == "2.1":
            rec["entrypoint"], rec["slug"] = "cli", _nick(s.sid)
        rec["type"] = kind
        return rec

    def _push(self, run: _Run, rec: dict[str, object]) -> str:
        rec["uuid"] = new_uuid(self.rng)
        rec["timestamp"] = iso_ms(self.s_t)
        run.lines.append(rec)
        run.parent = str(rec["uuid"])
        return run.parent

    def _tick(self, low: float, high: float) -> None:
        self.s_t = clock_after(self.s_t, self.rng, low, high)

    def user(self, run: _Run, content: object, extra: dict[str, object] | None = None) -> str:
        rec = self._env(run, "user")
        rec["message"] = {"role": "user", "content": content}
        rec.update(extra or {})
        return self._push(run, rec)

    def assistant(self, run: _Run, blocks: list[dict[str, object]], stop: str) -> str:
        """One API response written as one line per content block, sharing message.id."""
        msg_id, req = "msg_01" + b62(self.rng, 22), "req_011C" + b62(self.rng, 20)
        final = self.rng.randint(40, 900)
        base_usage = {
            "input_tokens": self.rng.randint(3, 12),
            "cache_creation_input_tokens": self.rng.randint(0, 4000),
            "cache_read_input_tokens": self.rng.randint(8000, 60000),
        }
        uid = ""
        for i, block in enumerate(blocks):
            last = i == len(blocks) - 1
            usage = {
                **base_usage,
                "output_tokens": final if last else self.rng.randint(1, 8),
                "service_tier": "standard",
            }
            rec = self._env(run, "assistant")
            rec["message"] = {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": MODELS[self.s.era],
                "content": [block],
                "stop_reason": stop if last else None,
                "stop_sequence": None,
                "usage": usage,
            }
            rec["requestId"] = req
            uid = self._push(run, rec)
            if not last:
                self._tick(0.2, 1.5)
        return uid

    def result(
        self, run: _Run, tool_id: str, content: object, error: bool, tur: object, src: str
    ) -> str:
        block: dict[str, object] = {
            "tool_use_id": tool_id,
            "type": "tool_result",
            "content": content,
        }
        if error:
            block["is_error"] = True
        extra: dict[str, object] = {"toolUseResult": tur}
        if self.s.era == "2.1":
            extra["sourceToolAssistantUUID"] = src
        return self.user(run, [block], extra)

    def _call(self, run: _Run, act: Act, name: str, inp: Mapping[str, object]) -> tuple[str, str]:
        self._tick(2, 9)
        tool_id = "toolu_01" + b62(self.rng, 22)
        blocks: list[dict[str, object]] = []
        if self.rng.random() < 0.2:
            blocks.append({"type": "text", "text": _lead_in(name, inp)})
        blocks.append({"type": "tool_use", "id": tool_id, "name": name, "input": inp})
        src = self.assistant(run, blocks, "tool_use")
        if act.mark:
            self.s.marks[act.mark] = str(run.lines[-1]["timestamp"])
        self.s_t += timedelta(seconds=act.seconds)
        return tool_id, src

    def _failure(self, run: _Run, act: Act, tool_id: str, src: str) -> bool:
        """Render a rejected or interrupted call; True when the act is fully handled."""
        if act.result == "reject":
            self.result(run, tool_id, REJECTED, True, "Error: " + REJECTED, src)
            return True
        if act.result == "interrupt":
            self.result(run, tool_id, INTERRUPTED_TOOL, True, "Error: " + INTERRUPTED_TOOL, src)
            self.user(run, [{"type": "text", "text": INTERRUPTED_TOOL}])
            return True
        return act.result == "none"

    def bash(self, run: _Run, act: Act) -> None:
        desc = act.text.split(" ")[0] if " " in act.text else act.text
        tool_id, src = self._call(
            run, act, "Bash", {"command": act.text, "description": f"Run {desc}"}
        )
        if self._failure(run, act, tool_id, src):
            return
        out = self._limit(act.output, tool_id)
        if act.error:
            content = "Exit code 1\n" + out
            self.result(run, tool_id, content, True, "Error: " + content, src)
            return
        tur = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
        self.result(run, tool_id, out, False, tur, src)

    def _limit(self, out: str, tool_id: str) -> str:
        if self.s.era != "2.1":
            return shell.truncate_lines(shell.truncate_chars(out, BASH_LIMIT), 200)
        if len(out) <= BASH_LIMIT:
            return out
        saved = self.dir / self.s.sid / "tool-results" / f"{tool_id}.txt"
        self.text_files[saved] = out
        return (
            f"<persisted-output>\nOutput too large ({len(out) / 1024:.1f}KB). Full output saved "
            f"to: {saved}\n\nPreview (first 2KB):\n{out[:2048]}\n...\n</persisted-output>"
        )

    def read(self, run: _Run, act: Act) -> None:
        inp: dict[str, object] = {"file_path": act.path}
        if act.offset is not None:
            inp["offset"] = act.offset
        if act.limit is not None:
            inp["limit"] = act.limit
        tool_id, src = self._call(run, act, "Read", inp)
        if self.s.era == "2.1":
            numbered = [f"{act.start + i}\t{ln}" for i, ln in enumerate(act.lines)]
        else:
            numbered = [f"{act.start + i:>6}→{ln}" for i, ln in enumerate(act.lines)]
        content = "\n".join(numbered) + (REMINDER if self.s.era == "2.0" else "")
        file = {
            "filePath": act.path,
            "content": "\n".join(act.lines),
            "numLines": len(act.lines),
            "startLine": act.start,
            "totalLines": act.total,
        }
        self.result(run, tool_id, content, False, {"type": "text", "file": file}, src)

    def edit(self, run: _Run, act: Act) -> None:
        old, new = act.output.split("\0")
        tool_id, src = self._call(
            run, act, "Edit", {"file_path": act.path, "old_string": old, "new_string": new}
        )
        if self._failure(run, act, tool_id, src):
            return
        tur = {
            "filePath": act.path,
            "oldString": old,
            "newString": new,
            "replaceAll": False,
            "userModified": False,
            "structuredPatch": [],
        }
        self.result(
            run, tool_id, f"The file {act.path} has been updated successfully.", False, tur, src
        )
        if self.s.era == "1.0" and self.rng.random() < 0.4:
            rec = self._env(run, "system")
            rec.update(
                {
                    "content": "Running PostToolUse:Edit...",
                    "level": "info",
                    "isMeta": False,
                    "toolUseID": tool_id,
                }
            )
            self._push(run, rec)

    def spawn(self, run: _Run, act: Act) -> None:
        sub = act.sub
        assert sub is not None
        tool = "Agent" if self.s.version in ("2.1.42", "2.1.114") else "Task"
        inp = {
            "description": sub.description,
            "prompt": sub.prompt,
            "subagent_type": sub.agent_type,
        }
        tool_id, src = self._call(run, act, tool, inp)
        agent_id, child = self._sub_run(sub, tool_id)
        start = child.lines[0]["timestamp"]
        self._tick(1, 3)
        text = [{"type": "text", "text": sub.final}]
        tur: dict[str, object] = {
            "content": text,
            "totalDurationMs": _ms_between(str(start), iso_ms(self.s_t)),
            "totalTokens": self.rng.randint(8000, 40000),
            "totalToolUseCount": len(sub.acts),
            "usage": {"input_tokens": 12},
        }
        if self.s.era == "1.0":
            self.result(run, tool_id, text, False, tur, src)
            return
        tur = {"status": "completed", "prompt": sub.prompt, "agentId": agent_id, **tur}
        if self.s.era == "2.1":
            tur["agentType"] = sub.agent_type
            tail = (
                f"agentId: {agent_id} (use SendMessage with to: '{agent_id}' to continue this agent)\n"  # noqa: E501
                f"<usage>total_tokens: {tur['totalTokens']}\ntool_uses: {len(sub.acts)}\n"
                f"duration_ms: {tur['totalDurationMs']}</usage>"
            )
            text = [*text, {"type": "text", "text": tail}]
        self.result(run, tool_id, text, False, tur, src)

    def _sub_run(self, sub: Sub, tool_id: str) -> tuple[str, _Run]:
        era = self.s.era
        if era == "1.0":  # inline sidechain: same file, own chain, no agentId
            child = _Run(self.main.lines, None, True, None)
            agent_id = ""
        else:
            agent_id = hex_id(self.rng, 8) if era == "2.0" else "a" + hex_id(self.rng, 16)
            child = _Run([], None, True, agent_id)
            if era == "2.0":
                path = self.dir / f"agent-{agent_id}.jsonl"
            else:
                path = self.dir / self.s.sid / "subagents" / f"agent-{agent_id}.jsonl"
                meta: dict[str, object] = {
                    "agentType": sub.agent_type,
                    "description": sub.description,
                }
                if self.s.version != "2.1.17":
                    meta["toolUseId"] = tool_id
                self.text_files[path.with_suffix(".meta.json")] = dumps(meta) + "\n"
            self.extra_files[path] = child.lines
        self._tick(0.5, 2)
        self.user(child, sub.prompt)
        self.play(child, sub.acts)
        self._tick(2, 10)
        self.assistant(child, [{"type": "text", "text": sub.final}], "end_turn")
        return agent_id, child

    def hook(self, run: _Run, act: Act) -> None:
        rec = self._env(run, "attachment")
        rec["attachment"] = {
            "type": "hook_additional_context",
            "content": [act.text],
            "hookName": "SessionStart",
            "toolUseID": new_uuid(self.rng),
            "hookEvent": "SessionStart",
        }
        self._push(run, rec)

    def play(self, run: _Run, acts: list[Act]) -> None:
        for act in acts:
            if act.kind == "prompt":
                self._tick(15, 150)
                self.user(run, act.text)
            elif act.kind == "say":
                self._tick(3, 14)
                self.assistant(run, [{"type": "text", "text": act.text}], "end_turn")
                if act.mark:
                    self.s.marks[act.mark] = str(run.lines[-1]["timestamp"])
            elif act.kind == "interrupt":
                self._tick(1, 5)
                self.user(run, [{"type": "text", "text": "[Request interrupted by user]"}])
            else:
                getattr(
                    self,
                    {
                        "bash": "bash",
                        "read": "read",
                        "edit": "edit",
                        "spawn": "spawn",
                        "hook": "hook",
                    }[act.kind],
                )(run, act)

    def write(self, replay: list[dict[str, object]] | None = None) -> list[dict[str, object]]:
        """Render the whole session; return the main file's records (for resumes)."""
        self.s_t = self.s.start
        head = self._opening()
        if replay:
            for rec in replay:  # a resumed session re-writes old lines: same uuid, new sessionId
                self.main.lines.append({**rec, "sessionId": self.s.sid})
            self.main.parent = str(replay[-1]["uuid"])
        self.play(self.main, self.s.acts)
        self.s.end = self.s_t
        self._closing(head)
        write_jsonl(self.dir / f"{self.s.sid}.jsonl", self.main.lines)
        for path, recs in self.extra_files.items():
            write_jsonl(path, recs)
        for path, text in self.text_files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return self.main.lines

    def _opening(self) -> list[dict[str, object]]:
        head: list[dict[str, object]] = []
        s, rng = self.s, self.rng
        if s.era == "2.1" and rng.random() < 0.5:
            head.append(
                {"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": s.sid}
            )
        if s.version in ("2.1.17", "2.1.42") and rng.random() < 0.6:
            rec = self._env(self.main, "progress")
            tid = new_uuid(rng)
            rec.update(
                {
                    "data": {
                        "type": "hook_progress",
                        "hookEvent": "SessionStart",
                        "hookName": "SessionStart:startup",
                        "command": "uv run lessons-hook",
                    },
                    "parentToolUseID": tid,
                    "toolUseID": tid,
                }
            )
            self._push(self.main, rec)
        return head

    def _closing(self, head: list[dict[str, object]]) -> None:
        s, rng, lines = self.s, self.rng, self.main.lines
        prompts = [r for r in lines if r.get("type") == "user" and isinstance(_content(r), str)]
        if s.era != "1.0" and prompts and rng.random() < 0.5:
            snap = {
                "messageId": prompts[0]["uuid"],
                "trackedFileBackups": {},
                "timestamp": prompts[0]["timestamp"],
            }
            lines.insert(
                lines.index(prompts[0]) + 1,
                {
                    "type": "file-history-snapshot",
                    "messageId": prompts[0]["uuid"],
                    "snapshot": snap,
                    "isSnapshotUpdate": False,
                },
            )
        if s.era == "2.0" and len(prompts) > 1 and rng.random() < 0.2:
            at = lines.index(prompts[1])
            ts = prompts[1]["timestamp"]
            content = [{"type": "text", "text": _content(prompts[1])}]
            lines.insert(
                at,
                {
                    "type": "queue-operation",
                    "operation": "remove",
                    "timestamp": ts,
                    "sessionId": s.sid,
                },
            )
            lines.insert(
                at,
                {
                    "type": "queue-operation",
                    "operation": "enqueue",
                    "timestamp": ts,
                    "content": content,
                    "sessionId": s.sid,
                },
            )
        if s.era != "2.1" and rng.random() < 0.3:
            title = str(_content(prompts[0]))[:60] if prompts else "Session"
            head.append(
                {"type": "summary", "summary": title, "leafUuid": lines[-1].get("uuid", "")}
            )
        if s.era == "2.1":
            self._closing_21(prompts)
        lines[:0] = head

    def _closing_21(self, prompts: list[dict[str, object]]) -> None:
        s, lines = self.s, self.main.lines
        if self.rng.random() < 0.5 and s.acts[-1].result != "none":
            rec = self._env(self.main, "system")
            rec.update(
                {
                    "subtype": "turn_duration",
                    "durationMs": _ms_between(str(lines[0].get("timestamp", "")), iso_ms(self.s_t)),
                    "messageCount": len(lines),
                    "isMeta": False,
                }
            )
            self._push(self.main, rec)
        if "ai-title" in s.extras:  # a line type the parser has never heard of
            lines.append(
                {
                    "type": "ai-title",
                    "aiTitle": str(_content(prompts[0]))[:50],
                    "sessionId": s.sid,
                }
            )
        if prompts:
            last = str(_content(prompts[-1]))
            lines.append(
                {
                    "type": "last-prompt",
                    "lastPrompt": last[:120] + ("…" if len(last) > 120 else ""),
                    "sessionId": s.sid,
                }
            )


def write_warmup(rng: random.Random, s: Session, projects: Path) -> None:
    """2.0.x warm-up agents: a two-line file whose first message is literally "Warmup"."""
    agent_id = hex_id(rng, 8)
    t = s.start - timedelta(seconds=rng.uniform(1, 4))
    common = {
        "isSidechain": True,
        "userType": "external",
        "cwd": str(s.cwd),
        "sessionId": s.sid,
        "version": s.version,
        "gitBranch": "main",
        "agentId": agent_id,
    }
    u1, u2 = new_uuid(rng), new_uuid(rng)
    first = {
        "parentUuid": None,
        **common,
        "type": "user",
        "message": {"role": "user", "content": "Warmup"},
        "uuid": u1,
        "timestamp": iso_ms(t),
    }
    reply = {
        "id": "msg_01" + b62(rng, 22),
        "type": "message",
        "role": "assistant",
        "model": MODELS["2.0"],
        "content": [
            {"type": "text", "text": "I'm ready to help you search and explore the codebase."}
        ],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 4,
            "cache_creation_input_tokens": 1900,
            "cache_read_input_tokens": 0,
            "output_tokens": 14,
            "service_tier": "standard",
        },
    }
    second = {
        "parentUuid": u1,
        **common,
        "type": "assistant",
        "message": reply,
        "requestId": "req_011C" + b62(rng, 20),
        "uuid": u2,
        "timestamp": iso_ms(t + timedelta(seconds=2)),
    }
    write_jsonl(projects / slugify_path(s.cwd) / f"agent-{agent_id}.jsonl", [first, second])


def _nick(sid: str) -> str:
    words = ("fuzzy", "brisk", "quiet", "amber", "tidal", "lunar", "mossy", "swift")
    names = ("minsky", "hopper", "turing", "lovelace", "knuth", "liskov", "dijkstra", "ritchie")
    n = int(sid[:8], 16)
    return f"{words[n % 8]}-{words[(n >> 3) % 8]}-{names[(n >> 6) % 8]}"


def _content(rec: dict[str, object]) -> object:
    """``message.content`` of a transcript line (None when it has no message)."""
    message = rec.get("message")
    return message.get("content") if isinstance(message, dict) else None


def _lead_in(name: str, inp: Mapping[str, object]) -> str:
    if name == "Read":
        return f"Let me read {Path(str(inp['file_path'])).name}."
    if name == "Bash":
        cmd = str(inp["command"])
        # Commands that embed the workspace path get a generic lead-in, so cutting the text
        # never depends on where the demo was built.
        return (
            "Running it from the repository root."
            if cmd.startswith("cd ")
            else f"Running `{cmd[:60]}`."
        )
    if name == "Edit":
        return "I'll make the edit."
    return "I'll hand this to a subagent."


def _ms_between(a: str, b: str) -> int:
    if not a:
        return 0
    ta = datetime.fromisoformat(a.replace("Z", "+00:00"))
    tb = datetime.fromisoformat(b.replace("Z", "+00:00"))
    return int((tb - ta).total_seconds() * 1000)
