from __future__ import annotations

import time
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_analytics.errors import BaseNotFound
from lessons_analytics.lessonbase.files import (
    parse_hit_line,
    parse_index,
    read_lesson,
    split_fields,
)
from lessons_analytics.lessonbase.locate import (
    _repository_of,
    clear_discovery_cache,
    discover_bases,
    resolve_base,
)
from lessons_analytics.lessonbase.reader import load_base, repo_root_of
from tests.support.basebuilder import commit, git, index_text, lesson_text, make_base

HIT_EN = (
    "- 2026-09-24 · where: agents/judge.md:41 · what: prompt edit merged untested · caught: gate"
    " · recalled: yes · defect: bug · session: 5b1d0c2e · commit: 3f2a9c1"
    " · ts: 2026-09-24T14:03:11Z · severity: high"
)
HIT_FORM = "- 2026-09-30 | same, model swap | caught: human | recalled: no | defect: form-only"

RU_LESSON = """---
id: L-0007
addressee: [executor, manager]
trigger: [отчёт]
scope: "отчёт о состоянии"
target: "состояние доложено без запуска команды"
status: active
---
Правило: вместо доклада по памяти, запусти `git status`.
Почему: дважды ошибся.

## Журнал повторов
- 2026-10-01 · где: board.md · что: доложил по памяти · поймал: human · вспомнил: да · дефект: bug
- 2026-10-02; доложил снова; recalled: нет; defect: none
"""


def _one(rows: list[dict], **match: object) -> dict:
    found = [r for r in rows if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, found
    return found[0]


# ------------------------------------------------------------------ discovery


def test_discover_bases_nearest_first(tmp_path: Path) -> None:
    (tmp_path / "repo" / "LESSONS").mkdir(parents=True)
    (tmp_path / "repo" / "sub" / "LESSONS").mkdir(parents=True)
    (tmp_path / "repo" / "sub" / "src").mkdir()
    found = discover_bases(tmp_path / "repo" / "sub" / "src")
    assert found == [
        (tmp_path / "repo" / "sub" / "LESSONS").resolve(),
        (tmp_path / "repo" / "LESSONS").resolve(),
    ]
    assert discover_bases(str(tmp_path / "repo" / "sub")) == found  # start dir included
    assert discover_bases(tmp_path / "repo" / "sub" / "src") == found  # cached, same answer


def test_discover_bases_absent_start_and_file_start(tmp_path: Path) -> None:
    assert discover_bases(tmp_path / "no" / "such" / "dir") == []
    (tmp_path / "LESSONS").mkdir()
    (tmp_path / "a.txt").write_text("x")
    assert discover_bases(tmp_path / "a.txt") == [(tmp_path / "LESSONS").resolve()]


def test_resolve_base(tmp_path: Path) -> None:
    (tmp_path / "LESSONS").mkdir()
    assert resolve_base(tmp_path) == (tmp_path / "LESSONS").resolve()
    assert resolve_base(tmp_path / "LESSONS") == (tmp_path / "LESSONS").resolve()
    with pytest.raises(BaseNotFound):
        resolve_base(tmp_path / "LESSONS" / "nope")


# ------------------------------------------------------------------ load_base


def test_load_base_git_rows(tmp_path: Path) -> None:
    base = make_base(
        tmp_path / "p",
        lessons={
            "L-0001-report.md": lesson_text("L-0001", hits=[HIT_EN, HIT_FORM], evidence_hits=1),
            "L-0002.md": lesson_text("L-0002", status="candidate", extra_fm="created: 2025-12-01"),
        },
        index=index_text(active=["L-0001"], candidates=["L-0002"]),
        when="2026-01-05T09:00:00+02:00",
        commits=[("2026-01-07T12:00:00Z", {"LESSONS/L-0001-report.md": lesson_text("L-0001")})],
    )
    commit(tmp_path / "p", "2026-01-08T12:00:00Z", {
        "LESSONS/L-0001-report.md": lesson_text("L-0001", hits=[HIT_EN, HIT_FORM], evidence_hits=1)
    })  # fmt: skip
    snap = load_base(tmp_path / "p")
    head = git(tmp_path / "p", "rev-parse", "HEAD").strip()
    assert snap.base == {
        "base_path": str(base.resolve()), "project_dir": str((tmp_path / "p").resolve()),
        "repo_root": str((tmp_path / "p").resolve()), "is_git": True, "head_commit": head,
    }  # fmt: skip
    one = _one(snap.lessons, lesson_id="L-0001")
    assert one["status"] == "active" and one["addressee"] == ["all-agents"]
    assert one["triggers"] == ["report", "status"] and one["lesson_class"] == "verify-before-report"
    assert one["created"] == date(2026, 1, 5)  # first commit, in UTC (07:00Z)
    assert one["first_commit_at"] == datetime(2026, 1, 5, 7, 0, tzinfo=UTC)
    assert one["last_commit_at"] == datetime(2026, 1, 8, 12, 0, tzinfo=UTC)
    assert one["rule"].startswith("instead of reporting from memory")
    assert one["evidence_hits"] == 1 and one["evidence_helped"] is None
    assert one["front_matter_ok"] is True and one["journal_lines"] == 2
    text = Path(one["file_path"]).read_bytes()
    assert one["body_bytes"] == len(text)
    assert one["journal_bytes"] == len(text[text.index(b"## Hits") :])
    assert _one(snap.lessons, lesson_id="L-0002")["created"] == date(2025, 12, 1)
    versions = sorted(
        (v["committed_at"].day, v["hits"])
        for v in snap.lesson_versions
        if v["lesson_id"] == "L-0001"
    )
    assert versions == [(5, 1), (7, 0), (8, 1)]
    assert snap.errors == []


def test_hit_lines_english(tmp_path: Path) -> None:
    make_base(tmp_path, lessons={"L-0001.md": lesson_text("L-0001", hits=[HIT_EN, HIT_FORM])})
    snap = load_base(tmp_path)
    first, second = sorted(snap.hits, key=lambda h: h["line_no"])
    assert first["hit_date"] == date(2026, 9, 24) and first["where_"] == "agents/judge.md:41"
    assert first["what"] == "prompt edit merged untested"
    assert (first["caught"], first["recalled"], first["defect"]) == ("gate", "yes", "bug")
    assert first["session_id"] == "5b1d0c2e" and first["commit"] == "3f2a9c1"
    assert first["ts"] == datetime(2026, 9, 24, 14, 3, 11, tzinfo=UTC)
    assert first["extra"] == {"severity": "high"} and first["is_hit"] and first["parse_ok"]
    lines = Path(first["file_path"]).read_text().split("\n")
    assert lines[first["line_no"] - 1] == HIT_EN == first["raw"]
    assert second["what"] == "same, model swap" and second["is_hit"] is False


def test_hit_lines_russian(tmp_path: Path) -> None:
    make_base(tmp_path, lessons={"L-0007.md": RU_LESSON})
    snap = load_base(tmp_path)
    lesson = _one(snap.lessons, lesson_id="L-0007")
    assert lesson["rule"] == "вместо доклада по памяти, запусти `git status`."
    assert lesson["addressee"] == ["executor", "manager"] and lesson["journal_lines"] == 2
    first, second = sorted(snap.hits, key=lambda h: h["line_no"])
    assert first["where_"] == "board.md" and first["what"] == "доложил по памяти"
    assert (first["caught"], first["recalled"], first["defect"]) == ("human", "yes", "bug")
    assert second["what"] == "доложил снова" and second["recalled"] == "no"
    assert second["is_hit"] is False and second["parse_ok"] is True


def test_unparseable_journal_line_is_an_error_row(tmp_path: Path) -> None:
    bad = [
        "- 2026-10-01 · what: fine",
        "- yesterday · what: no date",
        "  free prose",
        "- 2026-10-03 · ts: soon",
    ]
    make_base(tmp_path, lessons={"L-0001.md": lesson_text("L-0001", hits=bad)})
    snap = load_base(tmp_path)
    parsed = {h["raw"].strip(): (h["parse_ok"], h["is_hit"]) for h in snap.hits}
    assert parsed == {
        "- 2026-10-01 · what: fine": (True, True),
        "- yesterday · what: no date": (False, False),
        "free prose": (False, False),
        "- 2026-10-03 · ts: soon": (False, True),  # dated, so it counts; the ts is the error
    }
    assert sorted(e["line"] for e in snap.errors) == [15, 16, 17]  # after "## Hits" on 13
    assert all("unparseable journal line" in e["reason"] for e in snap.errors)


def test_broken_yaml_keeps_a_lesson_row(tmp_path: Path) -> None:
    text = "---\nid: L-0003\ntrigger: [a, b\nstatus: active\n---\nRule: x\n"
    make_base(tmp_path, lessons={"L-0003-slug.md": text})
    snap = load_base(tmp_path)
    row = _one(snap.lessons, lesson_id="L-0003")
    assert row["front_matter_ok"] is False and row["status"] is None and row["rule"] == "x"
    (error,) = snap.errors
    assert error["file"].endswith("L-0003-slug.md") and 2 <= error["line"] <= 5
    assert "broken YAML" in error["reason"]


def test_front_matter_not_a_mapping_and_missing(tmp_path: Path) -> None:
    lessons = {"L-0004.md": "---\n- a\n- b\n---\nRule: x\n", "L-0005.md": "Rule: no front matter\n"}
    make_base(tmp_path, lessons=lessons)
    snap = load_base(tmp_path)
    assert {r["lesson_id"]: r["front_matter_ok"] for r in snap.lessons} == {
        "L-0004": False, "L-0005": False,
    }  # fmt: skip
    assert len(snap.errors) == 2


def test_non_utf8_bytes_are_reported(tmp_path: Path) -> None:
    raw = lesson_text("L-0001").encode() + b"bad \xff byte\n"
    make_base(tmp_path, lessons={"L-0001.md": raw}, use_git=False)
    snap = load_base(tmp_path)
    (error,) = snap.errors
    assert error["line"] == raw.count(b"\n") and "non-UTF-8" in error["reason"]
    assert snap.lessons[0]["body_bytes"] == len(raw)


def test_untracked_lesson_has_missing_history(tmp_path: Path) -> None:
    make_base(tmp_path, lessons={"L-0001.md": lesson_text("L-0001")})
    (tmp_path / "LESSONS" / "L-0002.md").write_text(lesson_text("L-0002"))
    snap = load_base(tmp_path)
    (error,) = snap.errors
    assert error["file"].endswith("L-0002.md") and "missing git history" in error["reason"]
    assert _one(snap.lessons, lesson_id="L-0002")["first_commit_at"] is None


def test_non_git_base_loads(tmp_path: Path) -> None:
    make_base(
        tmp_path,
        lessons={"L-0001.md": lesson_text("L-0001")},
        index=index_text(active=["L-0001"]),
        use_git=False,
    )
    snap = load_base(tmp_path / "LESSONS")
    assert snap.base["is_git"] is False and snap.base["repo_root"] is None
    assert snap.base["head_commit"] is None and snap.lesson_versions == []
    assert snap.lessons[0]["created"] is None and snap.lessons[0]["first_commit_at"] is None
    (version,) = snap.index_versions
    assert version["version_id"] == "worktree" and version["committed_at"] is None
    assert version["active_heading_line"] == 4 and snap.errors == []


def test_index_versions_follow_git(tmp_path: Path) -> None:
    first = index_text(active=["L-0001"])
    second = index_text(active=["L-0001"], header=["n"] * 20, marker="<!-- sleep-due: x -->")
    make_base(
        tmp_path,
        lessons={"L-0001.md": lesson_text("L-0001")},
        index=first,
        commits=[("2026-02-01T10:00:00+02:00", {"LESSONS/INDEX.md": second})],
    )
    (tmp_path / "LESSONS" / "INDEX.md").write_text("uncommitted\n")  # not a version
    snap = load_base(tmp_path)
    by_date = sorted(snap.index_versions, key=lambda v: v["committed_at"])
    assert [v["committed_at"] for v in by_date] == [
        datetime(2026, 1, 5, 9, 0, tzinfo=UTC), datetime(2026, 2, 1, 8, 0, tzinfo=UTC),
    ]  # fmt: skip
    old, new = by_date
    assert (old["active_heading_line"], old["candidates_heading_line"]) == (4, 9)
    assert (new["active_heading_line"], new["first_heading_line"], new["marker_count"]) == (
        24,
        24,
        1,
    )
    assert old["text"] == first and old["bytes"] == len(first.encode())
    assert old["n_lines"] == first.count("\n")
    rows = [r for r in snap.index_rows if r["version_id"] == old["version_id"]]
    assert [(r["section"], r["lesson_id"], r["line_no"]) for r in rows] == [("active", "L-0001", 7)]
    sections = [s for s in snap.index_sections if s["version_id"] == old["version_id"]]
    spans = [(s["section"], s["heading_line"], s["first_line"], s["last_line"]) for s in sections]
    assert spans == [("active", 4, 5, 8), ("candidates", 9, 10, 11)]


def test_parse_index_russian_and_other_sections() -> None:
    text = (
        "# Уроки\n\n## Действующие\n| id | адресат | триггеры | цель |\n|---|---|---|---|\n"
        "| [L-0001](L-0001.md) | executor, manager | отчёт | цель |\n\n## Кандидаты\n"
        "| L-0002 | all | x | |\n\n## Notes On Style\n| L-0003 | a | b | c |\n"
    )
    doc = parse_index(text)
    assert [(r["section"], r["lesson_id"]) for r in doc.rows] == [
        ("active", "L-0001"), ("candidates", "L-0002"), ("notes on style", "L-0003"),
    ]  # fmt: skip
    assert doc.rows[0]["addressee"] == ["executor", "manager"] and doc.rows[1]["target"] is None
    assert doc.heading_line("active") == 3 and doc.heading_line("candidates") == 8


def test_sub_project_base_paths(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_base(repo, lessons={"L-0001.md": lesson_text("L-0001")}, index=index_text(["L-0001"]))
    sub = make_base(
        repo / "svc", lessons={"L-0100.md": lesson_text("L-0100")}, index=index_text(["L-0100"]),
        repo=repo, when="2026-03-01T00:00:00Z",
    )  # fmt: skip
    snap = load_base(repo / "svc")
    assert snap.base["repo_root"] == str(repo.resolve()) and snap.base["base_path"] == str(sub)
    assert [v["file_path"] for v in snap.lesson_versions] == [str(sub / "L-0100.md")]
    assert [v["committed_at"].month for v in snap.index_versions] == [3]
    assert [r["lesson_id"] for r in snap.lessons] == ["L-0100"]


def test_quarantine_and_retired_rows(tmp_path: Path) -> None:
    quarantine = (
        "# Quarantine\n"
        "- 2026-11-02 · signal: said all tests pass · session: s-1 · mechanism: vbr · seen: 2\n"
        "- no date here\n"
    )
    retired = (
        "# Retired\n- L-0045 · 2026-10-12 · reason: moved into structure · where: tools/x\n- ?\n"
    )
    make_base(tmp_path, quarantine=quarantine, retired=retired, use_git=False)
    snap = load_base(tmp_path)
    q = _one(snap.quarantine, line_no=2)
    assert (q["obs_date"], q["signal"], q["session_id"], q["mechanism"], q["seen"]) == (
        date(2026, 11, 2), "said all tests pass", "s-1", "vbr", 2,
    )  # fmt: skip
    assert _one(snap.quarantine, line_no=3)["obs_date"] is None
    r = _one(snap.retired, line_no=2)
    assert (r["lesson_id"], r["retired_date"], r["reason"], r["where_"]) == (
        "L-0045", date(2026, 10, 12), "moved into structure", "tools/x",
    )  # fmt: skip
    assert sorted((Path(e["file"]).name, e["line"]) for e in snap.errors) == [
        ("QUARANTINE.md", 3), ("RETIRED.md", 3),
    ]  # fmt: skip


def _fast_import(repo: Path, n_commits: int) -> None:
    """Hundreds of commits in one git process: each rewrites INDEX.md and one lesson."""
    chunks = []
    for i in range(n_commits):
        index = index_text(active=["L-0001"], header=["n"] * (i % 12)).encode()
        lesson = lesson_text("L-0001", hits=[f"- 2026-01-01 · what: hit {j}" for j in range(i % 5)])
        stamp = 1767600000 + i * 3600
        chunks.append(
            b"commit refs/heads/main\n"
            + f"committer T <t@example.com> {stamp} +0000\ndata 1\nc\n".encode()
            + f"M 100644 inline LESSONS/INDEX.md\ndata {len(index)}\n".encode() + index + b"\n"
            + f"M 100644 inline LESSONS/L-0001.md\ndata {len(lesson.encode())}\n".encode()
            + lesson.encode() + b"\n"
        )  # fmt: skip
    import subprocess

    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    subprocess.run(
        ["git", "-C", str(repo), "fast-import", "--quiet"], input=b"".join(chunks), check=True
    )
    git(repo, "checkout", "-q", "-f", "main")


def test_hundreds_of_commits_load_fast(tmp_path: Path) -> None:
    _fast_import(tmp_path / "big", 400)
    started = time.perf_counter()
    snap = load_base(tmp_path / "big")
    elapsed = time.perf_counter() - started
    assert len(snap.index_versions) == 400 and len(snap.lesson_versions) == 400
    assert {v["hits"] for v in snap.lesson_versions} == {0, 1, 2, 3, 4}
    assert {v["active_heading_line"] for v in snap.index_versions} == set(range(3, 15))
    assert elapsed < 10, elapsed


# ------------------------------------------------------------------ parsing properties


@given(st.text())
def test_parse_hit_line_never_raises(line: str) -> None:
    hit = parse_hit_line(line)
    assert hit.error is None or hit.hit_date is None or "ts" in hit.fields


@given(st.text())
def test_split_fields_never_raises(rest: str) -> None:
    keyed, free = split_fields(rest)
    assert all(isinstance(k, str) for k in keyed) and all(isinstance(f, str) for f in free)


@given(st.text())
def test_parse_index_never_raises(text: str) -> None:
    doc = parse_index(text)
    assert all(r["lesson_id"].startswith("L-") for r in doc.rows)


SPEC_LESSON = """---
id: L-0123
addressee: all-agents                 # or a list: [executor, manager]
trigger: [evals, re-test, model-swap] # keywords that make it surface
scope: "agent prompt edit, model swap" # class of tasks where the failure happens
target: "prompt edit accepted without re-running scenarios on the version that ships"
class: verify-before-report           # mechanism family, for dedup and concentration
status: active                        # candidate | active | deferred | retired
created: 2026-07-04
ritual: "^(make|uv run) (test|check)"  # optional: regex of the command this lesson prescribes
evidence:
  hits: 10          # how many times the failure repeated
  helped: true      # is it confirmed that the rule helps (true | false | null)
---
Rule: after editing an agent body or swapping the model, run the scenarios
on the version that ships, with the old body as control.
Why: ...

## Hits
- 2026-09-24 · where: agents/judge.md:41 · what: prompt edit merged untested · caught: gate · recalled: yes · defect: bug · session: 5b1d0c2e-8f7a-4e61-9a3b-2c1f0e9d7a44 · commit: 3f2a9c1 · ts: 2026-09-24T14:03:11Z
- 2026-09-30 · where: agents/scout.md · what: same, model swap · caught: human · recalled: no · defect: wrong-number
"""  # noqa: E501


def test_the_spec_example_lesson(tmp_path: Path) -> None:
    make_base(tmp_path, lessons={"L-0123-retest-after-prompt-edit.md": SPEC_LESSON}, use_git=False)
    snap = load_base(tmp_path)
    (row,) = snap.lessons
    assert row["created"] == date(2026, 7, 4) and row["ritual"] == "^(make|uv run) (test|check)"
    assert (row["evidence_hits"], row["evidence_helped"]) == (10, True)
    assert row["triggers"] == ["evals", "re-test", "model-swap"]
    assert row["rule"] == (
        "after editing an agent body or swapping the model, run the scenarios\n"
        "on the version that ships, with the old body as control."
    )
    assert [h["is_hit"] for h in snap.hits] == [True, True] and snap.errors == []
    assert snap.hits[0]["session_id"] == "5b1d0c2e-8f7a-4e61-9a3b-2c1f0e9d7a44"


def test_bom_and_crlf_lesson(tmp_path: Path) -> None:
    raw = b"\xef\xbb\xbf" + lesson_text("L-0001", hits=[HIT_EN]).replace("\n", "\r\n").encode()
    make_base(tmp_path, lessons={"L-0001.md": raw}, use_git=False)
    snap = load_base(tmp_path)
    assert snap.lessons[0]["front_matter_ok"] and snap.lessons[0]["status"] == "active"
    assert snap.hits[0]["raw"] == HIT_EN and snap.errors == []


def test_section_names_need_a_whole_word() -> None:
    doc = parse_index("# x\n## Activity log\n## Active lessons (3)\n## Кандидаты на проверку\n")
    assert [s["section"] for s in doc.sections] == ["activity log", "active", "candidates"]


def test_the_fingerprints_repository_is_the_one_git_finds(tmp_path: Path) -> None:
    # the fingerprint follows the HEAD and index of the repository holding the base, found
    # on the file system (no git process per base): the folder git's rev-parse names
    make_base(tmp_path / "app", lessons={"L-0001.md": lesson_text("L-0001")}, use_git=True)
    (tmp_path / "app" / "services" / "api" / "LESSONS").mkdir(parents=True)
    for base in (tmp_path / "app" / "LESSONS", tmp_path / "app" / "services" / "api" / "LESSONS"):
        assert _repository_of(base) == repo_root_of(base) == (tmp_path / "app").resolve()
    # a worktree's .git is a file naming its repository's folder
    (tmp_path / "linked" / "LESSONS").mkdir(parents=True)
    (tmp_path / "linked" / ".git").write_text("gitdir: elsewhere\n", "utf-8")
    assert _repository_of(tmp_path / "linked" / "LESSONS") == (tmp_path / "linked").resolve()
    (tmp_path / "plain" / "LESSONS").mkdir(parents=True)
    # none (unless the test's own folder lies in a repository)
    plain = tmp_path / "plain" / "LESSONS"
    assert _repository_of(plain) == repo_root_of(plain)


def test_clear_discovery_cache(tmp_path: Path) -> None:
    assert discover_bases(tmp_path) == []
    (tmp_path / "LESSONS").mkdir()
    assert discover_bases(tmp_path) == []  # cached per directory
    clear_discovery_cache()
    assert discover_bases(tmp_path) == [(tmp_path / "LESSONS").resolve()]


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_read_lesson_never_raises(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "L-0001.md"
    path.write_bytes(b"---\nid: L-0001\n" + raw)
    doc = read_lesson(path)
    assert doc.lesson_id and isinstance(doc.rule(), str)
