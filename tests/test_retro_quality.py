"""retro: what a judge reads. Clusters are one mechanism each, readiness follows the spec's
thresholds, titles and targets come from the signals' own words and say what happened."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from lessons_analytics.retro import cluster
from lessons_analytics.retro.detect import (
    Turns,
    correction_family,
    rejections,
    repeated_failures,
    verdict_of,
)
from lessons_analytics.retro.git import git_signals
from lessons_analytics.retro.model import Cluster, Signal
from lessons_analytics.retro.patterns import load_patterns
from lessons_analytics.retro.text import error_class, error_line, program
from lessons_analytics.retro.write import digest_text
from tests.support.basebuilder import commit, git

PATS = load_patterns()
T0 = datetime(2026, 5, 1, 9, tzinfo=UTC)


def _call(n: int, run: str, command: str | None, result: str, **extra: object) -> dict:  # type: ignore[type-arg]
    at = T0 + timedelta(minutes=n)
    row = {
        "session_id": run.split("/")[0],
        "agent_run_id": run,
        "runtime": "claude",
        "tool_use_id": f"t{n}",
        "tool_name": "Bash" if command else "Edit",
        "command": command,
        "target_path": None if command else f"/src/app/mod{n}.py",
        "called_at": at,
        "result_at": at + timedelta(seconds=2),
        "is_error": True,
        "exit_code": 1,
        "is_interrupt": False,
        "is_rejected": False,
        "result_head": result,
        "input_json": "{}",
        "transcript_file": f"/nonexistent/{run}.jsonl",
        "call_line": 2 * n,
        "result_file": f"/nonexistent/{run}.jsonl",
        "result_line": 2 * n + 1,
    }
    row.update(extra)
    return row


# ---------------------------------------------------------------- repeated failures


def test_the_same_program_with_other_arguments_is_one_cluster_two_reasons_are_two() -> None:
    missing = "Exit code 1\nE   ModuleNotFoundError: No module named 'shapely'"
    fixture = "Exit code 1\nE       fixture 'db' not found"
    calls = [
        _call(1, "s1/main", "uv run pytest tests/a.py -q", missing),
        _call(2, "s1/main", "uv run pytest tests/a.py -k x", missing),  # other arguments
        _call(3, "s2/main", "cd /src && python -m pytest tests/b.py", missing),
        _call(4, "s2/main", "pytest tests/b.py", missing),
        _call(5, "s2/main", "uv run pytest tests/db.py", fixture),  # same program, other cause
        _call(6, "s2/main", "uv run pytest tests/db.py -x", fixture),
        _call(7, "s3/main", "uv run pytest tests/c.py", missing),  # once only: no signal
    ]
    signals = repeated_failures(calls, PATS)
    assert sorted((s.session_id, s.detail["count"]) for s in signals) == [
        ("s1", 2),
        ("s2", 2),
        ("s2", 2),
    ]
    clusters = cluster.build(signals, [], {}, {})
    sizes = sorted((c.independent_cases, len(c.signals)) for c in clusters)
    assert sizes == [(1, 1), (2, 2)]
    big = max(clusters, key=lambda c: len(c.signals))
    assert big.status == "candidate-ready"
    assert "`pytest`" in big.shared_key and "ModuleNotFoundError" in big.shared_key
    # the title is a real command and the real error line, never the masked key
    assert big.title.startswith("`uv run pytest tests/a.py -q` and 3 similar failing")
    assert "No module named 'shapely'" in big.title


def test_titles_show_the_command_not_the_masked_key() -> None:
    out = "Exit code 1\nwhich: no python3.11 in (/usr/bin:/bin)"
    signals = repeated_failures(
        [
            _call(1, "s1/main", "which python3.11", out),
            _call(2, "s1/main", "which python3.11", out),
        ],
        PATS,
    )
    (only,) = cluster.build(signals, [], {}, {})
    assert only.mechanism[:2] == ("repeated_failure", "which")
    assert "python#" not in only.title and "`which python3.11`" in only.title


def test_an_edit_failure_names_the_tool_and_file_not_an_empty_command(tmp_path: Path) -> None:
    stale = "<tool_use_error>String to replace not found in file.</tool_use_error>"
    calls = [_call(n, "s1/main", None, stale) for n in (1, 2)]
    calls[1]["target_path"] = calls[0]["target_path"]
    signals = repeated_failures(calls, PATS)
    (only,) = cluster.build(signals, [], {}, {})
    assert only.title.startswith("Edit on `app/mod1.py` failing repeatedly")
    digest = digest_text(_result([only]))
    line = next(x for x in digest.splitlines() if x.startswith("- "))
    assert "failed 2× (Edit `/src/app/mod1.py`)" in line
    assert "``" not in digest and "(``)" not in digest


def test_error_lines_and_classes() -> None:
    trace = "Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'k'"
    assert error_line(trace) == "KeyError: 'k'"
    banner = "===== test session starts =====\nplatform linux\n===== 2 failed in 0.1s ====="
    assert error_line(banner) == "===== 2 failed in 0.1s ====="
    codex = '{"output":"ls: specs: No such file or directory\\n","metadata":{"exit_code":1}}'
    assert error_line(codex) == "ls: specs: No such file or directory"
    assert error_class("which: no python3.11 in (/a/b)") == error_class(
        "which: no python3.12 in (/c)"
    )
    assert program("cd /x && FOO=1 uv run pytest -q") == "pytest"
    assert program("python3 -m mypy src") == "mypy"
    assert program("sudo -n docker compose up") == "docker"


def test_a_search_that_finds_nothing_has_not_failed() -> None:
    calls = [_call(n, "s1/main", "rg -n needle", "Exit code 1") for n in (1, 2)]
    assert repeated_failures(calls, PATS) == []


# ---------------------------------------------------------------- refusals


def _refusal(n: int, tool: str, result: str, command: str | None = "npm install") -> dict:  # type: ignore[type-arg]
    return _call(n, "s1/main", command, result, is_rejected=True, is_error=True, tool_name=tool)


REFUSED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file)."
)


def _turns(*texts: tuple[int, str]) -> Turns:
    rows = [
        {
            "agent_run_id": "s1/main",
            "ts": T0 + timedelta(minutes=m, seconds=30),
            "text": t,
            "file_path": "/t/s1.jsonl",
            "line_no": 100 + m,
        }
        for m, t in texts
    ]
    return Turns(rows, PATS)


def test_refusals_count_only_with_a_reason_and_plans_only_with_a_correction() -> None:
    stop = " STOP what you are doing and wait for the user to tell you how to proceed."
    reason = " The user provided the following reason for the rejection:  "
    calls = [
        _refusal(1, "Bash", REFUSED + stop),  # no reason, nothing said after
        _refusal(3, "Bash", REFUSED + reason + "use pnpm"),  # reason typed in
        _refusal(5, "Bash", REFUSED + stop),  # then "ok" (no reason)
        _refusal(7, "Bash", REFUSED + stop),  # then a reason in the next turn
        _refusal(9, "ExitPlanMode", REFUSED + reason + "also add a docs step", None),
        _refusal(11, "ExitPlanMode", REFUSED + reason + "no, don't rewrite the pager", None),
        _refusal(13, "Bash", REFUSED + stop),  # then a question back
    ]
    turns = _turns((5, "ok"), (7, "we deploy with make ship, never by hand"), (13, "what is x?"))
    found = rejections(calls, turns, PATS)
    assert [(s.detail["reason"], s.detail["reason_from"]) for s in found] == [
        ("use pnpm", "refusal"),
        ("we deploy with make ship, never by hand", "next_turn"),
        ("no, don't rewrite the pager", "refusal"),
    ]
    titles = [cluster.describe(_one(s))[0] for s in found]
    assert titles[0] == "user refused to let the agent run `npm install`: “use pnpm”"
    assert titles[2] == "user declined the agent's plan: “no, don't rewrite the pager”"
    digest = digest_text(_result(cluster.build(found, [], {}, {})))
    assert "“we deploy with make ship, never by hand” · `npm install`" in digest
    assert "said at [s1.jsonl:107](/t/s1.jsonl#L107)" in digest
    assert "The user doesn't want to proceed" not in digest
    targets = " ".join(cluster.describe(_one(s))[1] for s in found)
    assert "without asking" not in targets
    assert "the agent asked to run `npm install` and the user refused, saying “use pnpm”" in targets


def _one(signal: Signal) -> Cluster:
    (only,) = cluster.build([signal], [], {}, {})
    return only


# ---------------------------------------------------------------- topic clusters


def _correction(session: str, minute: int, text: str) -> Signal:
    return Signal(
        kind="correction",
        mechanism=("correction", "x"),
        quote=text,
        session_id=session,
        agent_run_id=f"{session}/main",
        ts=T0 + timedelta(minutes=minute),
        file=f"/t/{session}.jsonl",
        line=minute,
        detail={"family": "told-you"},
    )


def test_corrections_cluster_by_what_they_are_about_across_languages() -> None:
    signals = [
        _correction("a", 1, "I told you to run make check before committing."),
        _correction("b", 2, "я же просил: сначала make check, потом коммит."),
        _correction("b", 3, "run make check before you commit."),  # same session: same case
        _correction("c", 4, "that's wrong: the bbox is lon first."),
        _correction("d", 5, "stop, don't rewrite the whole file."),
        _correction("e", 6, "стоп, не переписывай весь файл."),
    ]
    clusters = cluster.build(signals, [], {}, {})
    groups = sorted(sorted(s.session_id or "" for s in c.signals) for c in clusters)
    assert groups == [["a", "b", "b"], ["c"], ["d", "e"]]
    check = next(c for c in clusters if len(c.signals) == 3)
    assert check.independent_cases == 2  # sessions a and b
    assert check.shared_key == "correction signals sharing the words check, committing"
    assert check.title == (
        "user corrected the agent: “I told you to run make check before committing.” (+2 more)"
    )


# ---------------------------------------------------------------- readiness and ranking


def _result(clusters: list[Cluster], at: datetime = T0):  # type: ignore[no-untyped-def]
    from lessons_analytics.retro.model import RetroResult

    return RetroResult(at, None, [], [], [s for c in clusters for s in c.signals], clusters)


@pytest.mark.parametrize(
    ("sessions", "age_days", "status", "due"),
    [
        (["a"], 30, "quarantine", False),  # one case never
        (["a", "a"], 30, "quarantine", False),  # two signals, one session: one case
        (["a", "b"], 10, "candidate-ready", False),  # two cases, young
        (["a", "b"], 15, "candidate-ready", True),  # two cases, first over 14 days ago
        (["a", "b", "c"], 0, "candidate-ready", True),  # three cases
    ],
)
def test_readiness_follows_the_spec_thresholds(
    sessions: list[str], age_days: int, status: str, due: bool
) -> None:
    items = [_correction(s, n, "use pnpm, not npm") for n, s in enumerate(sessions)]
    c = Cluster("R-1", "correction", ("x",), "t", "target", items)
    assert c.status == status
    assert c.verdict_due(items[0].ts + timedelta(days=age_days)) is due  # type: ignore[operator]


def test_the_digest_ranks_by_cases_and_names_the_verdict_section() -> None:
    three = cluster.build(
        [_correction(s, n, "use pnpm, not npm please") for n, s in enumerate("abc")], [], {}, {}
    )
    one = cluster.build([_correction("z", 9, "the bbox is lon first, wrong")], [], {}, {})
    text = digest_text(_result(one + three, T0 + timedelta(days=1)))
    assert "**1 ready for a verdict**" in text and "**0 candidate-ready**" in text
    verdict = text.index("## Ready for a verdict")
    assert verdict < text.index("use pnpm") < text.index("## Quarantine") < text.index("bbox")
    assert "Why together: correction signals sharing the words npm, pnpm." in text
    assert "Facet of: no existing lesson matches." in text
    assert not re.search(r": *$", text, re.MULTILINE), "a field ends empty"


# ---------------------------------------------------------------- wording, gates, git


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("Hello again! Let's go on.", None),
        ("Снова привет!", None),
        ("Run it again with --release.", None),
        ("Снова запусти бенчмарк.", None),
        ("the test is wrong, it expects the old format.", None),
        ("линтер ошибается: импорт нужен.", None),
        ("no, sorry, my mistake: the port is 8081.", None),
        ("нет, я ошибся: порт 8081.", None),
        ("Review from Bob:\n> that's wrong: the key ignores the locale", None),
        ("Отзыв ревьюера:\n> неправильно: ключ не учитывает локаль", None),
        ("Коллега написал: «нет, не так, сначала миграции». Согласен?", None),
        ("хватит cargo build, есть cargo check.", "undo"),
        ("You broke the import again.", "wrong"),
    ],
)
def test_look_alikes_in_both_languages(text: str, family: str | None) -> None:
    found = correction_family(text, PATS)
    assert (found[0] if found else None) == family


def test_an_answer_to_the_agents_question_is_not_a_correction() -> None:
    assert correction_family("no, use the other one.", PATS) is not None
    assert correction_family("no, use the other one.", PATS, after_question=True) is None
    assert correction_family("нет, другой.", PATS, after_question=True) is None
    # a real correction still counts after a question
    assert correction_family("I told you: never push to main.", PATS, after_question=True)


@pytest.mark.parametrize(
    ("verdict", "rejected", "accepted"),
    [
        ("REJECT: no test for the empty case.", True, False),
        ("APPROVE. Nit: the docstring needs changes later.", False, True),
        ("Verdict: PASS — no changes requested.", False, True),
        ("Принято. Мелочь на доработку не отправляю.", False, True),
        ("Вердикт: одобрено, доработка не нужна.", False, True),
        ("Отклонено: нет теста на пустой ввод.", True, False),
    ],
)
def test_the_first_verdict_wins(verdict: str, rejected: bool, accepted: bool) -> None:
    assert verdict_of(verdict, PATS) == (rejected, accepted)


def test_a_revert_of_a_revert_is_not_a_signal(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", when="2026-04-01T08:00:00+00:00")
    first = commit(repo, "2026-04-01T09:00:00+00:00", {"a.py": "1\n"}, "add a")
    undo = commit(
        repo,
        "2026-04-02T09:00:00+00:00",
        {"a.py": ""},
        f'Revert "add a"\n\nThis reverts commit {first}.',
    )
    commit(
        repo,
        "2026-04-03T09:00:00+00:00",
        {"a.py": "1\n"},
        f"Вернуть a обратно\n\nThis reverts commit {undo}.",
    )
    found = git_signals(repo, None, PATS)
    assert [s.detail["subject"] for s in found] == ['Revert "add a"']


@pytest.mark.parametrize(
    "text",
    [
        "The redirection doesn't work :(",
        "A couple of tests are unhappy now:",
        "Are you sure the HTML is the issue?",
        "error[E0425]: cannot find function `search` in this scope",
        "редирект не работает",
        "тесты опять падают после твоего изменения",
        "ты уверен, что дело в HTML?",
    ],
)
def test_plain_failure_reports_are_corrections(text: str) -> None:
    assert correction_family(text, PATS) is not None


def test_project_vocabulary_does_not_link_signals() -> None:
    # 100 turns, 5 of them name the project: 5 % of the turns, so "ocodex" is common
    turns = [{"text": f"add feature number {n} please"} for n in range(95)]
    turns += [{"text": "ocodex build"} for _ in range(5)]
    common = cluster.common_words(turns, PATS)
    assert "ocode" in common and "featu" in common  # stems
    assert cluster.common_words(turns[:99], PATS) == frozenset()  # too few turns to tell
    a = _correction("a", 1, "ocodex terminal isn't working")
    b = _correction("b", 2, "ocodex terminal output is wrong")
    assert len(cluster.build([a, b], [], {}, {})) == 1
    common = frozenset({"ocode", "termi"})
    assert len(cluster.build([a, b], [], {}, {}, (), common)) == 2


def test_a_failure_without_output_says_so_instead_of_an_empty_field() -> None:
    calls = [_call(n, "s1/main", "make deploy", "Exit code 2") for n in (1, 2)]
    for call in calls:
        call["exit_code"] = 2
    (only,) = cluster.build(repeated_failures(calls, PATS), [], {}, {})
    assert only.title == "`make deploy` failing repeatedly: exit code 2, no error message"
    assert "“exit code 2, no error message”" in only.shared_key
