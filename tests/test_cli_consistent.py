"""Consistent commands (issue 12): --base everywhere, one filter option set, nightly's
sources as ingest takes them, the time format in help, partial weeks, query --list, and
recalled's short ids, exit codes and evidence headers. Over the hand-worked scenario."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lessons_analytics.cli import cli
from lessons_analytics.ingestion import ingest
from tests.support import scenario
from tests.support.basebuilder import index_text, make_base
from tests.support.transcripts import ClaudeSession

QUERIES = Path(__file__).resolve().parent.parent / "queries"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("consistent")
    return root, scenario.ingested(root)


def run(db: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--db", str(db), *args])


@pytest.mark.parametrize("command", ["check", "lint", "stats", "cards"])
def test_base_option_beside_the_positional(world: tuple[Path, Path], command: str) -> None:
    root, db = world
    project = root / "proj"
    extra = ["--as-of", "2026-11-20"] if command == "stats" else []
    positional = run(db, command, str(project), "--json", *extra)
    option = run(db, command, "--base", str(project), "--json", *extra)
    both_same = run(db, command, str(project), "--base", str(project / "LESSONS"), "--json", *extra)
    assert positional.exit_code == option.exit_code == both_same.exit_code
    strip = lambda r: {k: v for k, v in json.loads(r.stdout).items() if k != "generated_at"}  # noqa: E731
    assert strip(positional) == strip(option) == strip(both_same)
    assert strip(option)["bases"][0]["base"] == str(project / "LESSONS")
    other = root / "elsewhere"
    (other / "LESSONS").mkdir(parents=True, exist_ok=True)
    differ = run(db, command, str(project), "--base", str(other))
    assert differ.exit_code == 2
    assert differ.stderr.splitlines()[-1] == (
        f"Error: BASE {project} and --base {other} differ; give one of them"
    )


ANALYSES = ["heads", "coverage", "hits", "bodies", "cost", "effect", "recalled", "export"]


@pytest.mark.parametrize("command", ANALYSES)
def test_one_filter_option_set_with_the_time_format(command: str) -> None:
    text = CliRunner().invoke(cli, [command, "--help"], terminal_width=200).stdout
    assert "--base PATH" in text
    assert "Only data at or after DATE: YYYY-MM-DD (00:00 UTC) or an ISO timestamp" in text
    assert "Only data before DATE: YYYY-MM-DD (that whole day included) or an ISO" in text


def test_report_and_retro_share_the_base_and_since_options() -> None:
    for command, wanted in (("report", ["--base PATH"]), ("retro", ["--base PATH", "YYYY-MM-DD"])):
        text = CliRunner().invoke(cli, [command, "--help"], terminal_width=200).stdout
        assert all(w in text for w in wanted), command


def test_nightly_takes_paths_as_ingest_does(world: tuple[Path, Path], tmp_path: Path) -> None:
    root, _ = world
    db = tmp_path / "n.duckdb"
    config = tmp_path / "la.toml"
    config.write_text("")
    result = CliRunner().invoke(cli, [
        "--db", str(db), "--config", str(config), "--quiet", "nightly",
        str(root / "claude" / "projects"), str(root / "codex" / "sessions"),
        "--report-dir", str(tmp_path / "reports"), "--json",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    # 7 Claude files (S1, S2, S4, S5, its subagent and the subagent's .meta.json, S6) and
    # the one Codex rollout
    assert doc["ingested_files"] == 8
    assert doc["bases"] == [str(root / "proj" / "LESSONS")]


def test_a_mid_week_since_marks_the_week_partial(world: tuple[Path, Path]) -> None:
    root, db = world
    # 2026-11-11 is the Wednesday of W46: S4, S5, S6, S7 start on or after it, S4 and S5
    # recalled a lesson (S6 only replays S1's opening lines, S7 read the index alone)
    result = run(db, "coverage", "--since", "2026-11-11")
    assert result.exit_code == 0
    weekly = result.stdout.split("\nproj\n")[1].splitlines()  # the base's short name
    assert weekly[0].split() == ["week", "sessions", "recalled"]
    assert weekly[3] == (
        "(partial) --since/--until start or end inside that week: its counts cover only"
        " part of it, not a trend point"
    )
    row = weekly[2].split()
    assert row[:4] == ["2026-W46", "(partial)", "4", "2/4"]
    doc = json.loads(run(db, "coverage", "--since", "2026-11-11", "--json").stdout)
    (week,) = doc["bases"][0]["by_week"]
    assert (week["week"], week["partial"], week["sessions_in_scope"]) == ("2026-W46", True, 4)
    # from the Monday the week is whole (S2 joins: 5 sessions), and the note is gone
    whole = run(db, "coverage", "--since", "2026-11-09")
    assert "(partial)" not in whole.stdout
    doc = json.loads(run(db, "coverage", "--since", "2026-11-09", "--json").stdout)
    assert [(w["week"], w["partial"], w["sessions_in_scope"])
            for w in doc["bases"][0]["by_week"]] == [("2026-W46", False, 5)]  # fmt: skip
    # an --until date inside a week cuts it too (the day is included: up to Fri 00:00)
    doc = json.loads(run(db, "heads", "--until", "2026-11-12", "--json").stdout)
    assert [(w["week"], w["partial"]) for w in doc["bases"][0]["by_week"]] == [
        ("2026-W45", False), ("2026-W46", True)]  # fmt: skip


def test_query_list_names_every_query_with_purpose_and_parameters() -> None:
    result = CliRunner().invoke(cli, ["query", "--list"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [ln.split("  ")[0] for ln in lines[::2]] == sorted(p.stem for p in QUERIES.glob("*.sql"))
    i = lines.index("coverage  recall coverage per base (metrics.md §2).")
    assert lines[i + 1] == "    parameters: $bases $since $until"
    i = lines.index("cost_calls  every shell call matching a ritual pattern (metrics.md §5).")
    assert lines[i + 1] == "    parameters: $since $until $pattern $bases"
    doc = json.loads(CliRunner().invoke(cli, ["query", "--list", "--json"]).stdout)
    (recalled,) = [q for q in doc["queries"] if q["name"] == "recalled"]
    assert recalled == {
        "name": "recalled",
        "purpose": "the evidence that lesson $lesson surfaced in session $session before $before.",
        "parameters": ["lesson", "session", "before", "bases"],
    }
    assert CliRunner().invoke(cli, ["query"]).exit_code == 2


@pytest.mark.parametrize(
    ("lesson", "prefix", "status", "code"),
    [
        ("L-0001", "1111", "recalled", 0),  # S1 read L-0001's body at 10:05
        ("L-0001", "2222", "index_only", 4),  # S2 only saw its INDEX.md row
        ("L-0002", "2222", "not_recalled", 3),  # S2's reads were blind to L-0002's row
        ("L-0002", scenario.S5, "recalled", 0),  # the full id works as before
    ],
)
def test_recalled_short_ids_and_exit_codes(
    world: tuple[Path, Path], lesson: str, prefix: str, status: str, code: int
) -> None:
    _, db = world
    result = run(db, "recalled", lesson, "--session", prefix)
    assert result.exit_code == code
    assert result.stdout.splitlines()[0] == status


def test_recalled_evidence_has_headers(world: tuple[Path, Path]) -> None:
    _, db = world
    lines = run(db, "recalled", "L-0001", "--session", "1111").stdout.splitlines()
    assert lines[1].split() == ["surfaced", "at", "kind", "agent", "run", "tool", "call",
                                "evidence", "transcript"]  # fmt: skip
    # the head -40 at 10:00:05 showed its row, the Read at 10:05 its body, quoted in the result
    assert [(ln.split()[1], ln.split()[2]) for ln in lines[3:]] == [
        ("10:00:05+00:00", "index_row"),
        ("10:05:00+00:00", "body"),
        ("10:05:01+00:00", "quoted"),
    ]


def test_recalled_session_errors_and_help(tmp_path: Path) -> None:
    project = tmp_path / "app"
    make_base(project, index=index_text([]))
    folder = tmp_path / "projects" / "-app"
    for sid in ("abcd0001-0000-4000-8000-000000000000", "abcd0002-0000-4000-8000-000000000000"):
        s = ClaudeSession(folder, sid, cwd=str(project))
        s.prompt("2026-11-03T10:00:00Z", "hello")
        s.write()
    db = tmp_path / "w.duckdb"
    ingest(db, [tmp_path / "projects"])
    result = run(db, "recalled", "L-0001", "--session", "abcd")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: --session abcd: ambiguous prefix, 2 sessions start with it"
        " (abcd0001-0000-4000-8000-000000000000, abcd0002-0000-4000-8000-000000000000);"
        " give more characters\n"
    )
    assert run(db, "recalled", "L-0001", "--session", "abcd0002").exit_code == 3
    result = run(db, "recalled", "L-0001", "--session", "ffff")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: --session ffff: no session in the warehouse has this id or prefix\n"
    )
    text = CliRunner().invoke(cli, ["recalled", "--help"], terminal_width=200).stdout
    assert "Exit codes: 0 recalled, 3 not recalled, 4 index only" in " ".join(text.split())
