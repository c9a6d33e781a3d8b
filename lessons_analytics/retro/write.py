"""The outputs of a retro pass: ``signals.jsonl`` (one signal a line) and ``digest.md``
(the clusters for the judge). Never inside a ``LESSONS/`` folder."""

from __future__ import annotations

from pathlib import Path

import orjson

from lessons_analytics.errors import LessonsAnalyticsError
from lessons_analytics.markup import md_code, md_link, md_text
from lessons_analytics.redact import redact, redact_tree
from lessons_analytics.retro.model import KINDS, Cluster, RetroResult, Signal
from lessons_analytics.retro.text import one_line as _one_line

SHOWN_SIGNALS = 6


class RetroOutputError(LessonsAnalyticsError):
    """The output folder cannot be used (inside a lesson base, or not writable)."""


def check_out_dir(out_dir: Path) -> Path:
    resolved = out_dir.expanduser().resolve()
    if any(part == "LESSONS" for part in resolved.parts):
        raise RetroOutputError(f"{out_dir}: retro never writes into a LESSONS/ folder")
    return resolved


def write_retro(result: RetroResult, out_dir: Path) -> dict[str, Path]:
    """Write ``signals.jsonl`` and ``digest.md`` into ``out_dir`` (created); their paths."""
    out = check_out_dir(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        signals = out / "signals.jsonl"
        ordered = [s for c in result.clusters for s in c.signals]
        signals.write_bytes(
            b"".join(orjson.dumps(redact_tree(s.as_dict())) + b"\n" for s in ordered)
        )
        digest = out / "digest.md"
        digest.write_text(digest_text(result), encoding="utf-8")
    except OSError as exc:
        where = exc.filename or out_dir
        raise RetroOutputError(
            f"{where}: cannot write the retro outputs: {exc.strerror or exc}"
        ) from exc
    return {"signals": signals, "digest": digest}


def digest_text(result: RetroResult) -> str:
    due = [c for c in result.clusters if c.verdict_due(result.generated_at)]
    ready = [c for c in result.clusters if c.status == "candidate-ready" and c not in due]
    single = [c for c in result.clusters if c.status != "candidate-ready"]
    lines = [
        f"# Retro digest, {result.generated_at:%Y-%m-%d}",
        "",
        f"{len(result.signals)} signals in {len(result.clusters)} clusters, ranked by "
        f"independent cases (distinct sessions; a commit for git): **{len(due)} ready for a "
        f"verdict** (three or more cases, or two first seen over 14 days ago), "
        f"**{len(ready)} candidate-ready** (two cases: the judge may promote), "
        f"{len(single)} for quarantine (one case).",
        "",
        _scope(result),
        "",
        "Collected, not judged: nothing here has been written into any `LESSONS/` folder. "
        "Every quote is verbatim (secrets redacted) and links to its transcript line or "
        "commit; `signals.jsonl` holds every signal.",
        "",
    ]
    if result.warnings:
        lines += ["Warnings:", *[f"- {md_text(redact(w))}" for w in result.warnings], ""]
    lines += ["## Ready for a verdict", ""]
    lines += _section(due, 1) or ["None.", ""]
    lines += ["## Candidate-ready", ""]
    lines += _section(ready, len(due) + 1) or ["None.", ""]
    lines += ["## Quarantine (one case each)", ""]
    lines += _section(single, len(due) + len(ready) + 1) or ["None.", ""]
    lines += ["## Signal kinds", ""]
    lines += [f"- {md_code(kind)}: {md_text(text)}" for kind, text in KINDS.items()]
    return "\n".join(lines) + "\n"


def _scope(result: RetroResult) -> str:
    parts = [f"since {result.since:%Y-%m-%d}" if result.since else "all history"]
    parts.append("bases: " + (", ".join(_code(b) for b in result.bases) or "all"))
    parts.append("repositories: " + (", ".join(_code(r) for r in result.repos) or "none"))
    counts: dict[str, int] = {}
    for signal in result.signals:
        counts[signal.kind] = counts.get(signal.kind, 0) + 1
    found = ", ".join(f"{n} {md_text(k)}" for k, n in counts.items()) or "no signals"
    return "Scope: " + "; ".join(parts) + f". Found: {found}."


def _section(clusters: list[Cluster], start: int) -> list[str]:
    lines: list[str] = []
    for number, cluster in enumerate(clusters, start=start):
        lines += _cluster(number, cluster)
    return lines


def _cluster(number: int, cluster: Cluster) -> list[str]:
    cases = cluster.independent_cases
    lines = [
        f"### {number}. {_text(cluster.title)}",
        "",
        f"{_code(cluster.cluster_id)} · {_text(', '.join(cluster.kinds))} · {cases} independent"
        f" case{'s' if cases != 1 else ''} · {len(cluster.signals)} signal"
        f"{'s' if len(cluster.signals) != 1 else ''}",
        "",
        f"Suggested target: {_text(cluster.suggested_target)}.",
        f"Why together: {_text(cluster.shared_key)}.",
    ]
    if cluster.match:
        m = cluster.match
        triggers = ", ".join(_text(t) for t in m.triggers)
        shared = f" (shared triggers: {triggers})" if m.triggers else ""
        lines.append(
            f"Possible facet of **{_text(m.lesson_id)}** ({_text(m.status)}, "
            f"{_code(m.base_path)}): “{one_line(m.target, 140)}”{shared}. "
            "Add a hit there rather than a new lesson."
        )
    else:
        lines.append("Facet of: no existing lesson matches.")
    lines.append("")
    for signal in cluster.signals[:SHOWN_SIGNALS]:
        lines.append(_signal_line(signal))
    if len(cluster.signals) > SHOWN_SIGNALS:
        lines.append(f"- … and {len(cluster.signals) - SHOWN_SIGNALS} more in signals.jsonl")
    lines.append("")
    return lines


def _signal_line(signal: Signal) -> str:
    when = f"{signal.ts:%Y-%m-%d %H:%M}" if signal.ts else "undated"
    if signal.commit:
        where = _text(f"{Path(signal.repo or '').name}@{signal.commit[:10]}")
        who = ""
    else:
        where = md_link(
            f"{Path(signal.file or '').name}:{signal.line}", f"{signal.file}#L{signal.line}"
        )
        who = f" · session {_code((signal.session_id or '?')[:8])}"
    extra = _extra(signal)
    said = signal.quote
    if signal.kind == "rejected_tool_use" and signal.detail.get("reason"):
        # the refusal's own text is the harness's boilerplate; the user's reason is the news
        said = str(signal.detail["reason"])
        at = str(signal.detail.get("reason_at") or "")
        if signal.detail.get("reason_from") == "next_turn" and ":" in at:
            path, line = at.rsplit(":", 1)
            extra += f" · said at {md_link(f'{Path(path).name}:{line}', f'{path}#L{line}')}"
    text = f"- {when}{who} · {where} · “{one_line(said, 300)}”{extra}"
    if signal.context and signal.context != said:
        text += f"\n  then the user: “{one_line(signal.context, 200)}”"
    return text


def _extra(signal: Signal) -> str:
    d = signal.detail
    if signal.kind == "repeated_failure":
        what = d.get("command") or d.get("target_path") or ""
        tool = "" if d.get("command") else f"{_text(d.get('tool_name'))} "
        return f" · failed {_text(d.get('count'))}× ({tool}{_code(what, 80)})"
    if signal.kind == "gate_rejection" and d.get("rework_s") is not None:
        until = (
            "until the next accepted review"
            if d.get("rework_until") == "accepted"
            else ("until the session ended")
        )
        return f" · rework {d['rework_s'] / 60:.0f} min {until}"
    if signal.kind in ("interrupt", "rejected_tool_use") and d.get("command"):
        return f" · {_code(d['command'], 80)}"
    if signal.kind in ("interrupt", "rejected_tool_use") and d.get("target_path"):
        return f" · {_text(d.get('tool_name'))} {_code(d['target_path'])}"
    if signal.kind == "revert" and d.get("reverts"):
        return f" · reverts {_text(str(d['reverts'])[:10])}"
    if signal.kind == "fix_commit" and d.get("fixes"):
        fixed = ", ".join(_text(str(s)[:10]) for s in d["fixes"])
        return f" · fixes {fixed} ({_text(d.get('hours_after'))} h later)"
    return ""


# Every piece of data in the digest passes through one of these three: redacted first (before
# any cut, so a cut never splits a secret out of its pattern), then escaped for Markdown.


def one_line(text: object, limit: int) -> str:
    """``text`` redacted, cut to one line of ``limit`` characters, escaped for Markdown."""
    return md_text(_one_line(redact(str(text or "")), limit))


def _text(value: object) -> str:
    return md_text(redact("" if value is None else str(value)))


def _code(value: object, limit: int | None = None) -> str:
    clean = redact("" if value is None else str(value))
    return md_code(_one_line(clean, limit) if limit else clean)
