"""The life of a base from its git history: status changes of its lessons, index re-layouts.

The warehouse keeps every committed version of each lesson file (``stg_lesson_versions``)
but not the status each version declared, so it is read here from git (one
``git cat-file --batch`` per repository). Without git, or when the repository is gone, every
version is taken to have the lesson's current status: additions still show, status changes
do not, and ``git`` is reported false.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import duckdb
import frontmatter
import polars as pl

from lessons_analytics import metrics
from lessons_analytics.bases import read_blobs

# An index re-layout: the Active heading moved by more than this many lines between two
# consecutive versions (adding or removing a note above it moves it by one).
RELAYOUT_LINES = 3
_STATUS = re.compile(r"^status\s*:\s*['\"]?([A-Za-z-]+)", re.MULTILINE)
EVENT_KINDS = ("added", "promoted", "deferred", "retired", "reopened", "demoted")


def version_statuses(versions: pl.DataFrame) -> tuple[list[str | None], bool]:
    """The front-matter status of each row of ``report_lesson_versions``, and whether git
    answered for all of them."""
    statuses: list[str | None] = [None] * versions.height
    complete = True
    rows = versions.with_row_index("row").to_dicts()
    by_root: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_root.setdefault(row["repo_root"] or "", []).append(row)
    for root, items in by_root.items():
        blobs = _blobs(Path(root), [(r["commit"], _relpath(root, r["file_path"])) for r in items])
        for row, blob in zip(items, blobs, strict=True):
            statuses[row["row"]] = _status(blob) if blob is not None else None
            complete = complete and blob is not None
    return statuses, complete


def _relpath(root: str, path: str) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return path


def _blobs(root: Path, wanted: list[tuple[str, str]]) -> list[bytes | None]:
    if not wanted or not root.parts or not root.is_dir():
        return [None] * len(wanted)
    return read_blobs(root, wanted)


def _status(blob: bytes) -> str | None:
    text = blob.decode("utf-8", errors="replace")
    try:
        value = frontmatter.loads(text).metadata.get("status")
    except Exception:  # broken YAML in an old version: fall back to the plain line
        match = _STATUS.search(text.split("\n---", 1)[0])
        value = match.group(1) if match else None
    return str(value).strip().lower() if value is not None else None


def _kind(before: str | None, after: str | None) -> str | None:
    if before == after or after is None:
        return None
    if after == "active":
        return "promoted" if before in (None, "candidate", "deferred") else "reopened"
    if after in ("deferred", "retired"):
        return after
    if after == "candidate":
        return "demoted" if before == "active" else "reopened"
    return None


def lesson_events(
    con: duckdb.DuckDBPyConnection, base: str, until: Any
) -> tuple[list[dict[str, Any]], bool]:
    """Every addition and status change of the base's lessons before ``until``, oldest first,
    and whether the statuses came from git."""
    versions = metrics.query(con, "report_lesson_versions", bases=[base], until=until)
    statuses, from_git = version_statuses(versions)
    current = {
        r["lesson_id"]: r["status"]
        for r in metrics.run_sql(
            con, "select lesson_id, status from dim_lessons where base_path = $base", {"base": base}
        ).to_dicts()
    }
    retired = {
        r["lesson_id"]: r
        for r in metrics.run_sql(
            con,
            "select lesson_id, retired_date, reason, where_ from fct_retired"
            " where base_path = $base",
            {"base": base},
        ).to_dicts()
    }
    events: list[dict[str, Any]] = []
    last: dict[str, str | None] = {}
    for row, status in zip(versions.to_dicts(), statuses, strict=True):
        lid = row["lesson_id"]
        status = status if from_git else current.get(lid)
        common = {
            "lesson_id": lid,
            "week": row["week"],
            "at": row["committed_at"],
            "commit": row["commit"][:7],
            "status": status,
        }
        if lid not in last:
            events.append({**common, "kind": "added", "from": None})
        elif (kind := _kind(last[lid], status)) is not None:
            event = {**common, "kind": kind, "from": last[lid]}
            if kind == "retired" and lid in retired:
                event["reason"] = retired[lid]["reason"]
                event["where"] = retired[lid]["where_"]
            events.append(event)
        last[lid] = status
    return events, from_git


def life_by_week(events: list[dict[str, Any]], weeks: list[str]) -> list[dict[str, Any]]:
    """Per week: candidates added (and lessons added with another status), promoted,
    deferred, retired."""
    rows = []
    for week in weeks:
        here = [e for e in events if e["week"] == week]
        rows.append(
            {
                "week": week,
                "candidates_added": sum(
                    e["kind"] == "added" and e["status"] == "candidate" for e in here
                ),
                "other_added": sum(
                    e["kind"] == "added" and e["status"] != "candidate" for e in here
                ),
                "promoted": sum(e["kind"] == "promoted" for e in here),
                "deferred": sum(e["kind"] == "deferred" for e in here),
                "retired": sum(e["kind"] == "retired" for e in here),
            }
        )
    return rows


def relayouts(con: duckdb.DuckDBPyConnection, base: str, until: Any) -> list[dict[str, Any]]:
    """Index versions whose Active heading moved by more than ``RELAYOUT_LINES`` lines."""
    frame = metrics.query(con, "report_index_versions", bases=[base], until=until)
    out = []
    for row in frame.to_dicts():
        before, after = row["previous_active_heading_line"], row["active_heading_line"]
        if before is None:
            continue  # the first version (or one without an Active heading before it)
        if after is None or abs(after - before) > RELAYOUT_LINES:
            out.append(
                {
                    "week": row["week"],
                    "at": row["committed_at"],
                    "commit": row["version_id"][:7],
                    "from_line": before,
                    "to_line": after,
                }
            )
    return out


def chart_annotations(
    events: list[dict[str, Any]], layouts: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The commits that changed the base, as labels for the trend charts."""
    notes = [
        {
            "week": e["week"],
            "at": e["at"],
            "commit": e["commit"],
            "kind": e["kind"],
            "label": f"{e['lesson_id']} {e['kind']}",
        }
        for e in events
        if e["kind"] in ("promoted", "retired", "deferred", "demoted")
    ]
    notes += [
        {
            "week": r["week"],
            "at": r["at"],
            "commit": r["commit"],
            "kind": "relayout",
            "label": f"INDEX {_moved(r)} (Active line {r['from_line']}→{r['to_line']})",
        }
        for r in layouts
    ]
    return sorted(notes, key=lambda n: (n["at"], n["label"]))


def _moved(r: dict[str, Any]) -> str:
    # Notes added in one commit push the heading down by many lines: that is the index
    # growing, not a re-layout, though both change what a `head -40` shows.
    grew = r["to_line"] is not None and r["to_line"] > r["from_line"]
    return "grew" if grew else "re-layout"
