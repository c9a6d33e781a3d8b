"""The bundled demo workspace: deterministic, well-formed, and carrying the phenomena."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from lessons_analytics.demo import DemoWorkspace, build_demo
from lessons_analytics.demo.util import slugify_path


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoWorkspace:
    started = time.perf_counter()
    ws = build_demo(tmp_path_factory.mktemp("demo-a"))
    print(f"\ndemo build: {time.perf_counter() - started:.2f} s")
    return ws


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def _jsonl_files(ws: DemoWorkspace) -> list[Path]:
    return sorted([*ws.claude_projects.rglob("*.jsonl"), *ws.codex_sessions.rglob("*.jsonl")])


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _main_sessions(ws: DemoWorkspace) -> list[Path]:
    return [p for p in ws.claude_projects.glob("*/*.jsonl") if not p.name.startswith("agent-")]


def _tree(root: Path) -> dict[str, str]:
    slug = slugify_path(root)
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and ".git" not in path.relative_to(root).parts:
            rel = str(path.relative_to(root)).replace(slug, "<ROOT>")
            out[rel] = (
                path.read_text(encoding="utf-8")
                .replace(str(root), "<ROOT>")
                .replace(slug, "<ROOT>")
            )
    return out


def test_build_is_deterministic(demo: DemoWorkspace, tmp_path: Path) -> None:
    started = time.perf_counter()
    other = build_demo(tmp_path / "elsewhere")
    elapsed = time.perf_counter() - started
    print(f"\nsecond demo build: {elapsed:.2f} s")
    assert elapsed < 10
    assert _tree(demo.root) == _tree(other.root)
    for a, b in zip(demo.repos, other.repos, strict=True):
        assert _git(a, "log", "--format=%H %ad %s") == _git(b, "log", "--format=%H %ad %s")


def test_counts(demo: DemoWorkspace) -> None:
    assert len(_main_sessions(demo)) >= 200
    assert len(list(demo.codex_sessions.rglob("rollout-*.jsonl"))) >= 12
    assert demo.first_day.isoformat() == "2026-10-05" and demo.last_day.isoformat() == "2026-11-29"
    size = sum(
        p.stat().st_size for p in demo.root.rglob("*") if p.is_file() and ".git" not in p.parts
    )
    print(f"\ndemo size: {size / 1e6:.1f} MB")
    assert size < 12e6


def test_every_line_parses_and_files_end_with_newline(demo: DemoWorkspace) -> None:
    for path in _jsonl_files(demo):
        text = path.read_text(encoding="utf-8")
        assert text.endswith("\n"), path
        for n, line in enumerate(text.splitlines(), start=1):
            assert isinstance(json.loads(line), dict), f"{path}:{n}"
    for meta in demo.claude_projects.rglob("*.meta.json"):
        assert {"agentType", "description"} <= set(json.loads(meta.read_text()))


def _base_commits(base: Path) -> list[tuple[datetime, str]]:
    repo = base.parent if base.parent.name != "api" else base.parents[2]
    rel = str(base.relative_to(repo))
    log = _git(repo, "log", "--format=%H %aI", "--", rel)
    return [(datetime.fromisoformat(line.split()[1]), line.split()[0]) for line in log.splitlines()]


def test_base_histories(demo: DemoWorkspace) -> None:
    assert len(demo.bases) >= 3
    for base in demo.bases:
        commits = _base_commits(base)
        # Notes reach INDEX.md at reviews, not one commit each: the small api base has 16.
        assert len(commits) >= 15, base
        span = max(t for t, _ in commits) - min(t for t, _ in commits)
        assert span >= timedelta(weeks=7), (base, span)


def _active_lines(base: Path) -> list[int]:
    repo = base.parent if base.parent.name != "api" else base.parents[2]
    rel = str((base / "INDEX.md").relative_to(repo))
    lines = []
    for _, sha in _base_commits(base):
        text = _git(repo, "show", f"{sha}:{rel}")
        lines.append(text.split("\n").index("## Active") + 1)
    return lines


def test_index_active_heading_drifts(demo: DemoWorkspace) -> None:
    atlas = _active_lines(demo.root / "repos" / "atlas" / "LESSONS")
    assert max(atlas) > 40 and min(atlas) <= 15
    assert atlas[0] <= 15  # newest version: after the week-7 re-layout
    harbor = _active_lines(demo.root / "repos" / "harbor" / "LESSONS")
    assert harbor[0] > 40 and harbor[-1] <= 15


def _session_spans(demo: DemoWorkspace) -> dict[str, tuple[str, str]]:
    spans: dict[str, tuple[str, str]] = {}
    for path in _main_sessions(demo):
        stamps = [r["timestamp"] for r in _records(path) if "timestamp" in r and "sessionId" in r]
        spans[path.stem] = (min(stamps), max(stamps))
    for path in demo.codex_sessions.rglob("rollout-*.jsonl"):
        recs = _records(path)
        stamps = [r["timestamp"] for r in recs if "payload" in r]
        sid = recs[0]["payload"]["id"] if "payload" in recs[0] else recs[0]["id"]
        spans[sid] = (min(stamps or [recs[0]["timestamp"]]), max(stamps or [recs[0]["timestamp"]]))
    return spans


def test_journal_sessions_exist_and_ts_inside(demo: DemoWorkspace) -> None:
    spans = _session_spans(demo)
    known = unknown = 0
    for body in demo.root.glob("repos/**/LESSONS/L-*.md"):
        for line in body.read_text(encoding="utf-8").splitlines():
            sid = re.search(r"session: ([0-9a-f-]{36})", line)
            ts = re.search(r"ts: (\S+)", line)
            if not sid or line[2:12] < "2026-10-05":
                continue
            if sid.group(1) not in spans:
                unknown += 1
                continue
            known += 1
            first, last = spans[sid.group(1)]
            assert ts and first[:19] <= ts.group(1)[:19] <= last[:19], line
    assert known >= 40 and unknown >= 3


def test_subagents_in_three_eras(demo: DemoWorkspace) -> None:
    folder = list(demo.claude_projects.glob("*/*/subagents/agent-*.jsonl"))
    assert folder and all(p.with_suffix(".meta.json").exists() for p in folder)
    flat = list(demo.claude_projects.glob("*/agent-*.jsonl"))
    warmups = [p for p in flat if _records(p)[0]["message"]["content"] == "Warmup"]
    assert warmups and len(flat) > len(warmups)
    inline = [p for p in _main_sessions(demo) if any(r.get("isSidechain") for r in _records(p))]
    assert inline and all(
        "agentId" not in r for p in inline for r in _records(p) if r.get("isSidechain")
    )


def _index_versions(demo: DemoWorkspace) -> dict[Path, list[tuple[datetime, str]]]:
    """INDEX.md path -> [(commit time, text)] oldest first."""
    out = {}
    for base in demo.bases:
        repo = base.parent if base.parent.name != "api" else base.parents[2]
        rel = str((base / "INDEX.md").relative_to(repo))
        out[base / "INDEX.md"] = [
            (t, _git(repo, "show", f"{sha}:{rel}")) for t, sha in reversed(_base_commits(base))
        ]
    return out


def _expected(cmd: str, text: str) -> str | None:
    """What the shell prints for the few read forms the demo uses (None: not a read form)."""
    rows = text.split("\n")[:-1]
    forms: list[tuple[str, Any]] = [
        (r"(?:cd \S+ && )?head -(?:n )?(\d+) \S+$", lambda m: rows[: int(m[1])]),
        (r"cat \S+ \| head -(\d+)$", lambda m: rows[: int(m[1])]),
        (r"sed -n '(\d+),(\d+)p' \S+$", lambda m: rows[int(m[1]) - 1 : int(m[2])]),
        (
            r"nl -ba \S+ \| sed -n '(\d+),(\d+)p'$",
            lambda m: [f"{i + 1:>6}\t{r}" for i, r in enumerate(rows)][int(m[1]) - 1 : int(m[2])],
        ),
        (
            r"grep -n '([^']+)' \S+$",
            lambda m: [f"{i + 1}:{r}" for i, r in enumerate(rows) if m[1] in r],
        ),
        (r"cat \S+$", lambda m: rows),
    ]
    for pattern, render in forms:
        m = re.match(pattern, cmd)
        if m:
            return "\n".join(render(m))
    return None


def _at(versions: list[tuple[datetime, str]], ts: str) -> str:
    when = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    return [text for t, text in versions if t <= when][-1]


def test_index_reads_show_the_version_committed_at_that_time(demo: DemoWorkspace) -> None:
    versions = _index_versions(demo)
    checked = 0
    for path in demo.claude_projects.rglob("*.jsonl"):
        calls: dict[str, tuple[dict[str, Any], str, str]] = {}
        for rec in _records(path):
            content = (
                rec.get("message", {}).get("content")
                if isinstance(rec.get("message"), dict)
                else None
            )
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_use":
                    calls[block["id"]] = (block["input"], rec["timestamp"], rec["cwd"])
                elif block.get("type") == "tool_result" and block["tool_use_id"] in calls:
                    inp, ts, cwd = calls[block["tool_use_id"]]
                    checked += _check_index_result(versions, inp, ts, cwd, block["content"])
    assert checked >= 150


def _check_index_result(
    versions: dict[Path, list[tuple[datetime, str]]],
    inp: dict[str, Any],
    ts: str,
    cwd: str,
    content: Any,
) -> int:
    if (
        "file_path" in inp
        and "old_string" not in inp
        and inp["file_path"].endswith("LESSONS/INDEX.md")
    ):
        text = _at(versions[Path(inp["file_path"])], ts)
        rows = text.split("\n")[:-1]
        first = inp.get("offset", 1)
        last = len(rows) if "limit" not in inp else first - 1 + inp["limit"]
        got = [
            re.sub(r"^\s*\d+(\t|→)", "", ln)
            for ln in content.split("<system-reminder>")[0].rstrip("\n").split("\n")
        ]
        assert got == rows[first - 1 : last], inp
        return 1
    cmd = inp.get("command", "")
    if not isinstance(cmd, str) or "INDEX.md" not in cmd:
        return 0
    target = cmd.split()[-1] if not cmd.startswith("cd ") else cmd.split()[1] + "/LESSONS/INDEX.md"
    target = target if "|" not in cmd or cmd.startswith("nl") is False else cmd.split()[1]
    if cmd.startswith(("nl", "cat")) and "|" in cmd:
        target = cmd.split()[2] if cmd.startswith("nl") else cmd.split()[1]
    path = Path(os.path.normpath(Path(cwd) / target))
    expected = _expected(cmd, _at(versions[path], ts))
    assert expected is not None and content == expected, cmd
    return 1
