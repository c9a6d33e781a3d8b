"""The life of a base from its git history: status changes of its lessons, index re-layouts.

Everything comes from the warehouse: ingest stores each committed version of every lesson
file with the status its front matter declared (``stg_lesson_versions``), so the report of
a week reads no file and no git. A base outside git has no versions: ``from_git`` is false
and its life shows nothing.
"""

from __future__ import annotations

from typing import Any

from lessons_analytics import metrics
from lessons_analytics.engine import duckdb

# An index re-layout: the Active heading moved by more than this many lines between two
# consecutive versions (adding or removing a note above it moves it by one).
RELAYOUT_LINES = 3


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
    and whether the base is in git (without git there is no history to show)."""
    versions = metrics.query(con, "report_lesson_versions", bases=[base], until=until)
    in_git = [r["is_git"] for r in metrics.query_rows(con, "report_base_git", bases=[base])]
    retired = {r["lesson_id"]: r for r in metrics.query_rows(con, "report_retired", bases=[base])}
    events: list[dict[str, Any]] = []
    last: dict[str, str | None] = {}
    for row in versions.to_dicts():
        lid, status = row["lesson_id"], row["status"]
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
    return events, bool(in_git and in_git[0])


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
