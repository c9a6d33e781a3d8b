"""The report's charts: each takes a Polars frame and returns a matplotlib Figure.

Figures are built without pyplot (no global state, the Agg canvas renders them), so the
report can be written from any thread or a notebook. ``annotations`` frames have the
columns ``week`` and ``label``: the commits that changed the base, drawn where they
happened.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")

import polars as pl  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

RECALL_ORDER = ("recalled", "index_only", "not_recalled", "unknown")
RECALL_COLORS = {
    "recalled": "#c0392b",
    "index_only": "#e67e22",
    "not_recalled": "#7f8c8d",
    "unknown": "#d5d8dc",
}
RECALL_LABELS = {
    "recalled": "recalled (prose did not hold)",
    "index_only": "index row only",
    "not_recalled": "not recalled",
    "unknown": "unknown (no transcript)",
}
BLUE = "#2e86c1"


def _figure(height: float = 3.4) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(8, height), dpi=110, layout="constrained")
    ax = fig.add_subplot()
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=9)
    return fig, ax


def _empty(fig: Figure, ax: Axes, text: str = "no data") -> Figure:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#666")
    ax.set_xticks([])
    ax.set_yticks([])
    return fig


def _legend(fig: Figure, ax: Axes, ncols: int = 4) -> None:
    """The legend below the plot, where it hides neither data nor the commit labels."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncols=min(ncols, len(handles)),
            fontsize=8,
            frameon=False,
        )


def _week_axis(ax: Axes, weeks: Sequence[str]) -> None:
    ax.set_xticks(range(len(weeks)), [w[-3:] for w in weeks], fontsize=9)
    ax.set_xlim(-0.6, len(weeks) - 0.4)
    ax.set_xlabel(
        f"ISO week ({weeks[0][:4]}{'–' + weeks[-1][:4] if weeks[-1][:4] != weeks[0][:4] else ''})",
        fontsize=9,
    )


def _annotate(ax: Axes, weeks: Sequence[str], annotations: pl.DataFrame | None) -> None:
    if annotations is None or annotations.is_empty():
        return
    at = {w: i for i, w in enumerate(weeks)}
    grouped = annotations.group_by("week", maintain_order=True).agg(pl.col("label"))
    for row in grouped.to_dicts():
        if row["week"] not in at:
            continue
        x = at[row["week"]] - 0.45
        ax.axvline(x, color="#8e44ad", linestyle="--", linewidth=1, alpha=0.8)
        ax.text(
            x + 0.04,
            0.98,
            "\n".join(row["label"]),
            transform=ax.get_xaxis_transform(),
            fontsize=7,
            color="#6c3483",
            va="top",
            ha="left",
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8},
        )


def coverage_chart(
    frame: pl.DataFrame, weeks: Sequence[str], annotations: pl.DataFrame | None = None
) -> Figure:
    """Recall coverage by week: share with its 95 % band, counts above each point (hollow
    points: fewer than 15 sessions, direction only). Columns: week, sessions_in_scope,
    sessions_recalled, low, high."""
    fig, ax = _figure()
    if frame.is_empty():
        return _empty(fig, ax)
    at = {w: i for i, w in enumerate(weeks)}
    rows = [r for r in frame.sort("week").to_dicts() if r["week"] in at]
    xs = [at[r["week"]] for r in rows]
    ys = [100 * r["sessions_recalled"] / r["sessions_in_scope"] for r in rows]
    ax.fill_between(
        xs,
        [100 * r["low"] for r in rows],
        [100 * r["high"] for r in rows],
        color=BLUE,
        alpha=0.15,
        linewidth=0,
        label="95 % interval (Wilson)",
    )
    ax.plot(xs, ys, color=BLUE, linewidth=2, zorder=2)
    for x, y, r in zip(xs, ys, rows, strict=True):
        small = r["sessions_in_scope"] < 15
        ax.plot(
            x,
            y,
            "o",
            color=BLUE,
            markerfacecolor="white" if small else BLUE,
            markersize=6,
            zorder=3,
        )
        ax.annotate(
            f"{r['sessions_recalled']}/{r['sessions_in_scope']}",
            (x, y),
            xytext=(0, 7),
            textcoords="offset points",
            ha="center",
            fontsize=8,
        )
    ax.set_ylim(0, 125 if annotations is not None and annotations.height else 108)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("sessions that recalled a lesson (%)", fontsize=9)
    _week_axis(ax, weeks)
    _annotate(ax, weeks, annotations)
    ax.plot(
        [],
        [],
        "o",
        color=BLUE,
        markerfacecolor="white",
        label="fewer than 15 sessions: direction only",
    )
    _legend(fig, ax)
    return fig


def hits_by_week_chart(
    frame: pl.DataFrame, weeks: Sequence[str], annotations: pl.DataFrame | None = None
) -> Figure:
    """Hits per week stacked by recall status. Columns: week, recall, hits."""
    fig, ax = _figure()
    if frame.is_empty():
        return _empty(fig, ax)
    bottom = [0] * len(weeks)
    for kind in RECALL_ORDER:
        counts = {r["week"]: r["hits"] for r in frame.filter(pl.col("recall") == kind).to_dicts()}
        values = [counts.get(w, 0) for w in weeks]
        if any(values):
            ax.bar(
                range(len(weeks)),
                values,
                bottom=bottom,
                color=RECALL_COLORS[kind],
                label=RECALL_LABELS[kind],
                width=0.7,
            )
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    for x, total in enumerate(bottom):
        if total:
            ax.text(x, total, str(total), ha="center", va="bottom", fontsize=8)
    ax.set_ylim(0, max(max(bottom) * 1.4, 1))
    ax.set_ylabel("hits (repeated failures)", fontsize=9)
    _week_axis(ax, weeks)
    _annotate(ax, weeks, annotations)
    _legend(fig, ax)
    return fig


def hits_by_caught_chart(frame: pl.DataFrame) -> Figure:
    """Hits per catcher stacked by recall status. Columns: caught, recall, hits."""
    catchers = (
        frame.group_by("caught")
        .agg(pl.col("hits").sum())
        .sort("hits", "caught")["caught"]
        .to_list()
        if not frame.is_empty()
        else []
    )
    fig, ax = _figure(max(1.8, 0.45 * len(catchers) + 1.0))
    if not catchers:
        return _empty(fig, ax)
    left = [0] * len(catchers)
    for kind in RECALL_ORDER:
        counts = {r["caught"]: r["hits"] for r in frame.filter(pl.col("recall") == kind).to_dicts()}
        values = [counts.get(c, 0) for c in catchers]
        if any(values):
            ax.barh(
                catchers, values, left=left, color=RECALL_COLORS[kind], label=RECALL_LABELS[kind]
            )
        left = [a + v for a, v in zip(left, values, strict=True)]
    for y, total in enumerate(left):
        ax.text(total, y, f" {total}", va="center", fontsize=8)
    ax.set_xlabel("hits", fontsize=9)
    ax.set_xlim(0, max(left) * 1.12)
    _legend(fig, ax)
    return fig


def heads_histogram_chart(frame: pl.DataFrame, active_line: int | None = None) -> Figure:
    """How many lines ``head -N`` asked for, blind reads darker, with the line of the Active
    heading marked: reads left of it never saw an active lesson. Columns: head_n, reads,
    blind_reads."""
    fig, ax = _figure()
    if frame.is_empty():
        return _empty(fig, ax)
    rows = frame.sort("head_n").to_dicts()
    ns = [r["head_n"] for r in rows]
    width = max(1.0, 0.8 * min((b - a for a, b in zip(ns, ns[1:], strict=False)), default=10))
    ax.bar(
        ns,
        [r["reads"] - r["blind_reads"] for r in rows],
        width=width,
        color=BLUE,
        label="saw some Active rows",
    )
    ax.bar(
        ns,
        [r["blind_reads"] for r in rows],
        width=width,
        color="#1b2631",
        bottom=[r["reads"] - r["blind_reads"] for r in rows],
        label="blind (no Active row)",
    )
    if (
        "active_heading_line_min" in frame.columns
        and frame["active_heading_line_min"].drop_nulls().len()
    ):
        low = int(frame["active_heading_line_min"].min())  # type: ignore[arg-type]
        high = int(frame["active_heading_line_max"].max())  # type: ignore[arg-type]
        if low != high:
            ax.axvspan(
                low,
                high,
                color="#c0392b",
                alpha=0.08,
                label=f"Active heading during the window: lines {low}–{high}",
            )
    if active_line is not None:
        ax.axvline(active_line, color="#c0392b", linewidth=2)
        ax.text(
            active_line,
            0.97,
            f" Active heading: line {active_line}",
            color="#c0392b",
            transform=ax.get_xaxis_transform(),
            fontsize=8,
            va="top",
        )
    ax.set_xlabel("N in head -N", fontsize=9)
    ax.set_ylabel("index reads", fontsize=9)
    ax.set_ylim(0, max(r["reads"] for r in rows) * 1.15)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    _legend(fig, ax)
    return fig


def bodies_chart(frame: pl.DataFrame, top: int = 10) -> Figure:
    """Top lessons by body-read tokens; large bodies (> 20 KB) in red. Columns: id, tokens,
    large."""
    rows = (
        frame.sort("tokens", descending=True).head(top).reverse().to_dicts() if frame.height else []
    )
    fig, ax = _figure(max(1.8, 0.4 * len(rows) + 1.0))
    if not rows:
        return _empty(fig, ax)
    colors = ["#c0392b" if r["large"] else BLUE for r in rows]
    ax.barh([r["id"] for r in rows], [r["tokens"] for r in rows], color=colors)
    for y, r in enumerate(rows):
        ax.text(r["tokens"], y, f" {r['tokens']:,}", va="center", fontsize=8)
    ax.set_xlim(0, max(r["tokens"] for r in rows) * 1.12)
    ax.set_xlabel("estimated tokens delivered (red: body over 20 KB)", fontsize=9)
    return fig


def rituals_chart(
    frame: pl.DataFrame, weeks: Sequence[str], annotations: pl.DataFrame | None = None
) -> Figure:
    """Session hours spent in each ritual, by week. Columns: ritual, week, hours."""
    fig, ax = _figure()
    if frame.is_empty():
        return _empty(fig, ax)
    for name in sorted(set(frame["ritual"].to_list())):
        part = {r["week"]: r["hours"] for r in frame.filter(pl.col("ritual") == name).to_dicts()}
        ax.plot(range(len(weeks)), [part.get(w, 0.0) or 0.0 for w in weeks], marker="o", label=name)
    top = max((h or 0.0) for h in frame["hours"].to_list())
    ax.set_ylim(0, max(top * 1.45, 0.1))
    ax.set_ylabel("session hours", fontsize=9)
    _week_axis(ax, weeks)
    _annotate(ax, weeks, annotations)
    _legend(fig, ax, 2)
    return fig


LIFE_SERIES = (
    ("candidates_added", "candidates added", "#2e86c1"),
    ("promoted", "promoted", "#27ae60"),
    ("deferred", "deferred", "#f1c40f"),
    ("retired", "retired", "#7f8c8d"),
)


def life_chart(frame: pl.DataFrame) -> Figure:
    """The base's life by week: candidates added, promoted, deferred, retired. Columns: week
    and one per series."""
    fig, ax = _figure(3.0)
    if frame.is_empty():
        return _empty(fig, ax)
    weeks = frame["week"].to_list()
    width = 0.2
    for i, (column, label, color) in enumerate(LIFE_SERIES):
        xs = [x + (i - 1.5) * width for x in range(len(weeks))]
        ax.bar(xs, frame[column].to_list(), width=width, color=color, label=label)
    ax.set_ylabel("lessons", fontsize=9)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    _week_axis(ax, weeks)
    _legend(fig, ax)
    return fig


def portfolio_chart(frame: pl.DataFrame) -> Figure:
    """Recall coverage of each base in the report week with its 95 % interval. Columns:
    name, count, total, low, high."""
    rows = frame.filter(pl.col("total") > 0).to_dicts() if frame.height else []
    fig, ax = _figure(max(1.8, 0.5 * len(rows) + 1.0))
    if not rows:
        return _empty(fig, ax)
    ys = list(range(len(rows)))
    shares = [100 * r["count"] / r["total"] for r in rows]
    errors = [
        [s - 100 * r["low"] for s, r in zip(shares, rows, strict=True)],
        [100 * r["high"] - s for s, r in zip(shares, rows, strict=True)],
    ]
    ax.barh(ys, shares, xerr=errors, color=BLUE, capsize=4, error_kw={"ecolor": "#555"})
    ax.set_yticks(ys, [r["name"] for r in rows], fontsize=9)
    for y, r in zip(ys, rows, strict=True):
        ax.text(1, y, f"{r['count']}/{r['total']}", va="center", fontsize=8, color="white")
    ax.set_xlim(0, 100)
    ax.set_xlabel("recall coverage this week (%), 95 % interval", fontsize=9)
    return fig


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG bytes (the Agg renderer)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()
