"""Every ``TypedDict`` of ``documents.py`` against the document its command really emits.

The scenario warehouse (the golden files' world) is built once; each command's ``--json``
output must have exactly the keys its type declares, recursively through nested
``TypedDict``s, lists of them and ``dict[str, ...]`` of them, so the types cannot drift
from the output.
"""

from __future__ import annotations

import json
import shutil
import types
import typing
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints, is_typeddict

import pytest
from click.testing import CliRunner

from lessons_analytics import documents as d
from lessons_analytics.cli import cli
from lessons_analytics.ingestion import ingest
from tests.support import scenario


def mismatches(kind: Any, value: Any, where: str = "$") -> list[str]:
    """Where ``value`` (decoded JSON) and the type ``kind`` disagree on keys."""
    if is_typeddict(kind):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not an object"]
        hints = get_type_hints(kind)
        required = kind.__required_keys__  # a NotRequired key may be absent, never unknown
        out = [f"{where}.{k}: emitted, not declared" for k in value.keys() - hints.keys()]
        out += [f"{where}.{k}: declared, not emitted" for k in required - value.keys()]
        for key in hints.keys() & value.keys():
            out += mismatches(hints[key], value[key], f"{where}.{key}")
        return out
    origin = get_origin(kind)
    if origin is list and isinstance(value, list):
        inner = get_args(kind)[0]
        return [m for i, item in enumerate(value) for m in mismatches(inner, item, f"{where}[{i}]")]
    if origin is dict and isinstance(value, dict):
        inner = get_args(kind)[1]
        return [m for k, item in value.items() for m in mismatches(inner, item, f"{where}.{k}")]
    if origin in (types.UnionType, typing.Union):
        shaped = [a for a in get_args(kind) if is_typeddict(a) or get_origin(a) in (list, dict)]
        if value is None or not shaped:
            return []
        tries = [mismatches(a, value, where) for a in shaped]
        return [] if any(not t for t in tries) else min(tries, key=len)
    return []


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("documents")
    built = scenario.build(root)
    out = root / "w.duckdb"
    ingest(out, [built.projects, built.codex])
    # the scenario's lessons lint clean: one lesson without its sections gives findings
    broken = root / "broken" / "LESSONS"
    shutil.copytree(root / "proj" / "LESSONS", broken)
    (broken / "L-0099-no-sections.md").write_text("# L-0099 no sections\n", encoding="utf-8")
    return out


BASE, BROKEN = "<base>", "<broken>"  # lesson bases next to the warehouse


def _emitted(db: Path, *args: str) -> Any:
    where = {BASE: db.parent / "proj" / "LESSONS", BROKEN: db.parent / "broken" / "LESSONS",
             "<out>": db.parent / "report"}  # fmt: skip
    args = tuple(str(where[a]) if a in where else a for a in args)
    result = CliRunner().invoke(cli, ["--db", str(db), *args, "--json"])
    # 1: check and lint failing; 3, 4: recalled's not_recalled and index_only answers
    assert result.exit_code in (0, 1, 3, 4), result.output
    return json.loads(result.stdout)


CASES: dict[str, tuple[Any, list[str]]] = {
    "heads": (d.HeadsDocument, ["heads"]),
    "coverage": (d.CoverageDocument, ["coverage"]),
    "hits": (d.HitsDocument, ["hits"]),
    "bodies": (d.BodiesDocument, ["bodies"]),
    "cost": (d.CostDocument, ["cost", "^make test"]),
    "cost-rituals": (d.CostDocument, ["cost", "--rituals"]),
    "effect": (d.EffectDocument, ["effect"]),
    "recalled": (d.RecalledDocument, ["recalled", "L-0001", "--session", scenario.S2]),
    "check": (d.CheckDocument, ["check", BASE]),
    "lint": (d.LintDocument, ["lint", BROKEN]),
    "stats": (d.StatsDocument, ["stats", BASE, "--as-of", "2026-11-30"]),
    "cards": (d.CardsDocument, ["cards", BASE]),
    "report": (d.ReportDocument, ["report", "--week", "2026-W46", "--out", "<out>"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_type_has_the_emitted_keys(db: Path, name: str) -> None:
    kind, args = CASES[name]
    doc = _emitted(db, *args)
    assert mismatches(kind, doc) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_nested_type_is_exercised(db: Path, name: str) -> None:
    # an empty list would hold any element type: the scenario must fill each one
    kind, args = CASES[name]
    empty: list[str] = []

    def walk(k: Any, v: Any, where: str) -> None:
        if is_typeddict(k) and isinstance(v, dict):
            for key, hint in get_type_hints(k).items():
                walk(hint, v.get(key), f"{where}.{key}")
        elif get_origin(k) is list and is_typeddict(get_args(k)[0]) and v == []:
            empty.append(where)
        elif get_origin(k) is list and isinstance(v, list) and v:
            walk(get_args(k)[0], v[0], f"{where}[0]")

    walk(kind, _emitted(db, *args), "$")
    assert empty == []


def test_ingest_document_has_the_emitted_keys(db: Path) -> None:
    # a copy of the scenario's transcripts with one broken line, so errors is not empty
    projects = db.parent / "bad" / "projects"
    shutil.copytree(db.parent / "claude" / "projects", projects)
    first = sorted(projects.rglob("*.jsonl"))[0]
    with first.open("a", encoding="utf-8") as out:
        out.write("{not json\n")
    doc = _emitted(db.parent / "again.duckdb", "ingest", str(projects))
    assert doc["errors"]
    assert mismatches(d.IngestDocument, doc) == []


def test_retro_document_has_the_emitted_keys(tmp_path: Path) -> None:
    # the retro fixture's transcripts: the scenario has too few signals to cluster
    db = tmp_path / "retro.duckdb"
    ingest(db, [Path(__file__).parent / "data" / "retro" / "projects"])
    doc = _emitted(db, "retro", "--out", str(tmp_path / "out"))
    assert doc["clusters"]
    assert mismatches(d.RetroDocument, doc) == []


def test_the_checker_sees_a_misspelt_key() -> None:
    good = {"week": "2026-W45", "calls": 1, "hours": 0.5, "partial": False}
    assert mismatches(d.CostWeek, good) == []
    assert mismatches(d.CostWeek, {**good, "hour": 1}) == ["$.hour: emitted, not declared"]
    doc = {"schema": "s", "generated_at": "t", "bases": [{"base": "b"}]}
    assert "$.bases[0].reads: declared, not emitted" in mismatches(d.BodiesDocument, doc)


def test_the_package_says_it_is_typed() -> None:
    # PEP 561: without the marker mypy ignores these types in a user's code; the wheel
    # target ships the whole package folder, marker included
    from importlib.resources import files

    assert (files("lessons_analytics") / "py.typed").is_file()
