"""The report's PNG charts, drawn only when their data changed.

Each chart is keyed by a SHA-256 of its drawing function's name, its arguments (frames by
column names, dtypes and rows) and the chart code version: the bytes of ``charts.py`` and
the installed matplotlib version, so a change to either redraws every chart. The PNGs live
beside the report, in ``<parent>/.chart-cache/<report dir name>/<key>.png``, so the report
folder holds only the report (it is shared or committed as it is). A hit copies the bytes
an uncached render of the same data writes (matplotlib's Agg PNG carries no timestamp).
After a run the cache holds only the keys that run used: it never outgrows one report.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import polars as pl

from lessons_analytics.report.layout import Chart

CACHE_DIR = ".chart-cache"
CHARTS_SOURCE = Path(__file__).with_name("charts.py")


def cache_dir(directory: Path) -> Path:
    """Where the charts of the report written into ``directory`` are cached."""
    directory = directory.resolve()
    return directory.parent / CACHE_DIR / directory.name


def code_version() -> str:
    """The chart code's version: what changes every PNG when it changes."""
    digest = hashlib.sha256(CHARTS_SOURCE.read_bytes())
    digest.update(_matplotlib_version().encode())
    return digest.hexdigest()


def _matplotlib_version() -> str:
    """The installed matplotlib's version, without importing it: the ``Version:`` header of
    the one ``matplotlib-*.dist-info/METADATA`` beside the package. ``metadata.version``
    gives the same string but lists every distribution on the path and parses the whole
    file as e-mail (its README included): 40-60 ms of a report whose charts are cached."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is not None and spec.origin is not None:
        found = list(Path(spec.origin).parent.parent.glob("matplotlib-*.dist-info/METADATA"))
        if len(found) == 1:
            with found[0].open(encoding="utf-8") as lines:
                for line in lines:
                    if not line.strip():
                        break  # the end of the headers
                    if line.startswith("Version:"):
                        return line.removeprefix("Version:").strip()
    return metadata.version("matplotlib")


def _canonical(value: Any) -> Any:
    """A value whose repr is the same exactly when the chart drawn from it is the same."""
    if isinstance(value, pl.DataFrame):
        return ("frame", value.columns, [str(t) for t in value.dtypes], value.rows())
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"chart argument of type {type(value).__name__} has no cache key")


def chart_key(chart: Chart, version: str) -> str:
    material = repr((version, chart.draw, _canonical(chart.args)))
    return hashlib.sha256(material.encode()).hexdigest()


def render_charts(charts: Sequence[Chart], directory: Path) -> dict[str, bytes]:
    """The PNG bytes of every chart by file name, read from the cache where the key matches
    and drawn (then cached) otherwise."""
    cache = cache_dir(directory)
    cache.mkdir(parents=True, exist_ok=True)
    version = code_version()
    images: dict[str, bytes] = {}
    used: set[str] = set()
    for chart in charts:
        key = chart_key(chart, version)
        used.add(f"{key}.png")
        path = cache / f"{key}.png"
        if path.is_file():
            images[chart.name] = path.read_bytes()
            continue
        from lessons_analytics.report.charts import png_bytes

        data = png_bytes(chart.figure)
        # Written beside and renamed, so an interrupted run never leaves a truncated PNG
        # that a later run would take for a hit.
        partial = path.with_suffix(".partial")
        partial.write_bytes(data)
        partial.replace(path)
        images[chart.name] = data
    for stale in cache.iterdir():
        if stale.name not in used:
            stale.unlink()
    return images
