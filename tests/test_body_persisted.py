"""A persisted output (Claude Code saved a large body read to a file) costs the same
wherever the transcripts live: the saved file's path in its notice is not counted."""

from __future__ import annotations

import math
import re
from pathlib import Path

from lessons_analytics import metrics, warehouse
from lessons_analytics.ingestion import ingest
from tests.support.basebuilder import index_text, lesson_text, make_base
from tests.support.transcripts import ClaudeSession

SESSION = "5e551011-0000-4000-8000-000000000001"
CALL_AT = "2026-11-03T10:00:05Z"


def _notice(path: str, preview: str) -> str:
    # the shape Claude Code writes (size, path, then a preview of the first 2 KB)
    return (
        "<persisted-output>\nOutput too large (31.9KB). Full output saved to: "
        f"{path}\n\nPreview (first 2KB):\n{preview}\n...\n</persisted-output>"
    )


def _body_cost(root: Path) -> tuple[int, int, int]:
    """(tokens, chars of the persisted read's result, length of the path in it)."""
    project = root / "repos" / "app"
    body = lesson_text("L-0001") + "Note: " + "x" * 40_000 + "\n"
    make_base(project, lessons={"L-0001.md": body}, index=index_text(active=["L-0001"]))
    folder = root / "claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project))
    s = ClaudeSession(folder, SESSION, cwd=str(project), version="2.1.114")
    s.prompt("2026-11-03T10:00:00Z", "check the lesson")
    call = s.bash(CALL_AT, "cat LESSONS/L-0001.md")
    saved = str(folder / SESSION / "tool-results" / f"{call}.txt")
    text = _notice(saved, body[:2048])
    s.result(call, "2026-11-03T10:00:06Z", text)
    s.write()
    db = root / "w.duckdb"
    ingest(db, [root / "claude" / "projects"])
    con = warehouse.connect(db, read_only=True)
    try:
        (doc,) = metrics.bodies_document(con, metrics.Filters(), 4, 20480)["bases"]  # defaults
    finally:
        con.close()
    assert doc["reads"] == 1
    return doc["tokens"], len(text), len(saved)


def test_the_saved_path_is_not_counted_so_the_cost_ignores_the_root(tmp_path: Path) -> None:
    short = _body_cost(tmp_path / "a")
    long = _body_cost(tmp_path / ("b" * 60))
    assert long[2] == short[2] + 59 * 2  # the root appears twice: folder and its encoding
    # by hand: the notice and the 2,048-character preview, less the path
    for tokens, chars, path in (short, long):
        assert tokens == math.ceil((chars - path) / 4)
    assert short[0] == long[0] == math.ceil(len(_notice("", "y" * 2048)) / 4)


def test_a_path_longer_than_the_result_head_is_left_out_too(tmp_path: Path) -> None:
    # the parser keeps 300 characters of a result; of a persisted output it keeps the whole
    # notice line, so a deep folder's path is found and left out as well
    tokens, chars, path = _body_cost(tmp_path / ("d" * 40) / ("e" * 40) / ("f" * 40))
    assert path > 300
    assert tokens == math.ceil((chars - path) / 4) == math.ceil(len(_notice("", "y" * 2048)) / 4)
