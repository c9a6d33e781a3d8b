"""Human turns and the corrections in them: the user's own words (not quotes, pastes or
harness text), look-alikes, answers to the agent's questions, repeats of an earlier
correction, and the words right after an interrupt."""

from __future__ import annotations

import bisect
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from lessons_analytics.retro import text as tx
from lessons_analytics.retro.lines import last_assistant_text
from lessons_analytics.retro.model import Signal
from lessons_analytics.retro.patterns import Patterns, any_match

Row = dict[str, Any]
_FOLLOW_UP = timedelta(minutes=10)
_ECHO = timedelta(seconds=60)


# ---------------------------------------------------------------- human turns


class Turns:
    """The human turns of each main run, in order, to find what the user said next."""

    def __init__(self, rows: list[Row], pats: Patterns) -> None:
        self.by_run: dict[str, list[Row]] = defaultdict(list)
        for row in rows:
            if row["ts"] is not None and not not_human(row["text"], pats):
                self.by_run[row["agent_run_id"]].append(row)
        self.stamps = {run: [r["ts"] for r in items] for run, items in self.by_run.items()}

    def next_turn(
        self, run: str | None, ts: datetime | None, within: timedelta = _FOLLOW_UP
    ) -> Row | None:
        """The user's next turn in ``run`` within ``within`` after ``ts``."""
        if run is None or ts is None or run not in self.by_run:
            return None
        index = bisect.bisect_right(self.stamps[run], ts)
        if index >= len(self.by_run[run]):
            return None
        row = self.by_run[run][index]
        return row if row["ts"] - ts <= within else None

    def after(
        self, run: str | None, ts: datetime | None, within: timedelta = _FOLLOW_UP
    ) -> str | None:
        """The user's next words in ``run`` within ``within`` after ``ts``, redacted."""
        row = self.next_turn(run, ts, within)
        return said(row) if row else None


def said(row: Row) -> str | None:
    """A human turn's own words, redacted: without leading harness tags or IDE wrapper."""
    body, _ = tx.strip_leading_tags(tx.redacted(row["text"]))
    return tx.quote(tx.after_wrapper(body)) or None


def not_human(text: str, pats: Patterns) -> bool:
    body, _ = tx.strip_leading_tags(text or "")
    return not body.strip() or any_match(pats.not_human, body) is not None


def correction_family(
    text: str, pats: Patterns, after_question: bool = False
) -> tuple[str, int] | None:
    """The family of the first correcting sentence of a human turn and its offset, or None.

    Only the user's own words count: quoted reviews, pasted logs and code are blanked
    first. A sentence with a look-alike ("no problem", "again, thanks!", "the test is
    wrong") never counts; a turn where the user corrects their own earlier words ("my
    mistake, the port is 8081") never counts. After a question of the agent, an answer
    ("no, the other one") is not a correction: the ``answer_families`` do not count."""
    own = tx.own_words(text, pats.paste_headers)
    if any_match(pats.self_corrections, own):
        return None
    for offset, sentence in tx.sentences(own):
        if any_match(pats.lookalikes, sentence) or any_match(pats.reported, sentence):
            continue
        for family, patterns in pats.corrections.items():
            if after_question and family in pats.answer_families:
                continue
            if any_match(patterns, sentence):
                return family, offset
    return None


def asks_question(text: str | None) -> bool:
    """Whether the agent's words end by asking the user something."""
    sentences = tx.sentences((text or "").strip())
    return bool(sentences) and sentences[-1][1].rstrip(" *_`)").endswith("?")


# A correction repeats an earlier one of the session when it shares this share of the
# earlier one's topic words, and at least two of them.
_REPEAT_SHARE = 0.5
_AFTER_INTERRUPT = timedelta(minutes=2)


def corrections(
    rows: list[Row], pats: Patterns, interrupts: list[Row] | None = None
) -> list[Signal]:
    """Human turns that correct the agent: by their wording, by repeating an earlier
    correction of the session (wording or not), or by coming right after the user
    interrupted the agent (the words say why)."""
    out = []
    earlier: dict[str, list[tuple[set[str], Signal]]] = defaultdict(list)
    stops = _interrupt_times(rows, interrupts or [], pats)
    for row in rows:
        if not row["is_after_agent"] or not_human(row["text"], pats):
            continue
        # the quote comes from the human's own words, not the harness tags before them
        body, _ = tx.strip_leading_tags(tx.redacted(row["text"]))
        body = tx.after_wrapper(body)
        found = correction_family(body, pats)
        asked = False
        if found is not None and found[0] in pats.answer_families:
            # only then is the agent's last text worth reading from its transcript
            said = last_assistant_text(row.get("prev_agent_file"), row.get("prev_agent_line"))
            asked = asks_question(said)
            if asked:
                found = correction_family(body, pats, after_question=True)
        own = tx.own_words(body, pats.paste_headers)
        words = tx.topic_words(own)
        after_stop = _take_stop(row, stops)
        repeats = None
        if found is None and not any_match(pats.self_corrections, own) and _short(own):
            repeats = _repeated(words, earlier[row["session_id"] or ""])
            if repeats is not None:
                found = ("repeat", 0)
            elif after_stop and not _no_reason(body, pats):
                found = ("after-interrupt", 0)
        if found is None:
            continue
        family, offset = found
        detail: dict[str, Any] = {"family": family, "after_question": asked}
        if repeats is not None:
            detail["repeats"] = repeats.signal_id
        signal = _transcript_signal(
            row,
            "correction",
            ("correction", family),
            tx.quote(body, offset, pats.quote_chars),
            detail=detail,
        )
        earlier[row["session_id"] or ""].append((words, signal))
        out.append(signal)
    return out


# A repeated correction is a short reply; a long turn sent twice is a re-sent prompt.
_REPEAT_CHARS = 500


def _short(text: str) -> bool:
    return 0 < len(text.strip()) <= _REPEAT_CHARS


def _repeated(words: set[str], before: list[tuple[set[str], Signal]]) -> Signal | None:
    for seen, signal in before:
        shared = words & seen
        if len(shared) >= 2 and len(shared) >= _REPEAT_SHARE * len(seen):
            return signal
    return None


def _interrupt_times(
    rows: list[Row], calls: list[Row], pats: Patterns
) -> dict[str, list[datetime]]:
    out: dict[str, list[datetime]] = defaultdict(list)
    refused = defaultdict(list)
    for call in calls:
        if call["is_rejected"] and call["result_at"] is not None:
            refused[call["agent_run_id"]].append(call["result_at"])
    for row in rows:
        if row["ts"] is None or not any_match(pats.interrupt, row["text"] or ""):
            continue
        near = refused.get(row["agent_run_id"], [])
        if any(timedelta(0) <= row["ts"] - t <= _ECHO for t in near):
            continue  # the echo of a refused call: what follows is the refusal's reason
        out[row["agent_run_id"]].append(row["ts"])
    for call in calls:
        at = call["result_at"] or call["called_at"]
        if call["is_interrupt"] and at is not None:
            out[call["agent_run_id"]].append(at)
    return out


def _take_stop(row: Row, stops: dict[str, list[datetime]]) -> bool:
    """Whether the turn is the user's first words within two minutes of interrupting the
    agent (that interrupt is then used up)."""
    ts, pending = row["ts"], stops.get(row["agent_run_id"], [])
    hit = [t for t in pending if ts is not None and timedelta(0) < ts - t <= _AFTER_INTERRUPT]
    for t in hit:
        pending.remove(t)
    return bool(hit)


def _no_reason(text: str, pats: Patterns) -> bool:
    body = text.strip()
    return (
        not body
        or any_match(pats.no_reason, body) is not None
        or all(any_match(pats.lookalikes, s) for _, s in tx.sentences(body))
    )


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
