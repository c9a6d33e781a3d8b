"""Signal detectors over the marts: corrections, interrupts, rejected tool uses, repeated
failures and gate rejections. Each takes the rows of one ``queries/retro_*.sql`` query."""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from lessons_analytics.retro import text as tx
from lessons_analytics.retro.model import Signal
from lessons_analytics.retro.patterns import Patterns, any_match

Row = dict[str, Any]
_FOLLOW_UP = timedelta(minutes=10)
_ECHO = timedelta(seconds=60)
_AGENT_TAIL = re.compile(r"\n(?=agentId: [0-9a-f]+)")


# ---------------------------------------------------------------- human turns


class Turns:
    """The human turns of each main run, in order, to find what the user said next."""

    def __init__(self, rows: list[Row], pats: Patterns) -> None:
        self.by_run: dict[str, list[Row]] = defaultdict(list)
        for row in rows:
            if row["ts"] is not None and not _not_human(row["text"], pats):
                self.by_run[row["agent_run_id"]].append(row)
        self.stamps = {run: [r["ts"] for r in items] for run, items in self.by_run.items()}

    def after(self, run: str | None, ts: datetime | None) -> str | None:
        """The user's next words in ``run`` within ten minutes after ``ts``, redacted."""
        if run is None or ts is None or run not in self.by_run:
            return None
        index = bisect.bisect_right(self.stamps[run], ts)
        if index >= len(self.by_run[run]):
            return None
        row = self.by_run[run][index]
        if row["ts"] - ts > _FOLLOW_UP:
            return None
        body, _ = tx.strip_leading_tags(tx.redacted(row["text"]))
        return tx.quote(body) or None


def _not_human(text: str, pats: Patterns) -> bool:
    body, _ = tx.strip_leading_tags(text or "")
    return not body.strip() or any_match(pats.not_human, body) is not None


def correction_family(text: str, pats: Patterns) -> tuple[str, int] | None:
    """The family of the first correcting sentence of a human turn and its offset, or None.

    A sentence with a look-alike ("no problem", "again, thanks!") never counts."""
    for offset, sentence in tx.sentences(text):
        if any_match(pats.lookalikes, sentence):
            continue
        for family, patterns in pats.corrections.items():
            if any_match(patterns, sentence):
                return family, offset
    return None


def corrections(rows: list[Row], pats: Patterns) -> list[Signal]:
    out = []
    for row in rows:
        if not row["is_after_agent"] or _not_human(row["text"], pats):
            continue
        # the quote comes from the human's own words, not the harness tags before them
        body, _ = tx.strip_leading_tags(tx.redacted(row["text"]))
        found = correction_family(body, pats)
        if found is None:
            continue
        family, offset = found
        out.append(
            _transcript_signal(
                row,
                "correction",
                ("correction", family),
                tx.quote(body, offset, pats.quote_chars),
                detail={"family": family},
            )
        )
    return out


def _transcript_signal(
    row: Row, kind: str, mechanism: tuple[str, ...], quote: str, **extra: Any
) -> Signal:
    return Signal(
        kind=kind,
        mechanism=mechanism,
        quote=quote,
        session_id=row["session_id"],
        agent_run_id=row["agent_run_id"],
        runtime=row.get("runtime"),
        ts=row["ts"],
        file=row.get("file_path"),
        line=row.get("line_no"),
        **extra,
    )


# ---------------------------------------------------------------- interrupts and rejections


def _call_target(call: Row) -> str:
    if call.get("command"):
        return tx.command_signature(call["command"])
    if call.get("target_path"):
        return short_path(str(call["target_path"]))
    return ""


def short_path(path: str) -> str:
    """The last two parts of a path (``deploy/config.toml``): the same file edited from
    different working directories clusters together."""
    return "/".join(Path(path).parts[-2:])


def _call_detail(call: Row) -> dict[str, Any]:
    detail: dict[str, Any] = {"tool_name": call["tool_name"]}
    if call.get("command"):
        detail["command"] = tx.one_line(tx.redacted(call["command"]), 200)
    if call.get("target_path"):
        detail["target_path"] = call["target_path"]
    detail["call"] = f"{call['transcript_file']}:{call['call_line']}"
    return detail


def _call_signal(call: Row, kind: str, turns: Turns, pats: Patterns) -> Signal:
    target = _call_target(call)
    return Signal(
        kind=kind,
        mechanism=(kind, call["tool_name"] or "tool", *([target] if target else [])),
        quote=tx.quote(tx.redacted(call["result_head"]), 0, pats.quote_chars),
        session_id=call["session_id"],
        agent_run_id=call["agent_run_id"],
        runtime=call.get("runtime"),
        ts=call["result_at"] or call["called_at"],
        file=call["result_file"],
        line=call["result_line"],
        context=turns.after(call["agent_run_id"], call["result_at"]),
        detail=_call_detail(call),
    )


def interrupts(texts: list[Row], calls: list[Row], turns: Turns, pats: Patterns) -> list[Signal]:
    """Interrupted tool calls, and interrupt lines that no interrupted call explains."""
    out = [_call_signal(c, "interrupt", turns, pats) for c in calls if c["is_interrupt"]]
    explained = defaultdict(list)
    for call in calls:
        # a refused call is echoed as "[Request interrupted by user for tool use]" too
        if (call["is_interrupt"] or call["is_rejected"]) and call["result_at"] is not None:
            explained[call["agent_run_id"]].append(call["result_at"])
    for row in texts:
        if not any_match(pats.interrupt, row["text"] or ""):
            continue
        near = explained.get(row["agent_run_id"], [])
        if row["ts"] is not None and any(timedelta(0) <= row["ts"] - t <= _ECHO for t in near):
            continue  # the harness echoes a tool interrupt as a user line right after it
        out.append(
            _transcript_signal(
                row,
                "interrupt",
                ("interrupt", "turn"),
                tx.quote(tx.redacted(row["text"]), 0, pats.quote_chars),
                context=turns.after(row["agent_run_id"], row["ts"]),
                detail={"tool_name": None},
            )
        )
    return out


def rejections(calls: list[Row], turns: Turns, pats: Patterns) -> list[Signal]:
    return [
        _call_signal(c, "rejected_tool_use", turns, pats)
        for c in calls
        if c["is_rejected"] and not c["is_interrupt"]
    ]


# ---------------------------------------------------------------- repeated failures


def repeated_failures(calls: list[Row], pats: Patterns) -> list[Signal]:
    """One signal per (run, command, error line) that failed ``repeat_min`` times or more."""
    groups: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
    for call in calls:
        if not call["is_error"] or call["is_interrupt"] or call["is_rejected"]:
            continue
        if call.get("command"):
            what = tx.command_norm(call["command"])
        elif call.get("target_path"):
            what = f"{call['tool_name']} {call['target_path']}"
        else:
            continue
        error = tx.error_line(call["result_head"])
        groups[(call["agent_run_id"], what, tx.error_norm(error))].append(call)
    out = []
    for (_, _, _), items in groups.items():
        if len(items) < pats.repeat_min:
            continue
        first = items[0]
        error = tx.error_line(first["result_head"])
        head = (
            tx.command_signature(first["command"])
            if first.get("command")
            else (f"{first['tool_name']} {Path(first['target_path']).name}")
        )
        clean = tx.redacted(first["result_head"])
        at = clean.find(error) if error else 0
        detail = _call_detail(first)
        detail.update(
            {
                "count": len(items),
                "error_line": tx.one_line(tx.redacted(error), 200),
                "error_class": tx.error_class(error),
                "occurrences": [f"{c['result_file']}:{c['result_line']}" for c in items],
            }
        )
        out.append(
            Signal(
                kind="repeated_failure",
                mechanism=("repeated_failure", head, tx.error_class(error)),
                quote=tx.quote(clean, max(at, 0), pats.quote_chars),
                session_id=first["session_id"],
                agent_run_id=first["agent_run_id"],
                runtime=first.get("runtime"),
                ts=first["result_at"] or first["called_at"],
                file=first["result_file"],
                line=first["result_line"],
                detail=detail,
            )
        )
    return out


# ---------------------------------------------------------------- gate rejections


def _spawn_input(row: Row) -> dict[str, Any]:
    try:
        value = orjson.loads(row["input_json"] or "{}")
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def agent_label(row: Row) -> str:
    spec = _spawn_input(row)
    for value in (
        row.get("agent_type"),
        spec.get("subagent_type"),
        spec.get("name"),
        row.get("description"),
        spec.get("description"),
    ):
        if isinstance(value, str) and value.strip():
            return value.strip().lower()
    return "subagent"


def _is_reviewer(row: Row, pats: Patterns) -> bool:
    spec = _spawn_input(row)
    prompt = spec.get("prompt")
    words = [
        row.get("agent_type"),
        row.get("description"),
        spec.get("subagent_type"),
        spec.get("description"),
        spec.get("name"),
        prompt[:400] if isinstance(prompt, str) else None,
    ]
    return any_match(pats.reviewers, " \n".join(w for w in words if isinstance(w, str))) is not None


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
    content = (record.get("message") or {}).get("content") if isinstance(record, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        return "\n".join(p for p in parts if isinstance(p, str)) or None
    return None


def _verdict(row: Row) -> tuple[str | None, str | None, int | None]:
    if row.get("result_head"):
        # 2.1.x appends an ``agentId: …`` block (a separate text block) to the answer
        head = _AGENT_TAIL.split(row["result_head"], maxsplit=1)[0]
        return head, row["result_file"], row["result_line"]
    text = last_assistant_text(row.get("last_agent_file"), row.get("last_agent_line"))
    return text, row.get("last_agent_file"), row.get("last_agent_line")


def gate_rejections(spawns: list[Row], pats: Patterns) -> list[Signal]:
    """Reviewer or gate subagents whose verdict returns the work, with the time the rework
    loop took: to the next accepting review in the session, or to the session's end."""
    reviews = []
    for row in spawns:
        if not _is_reviewer(row, pats):
            continue
        verdict, file, line = _verdict(row)
        head = (verdict or "")[:400]
        rejected = any_match(pats.reject, head) is not None
        accepted = not rejected and any_match(pats.accept, head) is not None
        reviews.append((row, verdict, file, line, rejected, accepted))
    out = []
    for i, (row, verdict, file, line, rejected, _) in enumerate(reviews):
        if not rejected:
            continue
        at = row["result_at"] or row["called_at"]
        until, end = row.get("session_ended_at"), "session_end"
        for later in reviews[i + 1 :]:
            if later[0]["session_id"] == row["session_id"] and later[5]:
                until, end = later[0]["result_at"] or later[0]["called_at"], "accepted"
                break
        rework = (until - at).total_seconds() if until is not None and at is not None else None
        clean = tx.redacted(verdict)
        label = agent_label(row)
        out.append(
            Signal(
                kind="gate_rejection",
                mechanism=("gate_rejection", label),
                quote=tx.quote(clean, 0, pats.quote_chars),
                session_id=row["session_id"],
                agent_run_id=row["spawned_run_id"] or row["agent_run_id"],
                runtime="claude",
                ts=at,
                file=file,
                line=line,
                detail={
                    "agent": label,
                    "verdict": tx.one_line(clean, 120),
                    "rework_s": rework,
                    "rework_until": end,
                    "spawned_by": f"{row['transcript_file']}:{row['call_line']}",
                },
            )
        )
    return out
