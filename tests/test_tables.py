"""The terminal renderers on documents written by hand: exact text, widths, base names."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from lessons_analytics import tables
from lessons_analytics.signs import BaseStats, Sign


def _heads_row(base: str, reads: int, blind: int, reading: int) -> dict[str, object]:
    return {"base": base, "reads": reads, "head_reads": 0, "head_20_60": 0, "prefix_reads": 0,
            "blind_reads": 0, "truncated_reads": 0, "blind_sessions": blind,
            "sessions_reading_index": reading}  # fmt: skip


def test_two_bases_of_one_name_get_their_parent_and_a_legend() -> None:
    doc = {"bases": [_heads_row("/srv/a/app/LESSONS", 12, 6, 17),
                     _heads_row("/srv/b/app/LESSONS", 3, 0, 0)]}  # fmt: skip
    assert tables.heads(doc) == (
        "base   reads  head  head 20-60  prefix  blind  truncated  blind sessions\n"
        "-----  -----  ----  ----------  ------  -----  ---------  --------------\n"
        "a/app     12     0           0       0      0          0     6/17 (35 %)\n"
        "b/app      3     0           0       0      0          0             0/0\n"
        "\n"
        "a/app = /srv/a/app/LESSONS\n"
        "b/app = /srv/b/app/LESSONS"
    )


def test_a_sign_that_fired_never_prints_as_its_threshold() -> None:
    """costly-ritual fires above 1 h/week: at 1.01 it must not read 1.0 against 1.0."""
    signs = [Sign("costly-ritual", 1.01, 1.0, True, ["L-0002"]),
             Sign("costly-body", 200_000.4, 200_000, True, ["L-0003"]),
             Sign("fat-body", 1, 20480, True, ["L-0001"])]  # fmt: skip
    text = tables.stats([BaseStats("/w/app/LESSONS", date(2026, 11, 30), signs, 3)])
    assert text == (
        "app  (as of 2026-11-30; sleep due: no)\n"
        "sign                           value  fires when             fired  lessons\n"
        "-------------  ---------------------  ---------------------  -----  -------\n"
        "costly-ritual            1.01 h/week  > 1 h/week             FIRED  L-0002\n"
        "costly-body    200,000.4 tokens/week  > 200,000 tokens/week  FIRED  L-0003\n"
        "fat-body                           1  body > 20 KiB          FIRED  L-0001\n"
        "\n"
        "value: lessons the rule holds for (index-layout: failed rules), "
        "or a measure with its unit\n"
        "app = /w/app/LESSONS"
    )


def test_lessons_column_keeps_the_table_within_100_columns() -> None:
    ids = [f"L-{n:04d}" for n in range(1, 13)]
    signs = [Sign("journal-share", 12, 0.5, True, ids)]
    text = tables.stats([BaseStats("/w/app/LESSONS", date(2026, 11, 30), signs, 3)])
    row = text.splitlines()[3]
    assert len(row) <= 100
    # sign 13 + value 5 + rule 22 + fired 5 + 8 of gaps leave 47: six ids and " +6" take 49,
    # five and " +7" take 41
    assert row.endswith("FIRED  L-0001, L-0002, L-0003, L-0004, L-0005 +7")


def test_explore_lists_one_pasteable_command_a_line() -> None:
    text = tables.explore(Path("/tmp/my demo/w.duckdb"))
    assert text.splitlines() == [
        "explore:",
        "  lessons-analytics --db '/tmp/my demo/w.duckdb' heads",
        "  lessons-analytics --db '/tmp/my demo/w.duckdb' coverage",
        "  lessons-analytics --db '/tmp/my demo/w.duckdb' hits",
        "  lessons-analytics --db '/tmp/my demo/w.duckdb' bodies",
        "  lessons-analytics --db '/tmp/my demo/w.duckdb' cost --rituals",
        "  lessons-analytics --db '/tmp/my demo/w.duckdb' effect",
    ]
