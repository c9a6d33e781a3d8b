"""Signal detectors over the marts: corrections, interrupts, rejected tool uses, repeated
failures and gate rejections. Each takes the rows of one ``queries/retro_*.sql`` query."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson

from lessons_analytics.retro import text as tx
from lessons_analytics.retro.corrections import (
    _AFTER_INTERRUPT,
    _ECHO,
    Row,
    Turns,
    _no_reason,
    _transcript_signal,
    asks_question,
    correction_family,
    corrections,
    not_human,
    said,
)
from lessons_analytics.retro.lines import last_assistant_text, result_texts
from lessons_analytics.retro.model import Signal
from lessons_analytics.retro.patterns import Patterns, any_match

__all__ = [
    "Turns",
    "agent_label",
    "asks_question",
    "correction_family",
    "corrections",
    "gate_rejections",
    "interrupts",
    "last_assistant_text",
    "not_human",
    "rejections",
    "repeated_failures",
    "result_texts",
    "said",
    "short_path",
    "verdict_of",
]

_AGENT_TAIL = re.compile(r"\n(?=agentId: [0-9a-f]+)")


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


_REASON = re.compile(
    r"the user provided the following reason for the rejection:\s*(.+)", re.I | re.S
)
_PLAN_TOOLS = {"ExitPlanMode", "exit_plan_mode"}
# A question back with a negation pushes back ("I don't think we need to loop ...?").
_PUSHBACK = re.compile(r"\b(not|no|never|instead|rather|\w+n'?t|не|нет|вместо|зачем)\b", re.I)


def rejection_reason(call: Row, turns: Turns, pats: Patterns) -> tuple[str | None, str, str]:
    """Why the user refused a call: the reason typed into the refusal, else their next words
    within two minutes when those say something ("ok", "wait", "продолжай" say nothing, a
    question asks); where it came from (``refusal`` / ``next_turn`` / ``none``) and the
    ``file:line`` it was read from."""
    match = _REASON.search(call["result_head"] or "")
    if match and match.group(1).strip():
        reason = tx.quote(tx.redacted(match.group(1).strip()), 0, pats.quote_chars)
        return reason, "refusal", f"{call['result_file']}:{call['result_line']}"
    row = turns.next_turn(call["agent_run_id"], call["result_at"], _AFTER_INTERRUPT)
    after = said(row) if row else None
    # a question back ("do you know what speckit is?") asks, it does not give a reason,
    # unless it pushes back
    if (
        row
        and after
        and not _no_reason(after, pats)
        and (
            not asks_question(after)
            or _PUSHBACK.search(after)
            or correction_family(after, pats) is not None
        )
    ):
        where = f"{row['file_path']}:{row['line_no']}" if row.get("file_path") else ""
        return after, "next_turn", where
    return None, "none", ""


def rejections(calls: list[Row], turns: Turns, pats: Patterns) -> list[Signal]:
    """Refused tool calls that say something went wrong. A permission prompt refused
    without a reason is the user's choice, not a failure; a declined plan is plan mode
    working, so it counts only when the user's reason corrects the agent ("no, don't
    rewrite the pager")."""
    out = []
    for call in calls:
        if not call["is_rejected"] or call["is_interrupt"]:
            continue
        reason, source, where = rejection_reason(call, turns, pats)
        if reason is None:
            continue
        if call["tool_name"] in _PLAN_TOOLS and correction_family(reason, pats) is None:
            continue
        signal = _call_signal(call, "rejected_tool_use", turns, pats)
        signal.context = reason
        signal.detail.update({"reason": reason, "reason_from": source, "reason_at": where})
        out.append(signal)
    return out


# ---------------------------------------------------------------- repeated failures


_SEARCHES = {"grep", "rg", "ag", "ack", "egrep", "fgrep", "test", "[", "diff", "cmp"}


def _failure_head(call: Row) -> str | None:
    """What failed, as compared within a run and clustered across runs: the program a
    command runs (``pytest`` for ``uv run pytest tests/a.py -k x``), else the tool (an Edit
    on any file)."""
    if call.get("command"):
        return tx.program(call["command"])
    if call.get("target_path") or call.get("tool_name"):
        return str(call["tool_name"] or "tool")
    return None


def repeated_failures(calls: list[Row], pats: Patterns) -> list[Signal]:
    """One signal per (run, program or tool, kind of error) that failed ``repeat_min`` times
    or more: retrying with other arguments is still the same failure, the same command
    failing for another reason is another. The error is read from the whole result in the
    transcript (the warehouse keeps only its head, often a banner)."""
    failed = [c for c in calls if c["is_error"] and not c["is_interrupt"] and not c["is_rejected"]]
    results = result_texts([(c["result_file"], c["result_line"]) for c in failed])
    groups: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
    for call in failed:
        head = _failure_head(call)
        if head is None:
            continue
        full = results.get((call["result_file"], call["result_line"])) or call["result_head"]
        if head in _SEARCHES and not tx.error_line(full):
            continue  # a search finding nothing exits 1: an answer, not a failure
        call = {**call, "result_text": full}
        error = tx.error_line(full)
        groups[(call["agent_run_id"], head, tx.error_class(error))].append(call)
    out = []
    for (_, head, error_class), items in groups.items():
        if len(items) < pats.repeat_min:
            continue
        first = items[0]
        error = tx.error_line(first["result_text"])
        clean = tx.redacted(first["result_text"])
        at = clean.find(tx.redacted(error)) if error else 0
        detail = _call_detail(first)
        detail.update(
            {
                "program": head,
                "exit_code": first.get("exit_code"),
                "count": len(items),
                "error_line": tx.one_line(tx.redacted(error), 200),
                "error_class": error_class,
                "variants": sorted(
                    {
                        tx.one_line(
                            tx.redacted(c.get("command") or c.get("target_path") or ""), 120
                        )
                        for c in items
                    }
                ),
                "occurrences": [f"{c['result_file']}:{c['result_line']}" for c in items],
            }
        )
        out.append(
            Signal(
                kind="repeated_failure",
                mechanism=("repeated_failure", head, error_class),
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


def _verdict(row: Row) -> tuple[str | None, str | None, int | None]:
    if row.get("result_head"):
        # 2.1.x appends an ``agentId: …`` block (a separate text block) to the answer
        head = _AGENT_TAIL.split(row["result_head"], maxsplit=1)[0]
        return head, row["result_file"], row["result_line"]
    text = last_assistant_text(row.get("last_agent_file"), row.get("last_agent_line"))
    return text, row.get("last_agent_file"), row.get("last_agent_line")


def verdict_of(head: str, pats: Patterns) -> tuple[bool, bool]:
    """(rejected, accepted) for a reviewer's answer: whichever verdict it states first wins,
    so "APPROVE. Nit: the docstring needs changes later" is an approval."""
    reject = _first(pats.reject, head)
    accept = _first(pats.accept, head)
    if reject is not None and (accept is None or reject < accept):
        return True, False
    return False, accept is not None


def _first(patterns: list[re.Pattern[str]], text: str) -> int | None:
    starts = [m.start() for p in patterns if (m := p.search(text))]
    return min(starts) if starts else None


def gate_rejections(spawns: list[Row], pats: Patterns) -> list[Signal]:
    """Reviewer or gate subagents whose verdict returns the work, with the time the rework
    loop took: to the next accepting review in the session, or to the session's end."""
    reviews = []
    for row in spawns:
        if not _is_reviewer(row, pats):
            continue
        verdict, file, line = _verdict(row)
        rejected, accepted = verdict_of((verdict or "")[:400], pats)
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
