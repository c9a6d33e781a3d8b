"""The package names DuckDB through ``lessons_analytics.engine`` (its docstring says why):
the engine alone at run time, and DuckDB's Python layer only where a function asks for it
(``with_relations``) before using it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from lessons_analytics import engine

PACKAGE = Path(engine.__file__).parent
# Spark's and sqlglot's own `.sql` are not DuckDB's
NOT_DUCKDB = {"spark_engine.py", "spark_parse.py"}
# the package's names for a DuckDB connection (`con`, and a cursor for a thread: `other`)
CONNECTIONS = {"con", "other"}


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in PACKAGE.rglob("*.py")]


def _type_checking_only(tree: ast.Module) -> set[int]:
    """Line numbers of the statements inside an ``if TYPE_CHECKING:``."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for inner in node.body:
                lines.update(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1))
    return lines


def _imported_duckdb(tree: ast.Module) -> list[int]:
    """Lines importing DuckDB at run time (not for the type checker alone)."""
    hidden = _type_checking_only(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        duck = any(name.split(".")[0] in ("duckdb", "_duckdb") for name in names)
        if duck and node.lineno not in hidden:
            found.append(node.lineno)
    return found


def test_only_the_engine_module_imports_duckdb() -> None:
    found = {
        f"{path.relative_to(PACKAGE)}:{line}"
        for path, tree in _modules()
        if path.name != "engine.py"
        for line in _imported_duckdb(tree)
    }
    assert found == set()


def test_the_finder_sees_an_import_outside_type_checking() -> None:
    tree = ast.parse("import duckdb\nif TYPE_CHECKING:\n    import duckdb as d\n")
    assert _imported_duckdb(tree) == [1]


def test_every_duckdb_name_the_package_uses_is_the_engines() -> None:
    """A name only the Python layer defines would fail in a run that never loaded it (a
    test process has loaded it: tests import duckdb)."""
    used = {
        node.attr
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "duckdb"
    }
    assert "DuckDBPyConnection" in used and "connect" in used  # the scan found the uses
    assert sorted(name for name in used if not hasattr(engine.duckdb, name)) == []


_LAYER_METHODS = """
import sys
import _duckdb
before = set(dir(_duckdb.DuckDBPyConnection))
import duckdb
print(' '.join(sorted(set(dir(duckdb.DuckDBPyConnection)) - before)))
"""


@pytest.fixture(scope="module")
def layer_methods() -> set[str]:
    """The connection methods DuckDB's Python layer adds (none under DuckDB 1.x, whose
    package is its engine), and ``register``, whose scan of an Arrow object is the layer's."""
    if engine.duckdb.__name__ == "duckdb":
        return {"register"}
    done = subprocess.run(
        [sys.executable, "-c", _LAYER_METHODS], capture_output=True, text=True, check=True
    )
    return {"register", *done.stdout.split()}


def _unprepared_calls(tree: ast.Module, methods: set[str]) -> list[str]:
    """Calls of a layer method on a connection in a function that does not call
    ``with_relations()`` first."""
    out = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        calls = [node for node in ast.walk(function) if isinstance(node, ast.Call)]
        prepared = [
            call.lineno
            for call in calls
            if isinstance(call.func, ast.Name | ast.Attribute)
            and (call.func.id if isinstance(call.func, ast.Name) else call.func.attr)
            == "with_relations"
        ]
        for call in calls:
            func = call.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr in methods
                and isinstance(func.value, ast.Name)
                and func.value.id in CONNECTIONS
                and not any(line < call.lineno for line in prepared)
            ):
                out.append(f"{function.name}:{call.lineno}")
    return out


def test_the_python_layer_is_loaded_before_it_is_used(layer_methods: set[str]) -> None:
    assert "sql" in layer_methods or engine.duckdb.__name__ == "duckdb"
    found = {
        f"{path.relative_to(PACKAGE)}:{where}"
        for path, tree in _modules()
        if path.name not in NOT_DUCKDB
        for where in _unprepared_calls(tree, layer_methods)
    }
    assert found == set()


def test_the_checker_sees_a_layer_call_without_with_relations() -> None:
    tree = ast.parse(
        "def bad(con):\n    return con.sql('select 1')\n"
        "def late(con):\n    con.register('x', 1)\n    with_relations()\n"
        "def good(con):\n    with_relations()\n    return con.sql('select 1')\n"
    )
    assert _unprepared_calls(tree, {"sql", "register"}) == ["bad:2", "late:4"]


def test_a_fresh_process_scans_frames_and_makes_frames(tmp_path: Path) -> None:
    """A cold ingest that hands its rows and its bases' rows to DuckDB as Arrow streams
    (the small-batch path turned off), then a frame and the public connection's relation
    API, in a process that imported nothing of DuckDB before: the layer is loaded where the
    package uses it."""
    from lessons_analytics.demo import build_demo

    ws = build_demo(tmp_path / "ws")
    db = tmp_path / "w.duckdb"
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from lessons_analytics import load, metrics, warehouse\n"
        "from lessons_analytics.ingestion import ingest\n"
        "load.SMALL_BYTES = 0\n"
        f"ingest(Path({str(db)!r}), [Path({str(ws.claude_projects)!r})],"
        f" [Path(b) for b in {[str(b) for b in ws.bases]!r}])\n"
        "con = warehouse.connect(Path(sys.argv[1]), read_only=True)\n"
        "frame = metrics.run_sql(con, 'select count(*) as n from fct_sessions', {})\n"
        "con.close()\n"
        "from lessons_analytics import api\n"
        "con = api.connect(sys.argv[1], read_only=True)\n"
        "print(frame['n'][0], con.sql('select count(*) from raw_events').fetchall()[0][0],"
        " con.sql('select count(*) from raw_lessons').fetchall()[0][0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(db)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    sessions, events, lessons = map(int, done.stdout.split())
    assert sessions > 0 and events > 0 and lessons > 0


# the shapes a query hands a frame: zoned times, lists, decimals, nulls, no rows
STREAMED = [
    ("select $at::timestamptz as at, [1.5, 2.0] as l, 1.25::decimal(18, 6) as d,"
     " null::varchar as s, $n::bigint as n", {"at": "2026-11-30 10:00:00+02", "n": 7}),
    ("select range as i, range::varchar as s from range(300000)", {}),
    ("select 1 as a where false", {}),
    ("select [] as empty, {'k': 'v'} as st, true as b", {}),
]  # fmt: skip


@pytest.mark.parametrize(("sql", "params"), STREAMED)
def test_a_stream_makes_the_frame_the_layer_makes(sql: str, params: dict[str, object]) -> None:
    import polars as pl

    con = engine.duckdb.connect()
    con.execute("set TimeZone = 'UTC'")
    streamed = pl.DataFrame(engine.arrow_stream(con, sql, params))
    engine.with_relations()
    layered = pl.DataFrame(con.sql(sql, params=params))
    assert streamed.schema == layered.schema
    assert streamed.rows() == layered.rows()


@pytest.mark.parametrize(
    ("sql", "params"),
    [
        ("select * from no_such_table", {}),  # refused before a row
        ("select $v::int as v", {"v": "zz"}),  # a value that does not convert
        ("select $v as v", {}),  # a value not given
        # a row that fails after 300k rows were streamed
        ("select (case when range < 300000 then range::varchar else 'x' end)::int as v"
         " from range(400000)", {}),
    ],
)  # fmt: skip
def test_a_failed_stream_leaves_the_connection_usable(sql: str, params: dict[str, object]) -> None:
    import polars as pl

    con = engine.duckdb.connect()
    with pytest.raises(Exception, match="(?i)error"):
        pl.DataFrame(engine.arrow_stream(con, sql, params))
    assert con.execute("select 42").fetchall() == [(42,)]


def test_a_frame_is_made_without_the_python_layer(tmp_path: Path) -> None:
    """Where the engine submits a statement to a stream itself (DuckDB 2.x), a frame
    does not load the Python layer (under DuckDB 1.x the package is the engine)."""
    layer = "duckdb" if engine.duckdb.__name__ != "duckdb" else "no layer to load"
    script = (
        "import sys\n"
        "from lessons_analytics import metrics\n"
        "from lessons_analytics.engine import duckdb\n"
        "con = duckdb.connect()\n"
        "frame = metrics.run_sql(con, 'select $n::int + 1 as n', {'n': 41})\n"
        f"print(frame['n'][0], {layer!r} in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["42", "False"]


def test_the_engine_submits_as_arrow_stream_asks() -> None:
    # DuckDB 2.x's engine has the call the fast path makes; DuckDB 1.x's has none
    con = engine.duckdb.connect()
    assert engine.submits(con) is hasattr(con, "_submit")
    assert con.execute("select 42").fetchall() == [(42,)]  # the probe left it free


class _OtherEngine:
    """A connection whose engine names, takes or answers its submit otherwise than
    ``engine.arrow_stream`` asks: its relations are a real DuckDB's."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.closed = 0
        self.real = engine.duckdb.connect()

    def _submit(self, *args: object) -> object:
        if self.answer == "other arguments":
            raise TypeError(
                f"_submit() takes 2 positional arguments but {len(args) + 1} were given"
            )
        return self  # an answer without arrow_capsule

    def close(self) -> None:
        self.closed += 1

    def sql(self, sql: str, params: dict[str, object]) -> object:
        engine.with_relations()
        return self.real.sql(sql, params=params)


@pytest.mark.parametrize("answer", ["other arguments", "no arrow_capsule"])
def test_an_engine_answering_otherwise_is_read_the_public_way(
    answer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import polars as pl

    other = _OtherEngine(answer)
    assert engine.submits(other) is False  # type: ignore[arg-type]
    assert other.closed == (answer == "no arrow_capsule")  # its open answer let go
    monkeypatch.setattr(engine, "_SUBMITS", None)
    frame = pl.DataFrame(engine.arrow_stream(other, "select $n::int + 1 as n", {"n": 41}))  # type: ignore[arg-type]
    assert frame.rows() == [(42,)]
