"""Codex CLI rollouts (trace-formats.md §2) into raw rows: wrapped and bare eras.

Messages come from ``response_item`` only; the ``event_msg`` copies are kept as events but
never counted as messages. Durations and exit codes are read out of the output text (or the
JSON ``metadata``), because that is where current Codex builds record them. The bare era
has no ``cwd`` field; it is taken from the ``<environment_context>`` message.

A resumed session's rollout starts with its own ``session_meta``, then replays its parent's
rollout line by line (the parent's ``session_meta`` first, with new envelope timestamps).
The rollout stays its own session; each line gets a ``uuid`` chained over the payloads of its
stream (a ``session_meta`` starts one), so a replayed line has the uuid of the parent's line
and ``int_events_deduplicated`` keeps it once. The first line that differs from the parent
breaks the chain: from there on the lines are the resumed session's own.
"""

from __future__ import annotations

import hashlib
import ntpath
import posixpath
import re
import shlex
from typing import Any, cast

import orjson

from lessons_analytics.schema import Batch, EventRow, ToolResultRow
from lessons_analytics.transcripts import JsonObject, file_reads
from lessons_analytics.transcripts.tool_results import (
    add_mentions,
    block_text,
    input_json,
    summarize,
)

KNOWN = {
    "session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state",
    "inter_agent_communication", "inter_agent_communication_metadata", "state",
}  # fmt: skip
_BARE_ITEMS = {
    "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
    "custom_tool_call_output", "local_shell_call", "web_search_call",
}  # fmt: skip
_WALL = re.compile(r"^(?:Wall time|Duration): ([0-9.]+) seconds$", re.M)
_EXIT = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)$", re.M)
# the bare era has no cwd field: the harness states it in an <environment_context> message
# (``<cwd>…</cwd>``, or ``Current working directory: …`` in the CLI builds of August 2025)
_ENV_CWD = re.compile(r"<cwd>([^<\n]+)</cwd>|^Current working directory: ([^\n]+)$", re.M)
_TEXT_KEEP = 4000
_WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]")
# Outputs the harness writes instead of running the call (no exit code of a process): what
# each one means. Anchored at the start of the output, where Codex puts them.
HARNESS_FAILURES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), kind)
    for pattern, kind in (
        (r"^aborted\b", "interrupted"),  # the turn was interrupted before the call ran
        (r"^(?:exec command|patch) rejected\b", "rejected"),  # by the user or the policy
        (r"^\w+ rejected by user\b", "rejected"),
        (r"^failed in sandbox\b", "error"),
        (r"^execution error: ", "error"),
        (r"^apply_patch verification failed: ", "error"),
        (r"^error: ", "error"),  # apply_patch: a hunk did not apply, an invalid patch
        (r"^failed to parse function arguments: ", "error"),
        (r"^unsupported (?:custom tool )?call: ", "error"),  # a tool that does not exist
        (r"^\w+ failed: ", "error"),  # exec_command failed, write_stdin failed
    )
)
# the exit code a sandbox failure quotes: ``exit code: 1`` or ``exit_code: 128``
_EMBEDDED_EXIT = re.compile(r"\bexit[ _]code: (-?\d{1,9})\b")


class CodexFileParser:
    """Parses lines of one rollout into ``batch``; ``context`` carries session and cwd."""

    def __init__(self, batch: Batch, file_id: int, context: JsonObject) -> None:
        self.batch = batch
        self.file_id = file_id
        self.ctx = context
        self.ctx.setdefault("pending", {})

    def line(self, line_no: int, record: JsonObject) -> None:
        if "payload" in record and isinstance(record.get("type"), str):
            kind, payload, ts = record["type"], record["payload"], record.get("timestamp")
        elif record.get("record_type") == "state":
            kind, payload, ts = "state", {}, None
        elif line_no == 1 and "instructions" in record and "id" in record:
            kind, payload, ts = "session_meta", record, record.get("timestamp")
        else:
            kind, payload, ts = "response_item", record, None  # bare-era item
        if not isinstance(payload, dict):
            payload = {}
        env = self._envelope(line_no, kind, payload, ts)
        env["uuid"] = self._identity(kind, payload)
        if kind == "session_meta":
            self._session_meta(env, payload)
        elif kind == "turn_context" and isinstance(payload.get("cwd"), str):
            self.ctx["cwd"] = payload["cwd"]
            env["cwd"] = payload["cwd"]
        elif kind == "response_item":
            self._item(env, payload)
        elif kind not in KNOWN:
            env["is_known_type"] = False
            env["text"] = orjson.dumps(record)[:_TEXT_KEEP].decode("utf-8", "replace")
        if kind == "response_item" and payload.get("type") not in _BARE_ITEMS:
            env["is_known_type"] = payload.get("type") in (
                "ghost_snapshot",
                "compaction",
                "tool_search_call",
                "image_generation_call",
            )
        self.batch.events.add(env)

    def legacy_item(self, line_no: int, ts: object, item: object) -> None:
        """One item of a legacy document: a single line, whatever it holds."""
        payloads = _responses_items(item)
        env = self._envelope(line_no, "response_item", payloads[0], ts)
        env["uuid"] = self._identity("response_item", item if isinstance(item, dict) else {})
        env["is_known_type"] = payloads[0].get("type") in _BARE_ITEMS
        for payload in payloads:
            self._item(env, payload)
        calls = sum(p.get("type") == "function_call" for p in payloads)
        if calls:
            env["tool_uses"] = calls
        self.batch.events.add(env)

    def _identity(self, kind: str, payload: JsonObject) -> str:
        """The line's place in its stream: a hash of every payload since the stream began."""
        if kind == "session_meta":
            self.ctx["chain"] = ""
        digest = hashlib.blake2b(digest_size=12)
        digest.update(self.ctx.get("chain", "").encode())
        digest.update(kind.encode())
        digest.update(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS))
        chain = digest.hexdigest()
        self.ctx["chain"] = chain
        return "codex:" + chain

    def _envelope(self, line_no: int, kind: str, payload: JsonObject, ts: Any) -> EventRow:
        return {
            "file_id": self.file_id,
            "line_no": line_no,
            "runtime": "codex",
            "line_type": kind,
            "subtype": payload.get("type") if isinstance(payload.get("type"), str) else None,
            "is_known_type": True,
            # a session_meta rejected for a bad value leaves the id its file name gives
            "session_id": self.ctx.get("session_id") or self.ctx.get("file_session_id"),
            "agent_id": self.ctx.get("agent_id"),
            "is_sidechain": self.ctx.get("agent_id") is not None,
            "ts": ts,  # a timestamp that is not ISO text is rejected by the raw schema
            "cwd": self.ctx.get("cwd"),
            "version": self.ctx.get("version"),
        }

    def _session_meta(self, env: EventRow, payload: JsonObject) -> None:
        if self.ctx.get("has_meta"):
            return  # a resume replaying its parent: the rollout stays its own session
        self.ctx["has_meta"] = True
        own_id = payload.get("id")
        parent = _parent_thread(payload.get("source"))
        # A spawned sub-agent's rollout is an agent run of its parent's session.
        self.ctx["session_id"] = parent or own_id
        self.ctx["agent_id"] = own_id if parent else None
        if isinstance(payload.get("cwd"), str):
            self.ctx["cwd"] = payload["cwd"]
        self.ctx["version"] = payload.get("cli_version")
        env["session_id"] = self.ctx["session_id"]
        env["agent_id"] = self.ctx["agent_id"]
        env["is_sidechain"] = parent is not None
        env["cwd"] = self.ctx.get("cwd")
        env["version"] = self.ctx["version"]
        if env["ts"] is None and isinstance(payload.get("timestamp"), str):
            env["ts"] = payload["timestamp"]

    def _item(self, env: EventRow, item: JsonObject) -> None:
        item_type = item.get("type")
        if item_type == "message":
            self._message(env, item)
        elif item_type in ("function_call", "custom_tool_call", "local_shell_call"):
            self._call(env, item, item_type)
        elif item_type in ("function_call_output", "custom_tool_call_output"):
            self._output(env, item)

    def _message(self, env: EventRow, item: JsonObject) -> None:
        role = item.get("role")
        env["role"] = role if isinstance(role, str) else None
        text = block_text(item.get("content"))
        if role in ("user", "developer"):
            env["text"] = text[:_TEXT_KEEP]
            cwd = _environment_cwd(item.get("content")) if "<environment_context>" in text else None
            if cwd is not None:
                self.ctx["cwd"] = env["cwd"] = cwd
            source = "user" if role == "user" and not text.startswith("<") else "system"
            self._mentions(env, text, source, None)

    def _call(self, env: EventRow, item: JsonObject, item_type: str) -> None:
        name, args, command = _call_shape(item, item_type)
        call_id = item.get("call_id") or item.get("id")
        cwd = _workdir(args.get("workdir") or args.get("working_directory"), env["cwd"])
        env["tool_uses"] = 1
        self.batch.tool_calls.add(
            {
                "file_id": self.file_id,
                "line_no": env["line_no"],
                "runtime": "codex",
                "session_id": env["session_id"],
                "agent_id": env["agent_id"],
                "tool_use_id": call_id,
                "tool_name": name,
                "ts": env["ts"],
                # a workdir of another type is passed on: the raw schema rejects the line
                "cwd": cast("str | None", cwd),
                "command": command,
                "input_json": input_json(args),
            }
        )
        if isinstance(call_id, str) and command:
            read = file_reads.record_reads(
                self.batch, self.file_id, call_id, name, args, cwd, command
            )
            self.ctx["pending"][call_id] = read or ["", False]

    def _output(self, env: EventRow, item: JsonObject) -> None:
        call_id = item.get("call_id")
        raw = item.get("output")
        text = raw if isinstance(raw, str) else block_text(raw)
        body, exit_code, duration = parse_output(text)
        failure = harness_failure(body) if exit_code is None else None
        if failure == "error":
            exit_code = _embedded_exit(body)
        read = self.ctx["pending"].pop(call_id, None) if isinstance(call_id, str) else None
        style = read[0] if read and read[0] else None
        summary = summarize(body, style)
        row: ToolResultRow = {
            "file_id": self.file_id,
            "line_no": env["line_no"],
            "runtime": "codex",
            "session_id": env["session_id"],
            "agent_id": env["agent_id"],
            "tool_use_id": call_id,
            "ts": env["ts"],
            "is_error": failure is not None or (exit_code is not None and exit_code != 0),
            "exit_code": exit_code,
            "duration_s": duration,
        }
        row.update(summary.columns())
        row["is_persisted"] = False
        row["is_interrupt"] = failure == "interrupted"
        row["is_rejected"] = failure == "rejected"
        self.batch.tool_results.add(row)
        env["tool_results"] = 1
        if read and read[1]:
            self.batch.read_texts.add(
                {"file_id": self.file_id, "tool_use_id": call_id, "text": body}
            )
        else:
            self._mentions(env, body, "tool_result", call_id if isinstance(call_id, str) else None)

    def _mentions(self, env: EventRow, text: str, source: str, tool_use_id: str | None) -> None:
        add_mentions(self.batch, env, text, source, tool_use_id)


def _environment_cwd(content: object) -> str | None:
    """The ``<cwd>`` of a harness ``<environment_context>`` block. Only a block that *is* the
    context counts: a user who pastes one inside a prompt does not move the session."""
    blocks = [content] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        return None
    for block in blocks:
        text = block.get("text") if isinstance(block, dict) else block
        if isinstance(text, str) and text.lstrip().startswith("<environment_context>"):
            match = _ENV_CWD.search(text)
            if match:
                return (match.group(1) or match.group(2)).strip()
    return None


def _workdir(workdir: object, cwd: object) -> object:
    """A call's working directory: its ``workdir`` (relative to the session's cwd when it is
    relative), else the session's cwd. A workdir of another type is passed on as it is, so the
    raw schema rejects that line with its reason instead of the call silently moving."""
    if workdir is None or workdir == "":
        return cwd
    if not isinstance(workdir, str) or not isinstance(cwd, str):
        return workdir
    if posixpath.isabs(workdir) or ntpath.isabs(workdir):
        return workdir
    if _WINDOWS_PATH.match(cwd):
        return ntpath.join(cwd, workdir)
    return posixpath.join(cwd, workdir)


def _parent_thread(source: object) -> str | None:
    if not isinstance(source, dict):
        return None
    spawn = (
        (source.get("subagent") or {}).get("thread_spawn")
        if isinstance(source.get("subagent"), dict)
        else None
    )
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
    return parent if isinstance(parent, str) else None


def _call_shape(item: JsonObject, item_type: str) -> tuple[str, JsonObject, str | None]:
    """Tool name, arguments and shell command of a call item, whatever its era."""
    if item_type == "local_shell_call":
        raw_action = item.get("action")
        action: JsonObject = raw_action if isinstance(raw_action, dict) else {}
        return "local_shell_call", action, _command_text(action.get("command"))
    raw_name = item.get("name")
    name = raw_name if isinstance(raw_name, str) else "<unnamed>"
    if item_type == "custom_tool_call":
        patch = item.get("input")
        return name, {"input": patch if isinstance(patch, str) else None}, None
    raw = item.get("arguments")
    try:
        args = orjson.loads(raw) if isinstance(raw, str) else raw
    except orjson.JSONDecodeError:
        args = {"arguments": raw}
    if not isinstance(args, dict):
        args = {"arguments": args}
    # exec_command and the TypeScript CLI's container.exec name it ``cmd``
    command = _command_text(args.get("command", args.get("cmd")))
    if name not in file_reads.SHELL_TOOLS:
        command = None
    return name, args, command


def _command_text(command: object) -> str | None:
    if isinstance(command, str):
        return command
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if (
            len(command) >= 3
            and command[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh")
            and command[1] in ("-lc", "-c")
        ):
            return str(command[2])
        return shlex.join(command)
    return None


def parse_output(text: str) -> tuple[str, int | None, float | None]:
    """(output shown to the model, exit code, duration in seconds) of a call output."""
    if text.startswith("{"):
        try:
            doc = orjson.loads(text)
        except orjson.JSONDecodeError:
            doc = None
        if isinstance(doc, dict) and "output" in doc:
            raw_meta = doc.get("metadata")
            meta: JsonObject = raw_meta if isinstance(raw_meta, dict) else {}
            output = doc["output"] if isinstance(doc["output"], str) else ""
            return (
                output,
                None if (exit_raw := _number(meta.get("exit_code"))) is None else int(exit_raw),
                None if (took := _number(meta.get("duration_seconds"))) is None else float(took),
            )
    head, sep, body = text.partition("Output:\n")
    if not sep:
        head, body = text[:500], text
    wall = _WALL.search(head)
    code = _EXIT.search(head)
    return (
        body,
        int(code.group(1)) if code else None,
        float(wall.group(1)) if wall else None,
    )


def harness_failure(body: str) -> str | None:
    """'error', 'rejected' or 'interrupted' when the output is the harness saying the call
    did not run (or failed to), else None. Only for outputs that carry no exit code."""
    head = body.lstrip()[:200]
    for pattern, kind in HARNESS_FAILURES:
        if pattern.match(head):
            return kind
    return None


def _embedded_exit(body: str) -> int | None:
    match = _EMBEDDED_EXIT.search(body[:2000])
    return int(match.group(1)) if match else None


def _number(value: object) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


# ---------------------------------------------------------------- legacy one-document rollouts


class LegacyRolloutParser:
    """A TypeScript-CLI rollout ``rollout-<date>-<id>.json``: one ``{session, items}``
    document, which the loader hands over as line 1 (the whole document is one line: a value
    that does not fit takes all of it back out, as a bad line does in a JSONL file).

    Its rows are numbered by position in the document: 1 is ``session``, k + 1 is item k;
    ``lines`` says how many there were. Items have no time of their own, so each gets the
    session's timestamp. Items are Responses-API items (``message``, ``function_call``,
    ``function_call_output``) or, in forks that talk to chat-completions servers, chat
    messages (``role`` user/assistant/tool, assistant ``tool_calls``, tool ``tool_call_id``);
    both are read. The chain of item identities starts at the first item, so a file that
    begins with an earlier file's history shares those items' uuids
    (``int_events_deduplicated``). The price: two unrelated documents that open with the very
    same messages share those messages (the first call, with its unique id, ends the
    sharing), so only such leading messages can be taken for a replay.
    Raises ValueError on a document of the wrong shape.
    """

    def __init__(self, batch: Batch, file_id: int) -> None:
        self.batch = batch
        self.file_id = file_id
        self.lines = 0

    def line(self, line_no: int, record: JsonObject) -> None:
        session = record.get("session")
        if not isinstance(session, dict):
            raise ValueError(NOT_A_ROLLOUT)
        items = record.get("items")
        if not isinstance(items, list):
            raise ValueError("rollout document without an items list")
        ts = session.get("timestamp")
        parser = CodexFileParser(self.batch, self.file_id, {})
        parser.line(line_no, {"timestamp": ts, "type": "session_meta", "payload": session})
        parser.ctx["chain"] = ""
        for number, item in enumerate(items, start=line_no + 1):
            parser.legacy_item(number, ts, item)
        self.lines = len(items) + 1


NOT_A_ROLLOUT = "not a {session, items} rollout document"


def _responses_items(item: object) -> list[JsonObject]:
    """The Responses-API items of one legacy item (a chat message may hold several)."""
    if not isinstance(item, dict):
        return [{"type": None}]
    if "type" in item or "role" not in item:
        return [item]
    role = item.get("role")
    if role == "tool":
        return [
            {"type": "function_call_output", "call_id": _str(item.get("tool_call_id")),
             "output": item.get("content")}
        ]  # fmt: skip
    raw_calls = item.get("tool_calls")
    calls: list[Any] = raw_calls if isinstance(raw_calls, list) else []
    out: list[JsonObject] = []
    if item.get("content") or not calls:
        out.append({"type": "message", "role": role, "content": item.get("content")})
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            out.append(
                {"type": "function_call", "name": _str(function.get("name")),
                 "arguments": function.get("arguments"), "call_id": _str(call.get("id"))}
            )  # fmt: skip
    return out


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
