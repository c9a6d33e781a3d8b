"""Codex CLI rollouts: the wrapped era (three generations of the shell tool) and the bare era."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .plan import Act, Session
from .util import b62, clock_after, hex_id, iso_ms, write_jsonl

LOCAL = timezone(
    timedelta(hours=7), "Asia/Novosibirsk"
)  # the Codex user's clock: path dates are local
TOOL_BY_VERSION = {"0.39.0": "shell", "0.63.0": "shell_command", "0.104.0": "exec_command"}
MODEL = {"0.39.0": "gpt-5-codex", "0.63.0": "gpt-5.1-codex", "0.104.0": "gpt-5.2-codex"}


def rollout_path(sessions: Path, s: Session) -> Path:
    local = s.start.astimezone(LOCAL)
    name = f"rollout-{local.strftime('%Y-%m-%dT%H-%M-%S')}-{s.sid}.jsonl"
    return sessions / local.strftime("%Y/%m/%d") / name


def _text(role: str, text: str) -> dict[str, object]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _env_context(s: Session) -> str:
    return (
        f"<environment_context>\n  <cwd>{s.cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"  # noqa: E501
        "  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n"  # noqa: E501
        "  <shell>bash</shell>\n</environment_context>"
    )


class CodexWriter:
    def __init__(self, rng: random.Random, s: Session, sessions: Path) -> None:
        self.rng, self.s, self.sessions = rng, s, sessions
        self.t = s.start
        self.lines: list[dict[str, object]] = []
        self.turn = ""
        self.total = 0
        self.local_shell_done = False

    def _line(self, kind: str, payload: Mapping[str, object]) -> dict[str, object]:
        rec: dict[str, object] = {"timestamp": iso_ms(self.t), "type": kind, "payload": payload}
        self.lines.append(rec)
        return rec

    def _tick(self, low: float, high: float) -> None:
        self.t = clock_after(self.t, self.rng, low, high)

    def write(self) -> Path:
        s = self.s
        meta = {
            "id": s.sid,
            "timestamp": iso_ms(s.start),
            "cwd": str(s.cwd),
            "originator": "codex_cli_rs",
            "cli_version": s.version,
            "source": "cli",
            "model_provider": "openai",
            "base_instructions": {
                "text": "You are Codex, a coding agent running in the Codex CLI."
            },
            "git": {
                "commit_hash": hex_id(self.rng, 40),
                "branch": "main",
                "repository_url": f"git@example.org:team/{s.project.split('/')[0]}.git",
            },
        }
        self.t = s.start + timedelta(
            seconds=self.rng.uniform(1, 4)
        )  # meta is written a little late
        self._line("session_meta", meta)
        self._line("response_item", _text("user", _env_context(s)))
        for act in s.acts:
            self._act(act)
        self._end_turn()
        s.end = self.t
        path = rollout_path(self.sessions, s)
        write_jsonl(path, self.lines)
        return path

    def _start_turn(self, prompt: str) -> None:
        self._end_turn()
        self._tick(20, 150)
        self.turn = f"turn-{hex_id(self.rng, 8)}"
        self._line(
            "turn_context",
            {
                "turn_id": self.turn,
                "cwd": str(self.s.cwd),
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "workspace-write", "network_access": False},
                "model": MODEL[self.s.version],
                "effort": "medium",
                "summary": "auto",
                "current_date": self.t.astimezone(LOCAL).date().isoformat(),
                "timezone": "Asia/Novosibirsk",
            },
        )
        self._line(
            "event_msg",
            {"type": "task_started", "turn_id": self.turn, "model_context_window": 272000},
        )
        self._line("response_item", _text("user", prompt))
        self._line("event_msg", {"type": "user_message", "message": prompt, "images": []})
        self.last_say = ""

    def _end_turn(self) -> None:
        if self.turn:
            self._line(
                "event_msg",
                {
                    "type": "task_complete",
                    "turn_id": self.turn,
                    "last_agent_message": self.last_say or None,
                },
            )
            self.turn = ""

    def _act(self, act: Act) -> None:
        if act.kind == "prompt":
            self._start_turn(act.text)
        elif act.kind == "say":
            self._tick(3, 12)
            rec = self._line(
                "response_item", {**_text("assistant", act.text), "phase": "final_answer"}
            )
            self._line("event_msg", {"type": "agent_message", "message": act.text})
            self.last_say = act.text
            if act.mark:
                self.s.marks[act.mark] = str(rec["timestamp"])
        elif act.kind == "interrupt":
            self._line(
                "event_msg", {"type": "turn_aborted", "turn_id": self.turn, "reason": "interrupted"}
            )
            self.turn = ""
        elif act.kind == "edit":
            self._patch(act)
        elif act.kind == "bash":
            self._shell(act)

    def _reasoning(self, title: str) -> None:
        if self.rng.random() < 0.5:
            self._line(
                "response_item",
                {
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": title}],
                    "content": None,
                    "encrypted_content": "gAAAAB" + b62(self.rng, 80),
                },
            )

    def _shell(self, act: Act) -> None:
        self._tick(2, 8)
        self._reasoning(f"**Running {act.text.split()[0]}**")
        call_id = "call_" + b62(self.rng, 24)
        tool = TOOL_BY_VERSION[self.s.version]
        if tool == "shell" and not self.local_shell_done:
            self.local_shell_done = True
            action = {
                "type": "exec",
                "command": ["bash", "-lc", act.text],
                "timeout_ms": 120000,
                "working_directory": str(self.s.cwd),
            }
            rec = self._line(
                "response_item",
                {
                    "type": "local_shell_call",
                    "call_id": call_id,
                    "status": "completed",
                    "action": action,
                },
            )
        else:
            rec = self._line(
                "response_item",
                {
                    "type": "function_call",
                    "name": tool,
                    "arguments": json.dumps(self._args(tool, act.text)),
                    "call_id": call_id,
                },
            )
        if act.mark:
            self.s.marks[act.mark] = str(rec["timestamp"])
        self.t += timedelta(seconds=act.seconds)
        if act.result in ("none", "interrupt"):
            self._line(
                "event_msg", {"type": "turn_aborted", "turn_id": self.turn, "reason": "interrupted"}
            )
            self.turn = ""
            return
        self._line(
            "response_item",
            {"type": "function_call_output", "call_id": call_id, "output": self._output(tool, act)},
        )
        self._tokens()

    def _args(self, tool: str, cmd: str) -> dict[str, object]:
        wd = str(self.s.cwd)
        if tool == "exec_command":
            return {"cmd": cmd, "workdir": wd, "yield_time_ms": 10000, "max_output_tokens": 10000}
        if tool == "shell_command":
            return {"command": cmd, "workdir": wd, "timeout_ms": 600000}
        return {"command": ["bash", "-lc", cmd], "workdir": wd, "timeout_ms": 600000}

    def _output(self, tool: str, act: Act) -> str:
        code = 1 if act.error else 0
        out = act.output + "\n" if act.output else ""
        if tool == "exec_command":
            return (
                f"Chunk ID: {hex_id(self.rng, 6)}\nWall time: {act.seconds:.4f} seconds\n"
                f"Process exited with code {code}\nOriginal token count: {max(1, len(out) // 4)}\nOutput:\n{out}"  # noqa: E501
            )
        if tool == "shell_command":
            return f"Exit code: {code}\nWall time: {act.seconds:.1f} seconds\nOutput:\n{out}"
        return json.dumps(
            {
                "output": out,
                "metadata": {"exit_code": code, "duration_seconds": round(act.seconds, 1)},
            }
        )

    def _patch(self, act: Act) -> None:
        self._tick(3, 10)
        old, new = act.output.split("\0")
        rel = (
            Path(act.path).relative_to(self.s.cwd)
            if act.path.startswith(str(self.s.cwd))
            else Path(act.path)
        )
        minus = "".join(f"-{x}\n" for x in old.split("\n"))
        plus = "".join(f"+{x}\n" for x in new.split("\n"))
        patch = f"*** Begin Patch\n*** Update File: {rel}\n@@\n{minus}{plus}*** End Patch"
        call_id = "call_" + b62(self.rng, 24)
        rec = self._line(
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call_id,
                "name": "apply_patch",
                "input": patch,
            },
        )
        if act.mark:
            self.s.marks[act.mark] = str(rec["timestamp"])
        self._tick(0.1, 0.6)
        ok = act.result != "reject"
        text = (
            f"Success. Updated the following files:\nM {rel}\n"
            if ok
            else "patch rejected by user\n"
        )
        out = {"output": text, "metadata": {"exit_code": 0 if ok else 1, "duration_seconds": 0.0}}
        self._line(
            "response_item",
            {"type": "custom_tool_call_output", "call_id": call_id, "output": json.dumps(out)},
        )

    def _tokens(self) -> None:
        last = {
            "input_tokens": self.rng.randint(2000, 9000),
            "cached_input_tokens": self.rng.randint(0, 8000),
            "output_tokens": self.rng.randint(20, 600),
            "reasoning_output_tokens": self.rng.randint(0, 300),
        }
        last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
        self.total += last["total_tokens"]
        info = {
            "total_token_usage": {**last, "total_tokens": self.total},
            "last_token_usage": last,
            "model_context_window": 272000,
        }
        self._line("event_msg", {"type": "token_count", "info": info, "rate_limits": None})


def write_bare(rng: random.Random, s: Session, sessions: Path) -> Path:
    """The oldest rollout shape: a metadata first line, then bare items and state markers."""
    lines: list[dict[str, object]] = [
        {
            "id": s.sid,
            "timestamp": iso_ms(s.start),
            "instructions": None,
            "git": {
                "commit_hash": hex_id(rng, 40),
                "branch": "main",
                "repository_url": "git@example.org:team/atlas.git",
            },
        }
    ]
    lines.append(_text("user", _env_context(s)))
    lines.append({"record_type": "state"})
    t = s.start
    for act in s.acts:
        if act.kind == "prompt":
            lines += [_text("user", act.text), {"record_type": "state"}]
        elif act.kind == "say":
            lines.append(_text("assistant", act.text))
        elif act.kind in ("bash", "edit"):
            cmd = (
                act.text
                if act.kind == "bash"
                else f"git apply <<'EOF'\n{act.output.replace(chr(0), chr(10))}\nEOF"
            )
            call_id = "call_" + b62(rng, 24)
            args = {"command": ["bash", "-lc", cmd], "workdir": str(s.cwd), "timeout_ms": 600000}
            lines.append(
                {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": json.dumps(args),
                    "call_id": call_id,
                }
            )
            meta = {"exit_code": 1 if act.error else 0, "duration_seconds": round(act.seconds, 1)}
            out = json.dumps(
                {"output": (act.output + "\n") if act.kind == "bash" else "", "metadata": meta}
            )
            lines.append({"type": "function_call_output", "call_id": call_id, "output": out})
        t += timedelta(seconds=act.seconds + 5)
    s.end = t
    path = rollout_path(sessions, s)
    write_jsonl(path, lines)
    return path


def codex_start(day_start: datetime, rng: random.Random, late: bool) -> datetime:
    # A late session starts after local midnight, so its folder date is the next UTC day's.
    hour = rng.uniform(17.3, 18.2) if late else rng.uniform(5.5, 12.0)
    return day_start + timedelta(hours=hour)
