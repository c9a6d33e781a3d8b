"""Changes to a base as interventions: its numbers over the sessions before and after.

``queries/effect_interventions.sql`` finds the changes (INDEX.md layout, promotions,
retirements, hook and scout prompt files), groups those closer than the window, counts
the window sessions and lists them (``intervention_windows`` gives both); this module
adds, for coverage, blind share and hit rate, each side's Wilson interval and the
Newcombe interval of the change (after minus before).
Blind share is over the sessions that read the index, the other two over all sessions of
the window: the denominators differ and the columns say which.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lessons_analytics import metrics
from lessons_analytics.engine import duckdb
from lessons_analytics.metrics import Filters
from lessons_analytics.proportions import newcombe, wilson
from lessons_analytics.settings import Thresholds

if TYPE_CHECKING:
    import polars as pl

# (measure, numerator column stem, denominator column stem)
MEASURES = (
    ("coverage", "recalled", "sessions"),
    ("blind_share", "blind", "reading_index"),
    ("hit_rate", "hit_sessions", "sessions"),
)


def _columns() -> dict[str, Any]:
    import polars as pl

    out: dict[str, Any] = {}
    for name, _num, _den in MEASURES:
        for side in ("before", "after"):
            out |= {f"{name}_{side}": pl.Float64, f"{name}_{side}_lo": pl.Float64,
                    f"{name}_{side}_hi": pl.Float64}  # fmt: skip
        out |= {f"{name}_diff": pl.Float64, f"{name}_diff_lo": pl.Float64,
                f"{name}_diff_hi": pl.Float64}  # fmt: skip
    return out


# the columns of one window session in queries/effect_interventions.sql, and its key
SESSION_COLUMNS = ("base_path", "group_id", "side", "session_id", "started_at", "is_recalled",
                   "is_reading_index", "is_blind", "is_hit", "ref_file", "ref_line")  # fmt: skip
_SESSION_KEY = ["base_path", "group_id", "side", "session_id"]


def interventions(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    thresholds: Thresholds,
) -> pl.DataFrame:
    """One row per change (commit) of a base, with the window statistics (module doc)."""
    return intervention_windows(con, filters, thresholds)[0]


def intervention_windows(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    thresholds: Thresholds,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``interventions`` and the sessions of each group's windows, from one run of the
    query: one row per (base_path, group_id, side, session_id) with its flags and the
    transcript line that makes it count (ref_file, ref_line), by base, group, side
    (before first), start and id. Summing its flags per (base, group, side) gives the
    counts of the first frame."""
    import polars as pl  # here: `stats` imports this module through effect without a frame

    rows = metrics.query(con, "effect_interventions", **_params(filters, thresholds))
    sessions = (
        rows.filter(pl.col("session_id").is_not_null())
        .select(SESSION_COLUMNS)
        .unique(subset=_SESSION_KEY, keep="first", maintain_order=True)
        .sort(
            ["base_path", "group_id", "side", "started_at", "session_id"],
            descending=[False, False, True, False, False],
        )
    )
    counts = {name: dtype for name, dtype in rows.schema.items() if name not in _DROPPED}
    schema: dict[str, Any] = {**counts, **_columns()}
    # the first row of each change before they become dicts: the query has one per session
    first = rows.unique(subset=["base_path", "commit"], keep="first", maintain_order=True)
    changes = _changes(first.to_dicts())
    frame = pl.DataFrame(changes or None, schema=schema).rename({"base_path": "base_root"})
    return frame, sessions


def intervention_rows(
    con: duckdb.DuckDBPyConnection,
    filters: Filters,
    thresholds: Thresholds,
) -> list[dict[str, Any]]:
    """``interventions`` as rows (``to_dicts()``), without Polars: the ``effect``
    document's, from the same query."""
    rows = metrics.query_rows(con, "effect_interventions", **_params(filters, thresholds))
    return [{"base_root": change.pop("base_path"), **change} for change in _changes(rows)]


def _params(filters: Filters, thresholds: Thresholds) -> dict[str, Any]:
    window = int(thresholds["intervention_window_sessions"])
    return {**filters.params(), "window_sessions": window}


# the query's columns of one window session that are not its group's
_DROPPED = frozenset(c for c in SESSION_COLUMNS if c not in ("base_path", "group_id"))


def _changes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (base_path, commit), the first the query gives (its group's counts;
    the session columns dropped), with the window statistics."""
    out = []
    seen: set[tuple[str, str]] = set()
    for row in rows:
        key = (row["base_path"], row["commit"])
        if key in seen:
            continue
        seen.add(key)
        counts = {name: value for name, value in row.items() if name not in _DROPPED}
        out.append({**counts, **_statistics(counts)})
    return out


def _statistics(row: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, num, den in MEASURES:
        k1, n1 = row[f"{num}_before"], row[f"{den}_before"]
        k2, n2 = row[f"{num}_after"], row[f"{den}_after"]
        for side, k, n in (("before", k1, n1), ("after", k2, n2)):
            interval = wilson(k, n)
            out[f"{name}_{side}"] = k / n if n else None
            out[f"{name}_{side}_lo"], out[f"{name}_{side}_hi"] = interval or (None, None)
        diff = newcombe(k1, n1, k2, n2)
        out[f"{name}_diff"], out[f"{name}_diff_lo"], out[f"{name}_diff_hi"] = diff or (
            None,
            None,
            None,
        )
    return out
