import re
from pathlib import Path

from click.testing import CliRunner

from lessons_analytics.cli import cli


def test_demo_builds_ingests_and_analyses(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(cli, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "load errors: 0" in result.output
    assert "sessions: 246" in result.output
    assert (out / "warehouse.duckdb").is_file()
    for name in ("atlas", "harbor", "api"):
        assert f"sleep signs {name}:" in result.output


def test_demo_prints_its_findings_with_a_legend_and_pasteable_commands(tmp_path: Path) -> None:
    """The whole printout, exactly: tables within 100 columns, bases by short name with the
    legend to their paths, the recalled share over the hits of known recall with the unknown
    ones beside it, and one pasteable command a line."""
    out = tmp_path / "demo"
    result = CliRunner().invoke(cli, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = _masked(result.stdout.replace(str(out.resolve()), "<out>"))
    assert text == _masked(DEMO)
    assert max(len(line) for line in DEMO.splitlines()) <= 100
    # hand check of one row: atlas has 156 hits, 114 of unknown recall, 11 recalled of 42
    assert "11/42 (26 %)      114" in text


def _masked(text: str) -> str:
    """Body tokens count the characters of the tool results, which quote the workspace's
    paths: their digits follow the length of tmp_path, the layout does not."""
    return re.sub(r"[\d,]+(?= \(\d+ % large\))", lambda m: "#" * len(m.group(0)), text)


DEMO = """\
demo workspace: <out>
warehouse:      <out>/warehouse.duckdb

files: 341 seen, 341 loaded, 6790 new lines
sessions: 246  agent runs: 314  tool calls: 2009
  Bash 946, Read 480, Edit 399, Task 60, exec_command 47, shell_command 25, apply_patch 21, shell 20
file reads: 728  bases: 3  lessons: 28  hits: 330
load errors: 0

base     head -20..60          blind       coverage  hits recalled  unknown          body tokens
------  -------------  -------------  -------------  -------------  -------  -------------------
atlas    26/78 (33 %)   12/68 (18 %)  40/105 (38 %)   11/42 (26 %)      114  76,696 (84 % large)
harbor  51/122 (42 %)  12/104 (12 %)  73/126 (58 %)    3/12 (25 %)       77  48,891 (77 % large)
api      26/65 (40 %)     0/54 (0 %)   18/62 (29 %)     3/6 (50 %)       79  15,562 (70 % large)

base    lesson  ritual                         calls  h/week  median
------  ------  -----------------------------  -----  ------  ------
atlas   L-0001  ^(make|uv run) (test|check)      154   0.868   164 s
atlas   L-0002  ^git commit                      146    1.09   216 s
atlas   L-0012  ^git commit                      146    1.09   216 s
harbor  L-0101  ^(make|uv run) (test|check)      149   0.908   242 s
api     L-0201  ^make (migrate-check|db-copy)      0       0       -

sleep signs atlas: due (11 fired: candidate-needs-verdict, stale-candidate, class-share,
  active-without-hit, active-unconfirmed, fat-body, journal-share, recalled-but-failed,
  never-recalled, costly-ritual, helped-disagrees)
sleep signs harbor: due (11 fired: candidate-needs-verdict, stale-candidate, class-share,
  active-without-hit, active-unconfirmed, fat-body, journal-share, recalled-but-failed,
  never-recalled, helped-disagrees, index-layout)
sleep signs api: due (8 fired: stale-candidate, class-share, active-unconfirmed, fat-body,
  journal-share, recalled-but-failed, never-recalled, index-layout)

head -20..60: index reads cut to their first 20-60 lines (they miss a late Active section)
blind: sessions that read the index and saw no active lesson
coverage: sessions that recalled an active lesson of their base
hits recalled: of the hits (repeated failures) whose recall is known, those that came
  although the lesson was recalled; unknown: hits whose recall the logs cannot tell
large: share of the body tokens read from bodies over the large-body size
api = <out>/repos/harbor/services/api/LESSONS
atlas = <out>/repos/atlas/LESSONS
harbor = <out>/repos/harbor/LESSONS

report: <out>/reports/2026-W48/report.html
explore:
  lessons-analytics --db <out>/warehouse.duckdb heads
  lessons-analytics --db <out>/warehouse.duckdb coverage
  lessons-analytics --db <out>/warehouse.duckdb hits
  lessons-analytics --db <out>/warehouse.duckdb bodies
  lessons-analytics --db <out>/warehouse.duckdb cost --rituals
  lessons-analytics --db <out>/warehouse.duckdb effect
"""
