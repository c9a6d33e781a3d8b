"""Build the warehouse layers of ``sql/``: staging views, then intermediate and mart tables.

Each file holds one ``select``; the file name is the object's name. Layers run in order and
files in name order inside a layer, so a model may use any earlier layer.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb

from lessons_analytics.sqlfiles import layer_files


def build(con: duckdb.DuckDBPyConnection) -> list[str]:
    """(Re)create every model; returns their names in build order."""
    built = []
    for path in layer_files():
        name = path.stem
        body = path.read_text(encoding="utf-8").strip().rstrip(";")
        kind = materialization(path, body)
        con.execute(f"create or replace {kind} {name} as\n{body}")
        built.append(name)
    return built


def materialization(path: Path, body: str) -> str:
    """Staging models are views and the rest tables, unless the file's header says
    ``-- materialized: view`` (an intermediate step read by few models, cheaper to recompute
    than to store)."""
    if path.parent.name == "staging":
        return "view"
    header = body.split("\nwith", 1)[0].split("\nselect", 1)[0]
    return "view" if "-- materialized: view" in header else "table"


def models_fingerprint() -> str:
    """Changes when any model file changes, so an upgrade rebuilds the layers."""
    digest = hashlib.blake2b(digest_size=16)
    for path in layer_files():
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
