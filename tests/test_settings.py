"""One typed settings object: layers, validation, the `config` command, and every setting
reaching the command that reads it (issue 12, "Settings have no owner")."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from lessons_analytics.cli import cli
from lessons_analytics.errors import ConfigError
from lessons_analytics.settings import Settings, Thresholds, build_settings, setting_keys

WEEK = "2026-W48"  # the demo's last week
AS_OF = "2026-11-30"


# ------------------------------------------------------------------------------ the layers


def test_layers_default_file_env_command_line(tmp_path: Path) -> None:
    toml = tmp_path / "la.toml"
    toml.write_text(
        'warehouse = "w.duckdb"\nreport_dir = "out"\n'
        "[thresholds]\ngap_cap_s = 60\nlarge_body_bytes = 1000\n"
    )
    env = {"LESSONS_ANALYTICS_THRESHOLDS__LARGE_BODY_BYTES": "2000"}
    s = build_settings(toml, environ=env, cwd=tmp_path)
    assert s.paths.warehouse == tmp_path / "w.duckdb"  # relative to the file
    assert s.paths.report_dir == tmp_path / "out"
    assert s.thresholds.gap_cap_s == 60.0  # file over default
    assert s.thresholds.large_body_bytes == 2000  # env over file
    assert s.thresholds.chars_per_token == 4.0  # default
    assert s.origins["warehouse"] == f"file {toml}"
    assert s.origins["thresholds.large_body_bytes"] == (
        "env LESSONS_ANALYTICS_THRESHOLDS__LARGE_BODY_BYTES"
    )
    s = build_settings(toml, environ=env, cwd=tmp_path, db_path=Path("/x/y.duckdb"))
    assert s.paths.warehouse == Path("/x/y.duckdb")  # --db over everything
    assert s.origins["warehouse"] == "command line --db"
    capped = s.with_overrides("command line --gap-cap", thresholds__gap_cap_s=10)
    assert (capped.thresholds.gap_cap_s, s.thresholds.gap_cap_s) == (10.0, 60.0)
    assert capped.with_overrides("x", thresholds__gap_cap_s=None) is capped  # not given


def test_config_file_from_env_and_from_cwd(tmp_path: Path) -> None:
    (tmp_path / "lessons-analytics.toml").write_text("mark = true\n")
    assert build_settings(environ={}, cwd=tmp_path).mark is True
    other = tmp_path / "other.toml"
    other.write_text("machine = 'lab'\n")
    s = build_settings(environ={"LESSONS_ANALYTICS_CONFIG": str(other)}, cwd=tmp_path)
    assert (s.machine, s.mark, s.config_path) == ("lab", False, other)
    assert build_settings(environ={}, cwd=tmp_path / "nowhere").config_path is None


def test_env_paths_lists_and_typed_values(tmp_path: Path) -> None:
    env = {
        "LESSONS_ANALYTICS_SOURCES": f"/a{os.pathsep}/b",
        "LESSONS_ANALYTICS_MARK": "true",
        "LESSONS_ANALYTICS_MACHINE": "lab-1",
        "LESSONS_ANALYTICS_RETRO__REPEAT_MIN": "3",
    }
    s = build_settings(environ=env, cwd=tmp_path)
    assert s.paths.sources == (Path("/a"), Path("/b"))
    assert (s.mark, s.machine, dict(s.retro.table)) == (True, "lab-1", {"repeat_min": 3})
    assert s.retro.patterns().repeat_min == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('sorces = ["a"]\n', "unknown key 'sorces', did you mean sources? (valid top-level keys: "
         "sources, bases, warehouse, report_dir, export_parquet, mark, machine, thresholds, "
         "lint, retro)"),
        ("[thresholds]\ngap_cap = 1\n", "unknown key 'gap_cap' in [thresholds], did you mean "
         "gap_cap_s? (valid: candidate_independent_hits,"),
        ("[lint]\nbase64 = 1\n", "unknown key 'base64' in [lint], did you mean base64_min_len? "
         "(valid: base64_min_len)"),
        ("[retro]\ncolour = 1\n", "[retro]: unknown key(s) colour"),
        ("[check]\nactive_heading_max_line = 1\n", "[check] active_heading_max_line: set it as "
         "[thresholds] active_heading_max_line, the one key both `check` and the index-layout "
         "sign of `stats` read"),
        ("[check]\nindex_max_bytes = 1\n", "set it as [thresholds] index_max_bytes"),
        ("[check]\nother = 1\n", "unknown key 'other' in [check] (valid: none: use [thresholds])"),
        ('[thresholds]\ngap_cap_s = "300"\n', "[thresholds] gap_cap_s must be a number, not '300'"),
        ("[thresholds]\ncandidates_max = 2.5\n", "[thresholds] candidates_max must be a whole "
         "number, not 2.5"),
        ("mark = 1\n", "mark must be true or false, not 1"),
        ("sources = 3\n", "sources must be a path or a list of paths, not 3"),
        ("warehouse = []\n", "warehouse must be a path, not []"),
        ("thresholds = 3\n", "[thresholds] must be a table, not 3"),
    ],
)  # fmt: skip
def test_bad_file_names_the_key_and_the_file(tmp_path: Path, text: str, message: str) -> None:
    toml = tmp_path / "la.toml"
    toml.write_text(text)
    with pytest.raises(ConfigError) as caught:
        build_settings(toml, environ={})
    assert message in str(caught.value)
    assert str(toml) in str(caught.value)
    result = CliRunner().invoke(cli, ["--config", str(toml), "config"])
    assert result.exit_code == 1
    assert message in result.stderr
    assert result.stdout == ""


def test_unknown_env_variable_is_an_error() -> None:
    with pytest.raises(ConfigError) as caught:
        build_settings(environ={"LESSONS_ANALYTICS_THRESHOLDS__GAPCAP": "1"})
    assert "environment LESSONS_ANALYTICS_THRESHOLDS__GAPCAP: unknown key 'gapcap'" in str(
        caught.value
    )
    assert "LESSONS_ANALYTICS_<SECTION>__<KEY>" in str(caught.value)


def test_settings_module_is_import_light() -> None:
    """settings.py and what it imports at module level stay off polars/duckdb/matplotlib
    (the package's own __init__ is another matter: see tests/bench)."""
    import ast

    import lessons_analytics

    root = Path(lessons_analytics.__file__).parent
    seen, todo = set(), ["settings"]
    while todo:
        name = todo.pop()
        seen.add(name)
        tree = ast.parse((root / f"{name}.py").read_text(encoding="utf-8"))
        for node in tree.body:  # module level only: a function's import is lazy
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            )  # fmt: skip
            for module in names:
                assert module.split(".")[0] not in {"polars", "duckdb", "matplotlib"}, name
                inner = module.removeprefix("lessons_analytics.")
                if module.startswith("lessons_analytics.") and inner not in seen:
                    todo.append(inner)
    assert seen == {"settings", "errors", "paths"}


def test_thresholds_read_as_a_mapping() -> None:
    t = Thresholds(gap_cap_s=12)
    assert t["gap_cap_s"] == 12 and dict(t)["large_body_bytes"] == 20480
    assert len(t) == len(list(t)) == len([k for k in setting_keys() if k.startswith("thr")])
    with pytest.raises(KeyError):
        t["nope"]


# ---------------------------------------------------------------------- the config command


def test_config_command_prints_values_and_origins(tmp_path: Path) -> None:
    toml = tmp_path / "la.toml"
    toml.write_text("[thresholds]\ngap_cap_s = 60\n")
    env = {"LESSONS_ANALYTICS_LINT__BASE64_MIN_LEN": "40", "XDG_DATA_HOME": str(tmp_path)}
    args = ["--config", str(toml), "--db", str(tmp_path / "w.duckdb"), "config"]
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"config file: {toml}"
    width = max(len(k) for k in setting_keys())
    assert f"{'thresholds.gap_cap_s':<{width}}  60.0  [file {toml}]" in lines
    assert (
        f"{'lint.base64_min_len':<{width}}  40  [env LESSONS_ANALYTICS_LINT__BASE64_MIN_LEN]"
        in (lines)
    )
    assert f"{'warehouse':<{width}}  {tmp_path / 'w.duckdb'}  [command line --db]" in lines
    assert f"{'thresholds.large_body_bytes':<{width}}  20480  [default]" in lines
    doc = json.loads(CliRunner().invoke(cli, [*args, "--json"], env=env).stdout)
    assert doc["schema"] == "lessons-analytics/config/1"
    assert doc["config_file"] == str(toml)
    by_key = {e["key"]: e for e in doc["settings"]}
    assert set(by_key) == {*setting_keys()} - {"retro"} | {"retro"}
    assert by_key["thresholds.gap_cap_s"] == {
        "key": "thresholds.gap_cap_s",
        "value": 60.0,
        "origin": f"file {toml}",
    }
    assert by_key["warehouse"]["value"] == str(tmp_path / "w.duckdb")


# ------------------------------------------------------------------- the verified bugs (CLI)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "ws"
    result = CliRunner().invoke(cli, ["demo", "--out", str(root)])
    assert result.exit_code == 0, result.output
    return root


def _cli(args: list[str], toml: str | None, tmp: Path, env: dict[str, str] | None = None) -> Result:
    pre: list[str] = []
    if toml is not None:
        path = tmp / f"c{abs(hash(toml))}.toml"
        path.write_text(toml)
        pre = ["--config", str(path)]
    empty = tmp / "empty-home"
    empty.mkdir(exist_ok=True)
    isolated = {  # no real ~/.claude or ~/.codex, no real warehouse
        "CLAUDE_CONFIG_DIR": str(empty),
        "CODEX_HOME": str(empty),
        "XDG_DATA_HOME": str(empty),
        **(env or {}),
    }
    return CliRunner().invoke(cli, [*pre, *args], env=isolated)


def test_active_heading_max_line_check_and_sign_agree(demo: Path, tmp_path: Path) -> None:
    db = str(demo / "warehouse.duckdb")
    base = tmp_path / "proj" / "LESSONS"
    base.mkdir(parents=True)
    (base / "INDEX.md").write_text("# Lessons\n\n## Active\n\n## Candidates\n")  # heading: 3
    for toml, failing in [(None, False), ("[thresholds]\nactive_heading_max_line = 1\n", True)]:
        check = _cli(["--db", db, "check", str(base), "--json"], toml, tmp_path)
        stats = _cli(["--db", db, "stats", str(base), "--json", "--as-of", AS_OF], toml, tmp_path)
        failures = json.loads(check.stdout)["bases"][0]["failures"]
        (sign,) = [s for s in json.loads(stats.stdout)["bases"][0]["signs"]
                   if s["name"] == "index-layout"]  # fmt: skip
        assert check.exit_code == (1 if failing else 0)
        assert [f["rule"] for f in failures] == (["active-heading-line"] if failing else [])
        assert (sign["value"], sign["fired"]) == (len(failures), failing)


def test_body_size_and_gap_cap_move_bodies_cost_and_report_alike(
    demo: Path, tmp_path: Path
) -> None:
    db = str(demo / "warehouse.duckdb")
    toml = "[thresholds]\nlarge_body_bytes = 100\ngap_cap_s = 5\n"
    out: dict[str | None, tuple[Any, Any, Any]] = {}
    for config in (None, toml):
        bodies = json.loads(_cli(["--db", db, "bodies", "--json"], config, tmp_path).stdout)
        cost = json.loads(
            _cli(["--db", db, "cost", "--rituals", "--json"], config, tmp_path).stdout
        )
        target = tmp_path / f"r{config is None}"
        report = _cli(["--db", db, "report", "--week", WEEK, "--out", str(target), "--as-of",
                       AS_OF], config, tmp_path)  # fmt: skip
        assert report.exit_code == 0, report.output
        data = json.loads((target / "data.json").read_text())
        out[config] = (bodies, cost, data)
    (b0, c0, _), (b1, c1, d1) = out[None], out[toml]
    assert sum(b["large_reads"] for b in b1["bases"]) > sum(b["large_reads"] for b in b0["bases"])
    shares0 = [r["share_of_active_time"] for r in c0["rituals"]]
    shares1 = [r["share_of_active_time"] for r in c1["rituals"]]
    # the cap moves both the active time inside the calls and the session's active time
    # (queries/cost_active.sql), so the share moves, never past 1
    assert any(s1 != s0 for s0, s1 in zip(shares0, shares1, strict=True))
    assert all(s is None or 0 <= s <= 1 for s in shares0 + shares1)
    # the option says the same as the setting
    by_option = _cli(["--db", db, "bodies", "--json", "--large-bytes", "100"], None, tmp_path)
    assert json.loads(by_option.stdout)["bases"] == b1["bases"]
    capped = _cli(["--db", db, "cost", "--rituals", "--json", "--gap-cap", "5"], None, tmp_path)
    assert json.loads(capped.stdout)["rituals"] == c1["rituals"]
    # and the report's numbers for the week are those of the commands under the same settings
    week = ["--since", "2026-11-23", "--until", "2026-11-29"]
    assert d1["bases"]
    for section in d1["bases"]:
        scope = ["--base", section["base"], *week]
        bodies = _cli(["--db", db, "bodies", "--json", *scope], toml, tmp_path)
        (one,) = json.loads(bodies.stdout)["bases"]
        assert section["documents"]["bodies"]["large_reads"] == one["large_reads"]
        assert section["documents"]["bodies"]["tokens"] == one["tokens"]
        cost = _cli(["--db", db, "cost", "--rituals", "--json", *scope], toml, tmp_path)
        assert section["documents"]["cost"] == json.loads(cost.stdout)["rituals"]
    assert d1["thresholds"]["large_body_bytes"] == 100
    assert d1["thresholds"]["gap_cap_s"] == 5


def test_ingest_reads_sources_and_bases_of_the_config(demo: Path, tmp_path: Path) -> None:
    sources = [demo / "claude" / "projects", demo / "codex" / "sessions"]
    explicit = _cli(["--db", str(tmp_path / "a.duckdb"), "ingest", "--json",
                     *map(str, sources)], None, tmp_path)  # fmt: skip
    toml = f"sources = {json.dumps([str(p) for p in sources])}\n"
    configured = _cli(["--db", str(tmp_path / "b.duckdb"), "ingest", "--json"], toml, tmp_path)
    nothing = _cli(["--db", str(tmp_path / "c.duckdb"), "ingest", "--json"], None, tmp_path)
    seen = [json.loads(r.stdout)["files_seen"] for r in (explicit, configured, nothing)]
    assert seen[0] == seen[1] > 0 and seen[2] == 0
    empty = tmp_path / "no-transcripts"
    empty.mkdir()
    base = demo / "repos" / "atlas" / "LESSONS"
    toml = f'sources = ["{empty}"]\nbases = ["{base}"]\n'
    with_base = _cli(["--db", str(tmp_path / "d.duckdb"), "ingest", "--json"], toml, tmp_path)
    assert json.loads(with_base.stdout)["bases"] == 1


def test_report_writes_into_report_dir(demo: Path, tmp_path: Path) -> None:
    toml = f'report_dir = "{tmp_path / "weekly"}"\n'
    db = str(demo / "warehouse.duckdb")
    result = _cli(["--db", db, "report", "--week", WEEK, "--json"], toml, tmp_path)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["directory"] == str(tmp_path / "weekly" / WEEK)
    assert (tmp_path / "weekly" / WEEK / "report.html").is_file()


# ---------------------------------------------- every setting moves what its command prints


@dataclass(frozen=True)
class Case:
    key: str  # as in the file: "thresholds.gap_cap_s", "report_dir"
    value: str  # TOML text of the changed value
    command: str  # the command that must print something else ("a+b": each of them)
    context: str = ""  # TOML both runs share, so that the setting decides


def _toml(lines: str) -> str:
    """``thresholds.x = 1\\nmark = true`` as a TOML document."""
    top, sections = [], {}  # type: ignore[var-annotated]
    for line in filter(None, lines.splitlines()):
        key, value = line.split(" = ", 1)
        section, _, name = key.rpartition(".")
        if section:
            sections.setdefault(section, []).append(f"{name} = {value}")
        else:
            top.append(line)
    return "\n".join([*top, *(f"[{s}]\n" + "\n".join(v) for s, v in sections.items())]) + "\n"


# the demo's signs would fire whatever sleep_due_lessons says: quiet the base-level ones
_LESSON_LEVEL_ONLY = (
    "thresholds.class_share = 0.999\nthresholds.candidates_max = 1000\n"
    "thresholds.active_heading_max_line = 1000\nthresholds.index_max_bytes = 10000000\n"
)
CASES = [
    Case("sources", "['{demo}/claude/projects']", "ingest"),
    Case("bases", "['{demo}/repos/atlas/LESSONS']", "ingest", "sources = ['{tmp}/empty-home']"),
    Case("warehouse", "'{demo}/warehouse.duckdb'", "heads"),
    Case("report_dir", "'{tmp}/elsewhere'", "report"),
    Case("export_parquet", "'{tmp}/parquet'", "nightly"),
    Case("mark", "true", "nightly"),
    Case("machine", "'lab-7'", "export"),
    Case(
        "thresholds.candidate_independent_hits",
        "1",
        "stats",
        "thresholds.candidate_aged_hits = 1000",
    ),
    Case("thresholds.candidate_aged_hits", "1000", "stats"),
    Case("thresholds.candidate_age_days", "100000", "stats"),
    Case("thresholds.candidates_max", "1", "stats"),
    Case("thresholds.stale_candidate_days", "100000", "stats"),
    Case("thresholds.class_share", "0.999", "stats"),
    Case("thresholds.active_without_hit_days", "10000", "stats"),
    Case("thresholds.fat_body_bytes", "1", "stats"),
    Case("thresholds.journal_share", "0.999", "stats"),
    Case("thresholds.recalled_but_failed_hits", "1", "effect"),
    Case("thresholds.never_recalled_hits", "1", "effect"),
    Case("thresholds.costly_ritual_hours_per_week", "0.001", "stats"),
    Case("thresholds.costly_body_tokens_per_week", "1", "stats"),
    Case("thresholds.sleep_due_lessons", "1000", "stats", _LESSON_LEVEL_ONLY),
    Case("thresholds.active_heading_max_line", "10000", "check"),
    Case("thresholds.index_max_bytes", "1", "check"),
    Case("thresholds.effect_alpha", "0.999", "effect"),
    Case("thresholds.effect_power", "0.999", "effect"),
    Case("thresholds.retire_window_days", "1", "effect"),
    Case("thresholds.retire_min_sessions", "10000000", "effect"),
    Case("thresholds.hours_per_hit", "1000000.0", "effect"),
    Case("thresholds.tokens_per_hit", "1", "effect"),
    Case("thresholds.intervention_window_sessions", "1", "effect"),
    Case("thresholds.chars_per_token", "1.0", "bodies+stats+report"),
    Case("thresholds.large_body_bytes", "1", "bodies+report"),
    Case("thresholds.gap_cap_s", "1.0", "cost+report"),
    Case("lint.base64_min_len", "20", "lint+cards"),
    Case("retro", "", "retro"),  # the [retro] table: one correction family more
]


def test_the_table_covers_every_setting() -> None:
    """A new setting without a row here fails: add the command its value must move."""
    assert [c.key for c in CASES] == setting_keys()
    assert len(setting_keys()) == len(Settings().entries())


def _blob_base(tmp: Path) -> Path:
    """A base whose lesson holds a 24-character base64 run: under the default length."""
    from tests.support.basebuilder import index_text, lesson_text, make_base

    if not (tmp / "blob" / "LESSONS").is_dir():
        blob = "QUJDZGVmZ2hpams0NTY3ODkw"
        lessons = {"L-0001.md": lesson_text("L-0001", status="active") + blob + "\n"}
        make_base(tmp / "blob", lessons=lessons, index=index_text(active=["L-0001"]))
    return tmp / "blob" / "LESSONS"


def _argv(command: str, demo: Path, tmp: Path) -> list[str]:
    db = ["--db", str(demo / "warehouse.duckdb")]
    base = str(demo / "repos" / "harbor" / "LESSONS")
    return {
        "ingest": ["--db", str(tmp / f"i{len(list(tmp.iterdir()))}.duckdb"), "ingest", "--json"],
        "heads": ["heads", "--json"],
        "report": [*db, "report", "--week", WEEK, "--as-of", AS_OF, "--json"],
        "nightly": [
            "--db",
            str(tmp / f"n{len(list(tmp.iterdir()))}.duckdb"),
            "nightly",
            "--json",
            "--report-dir",
            str(tmp / f"nr{len(list(tmp.iterdir()))}"),
        ],
        "export": [*db, "export", "--parquet", str(tmp / f"x{len(list(tmp.iterdir()))}"), "--json"],
        "stats": [*db, "stats", base, "--json", "--as-of", AS_OF],
        "check": [*db, "check", base, "--json"],
        "lint": [*db, "lint", str(_blob_base(tmp)), "--json"],
        "cards": [*db, "cards", str(_blob_base(tmp)), "--json"],
        "effect": [*db, "effect", "--json"],
        "bodies": [*db, "bodies", "--json"],
        "cost": [*db, "cost", "--rituals", "--json"],
        "retro": [*db, "retro", "--json", "--out", str(tmp / f"o{len(list(tmp.iterdir()))}")],
    }[command]


# keys that differ between two runs of the same settings (a run's own output folder, times)
# and the threshold a sign echoes: a setting must move what is measured, not only its echo
_VARYING = ("generated_at", "stages", "thresholds", "threshold", "report", "directory",
            "digest", "signals", "out", "path")  # fmt: skip


def _output(result: Result) -> Any:
    """What a run printed, without what differs between two identical runs; for `report`,
    the data.json it wrote (its stdout names only the files)."""
    try:
        doc = json.loads(result.stdout)
    except ValueError:
        return (result.exit_code, result.stdout, result.stderr)
    if isinstance(doc, dict) and doc.get("schema") == "lessons-analytics/report/1":
        doc = {"files": doc, "data": json.loads(Path(doc["data"]).read_text(encoding="utf-8"))}
    drop: Callable[[Any], Any] = lambda d: (  # noqa: E731
        {k: drop(v) for k, v in d.items() if k not in _VARYING}
        if isinstance(d, dict) else [drop(v) for v in d] if isinstance(d, list) else d
    )  # fmt: skip
    return (result.exit_code, drop(doc))


@pytest.fixture(scope="module")
def nightly_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo of its own: nightly with `mark` writes into the bases' INDEX.md."""
    root = tmp_path_factory.mktemp("nightly") / "ws"
    assert CliRunner().invoke(cli, ["demo", "--out", str(root)]).exit_code == 0
    return root


@pytest.mark.parametrize("case", CASES, ids=[c.key for c in CASES])
def test_each_setting_moves_its_command(
    case: Case, demo: Path, nightly_demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the default report_dir, ./reports, lands here
    world = nightly_demo if case.command == "nightly" else demo
    fill = {"demo": str(world), "tmp": str(tmp_path)}
    context = case.context.format(**fill)
    if case.command == "nightly":  # a night over the demo's transcripts
        context += f"\nsources = ['{world}/claude/projects', '{world}/codex/sessions']"
    if case.key == "retro":
        changed = "retro.repeat_min = 1"  # a failure seen once already makes a cluster
    else:
        changed = f"{case.key} = {case.value.format(**fill)}"
    for command in case.command.split("+"):
        before = _cli(_argv(command, world, tmp_path), _toml(context), tmp_path)
        printed = _output(before)  # now: a second report overwrites the first's data.json
        after = _cli(_argv(command, world, tmp_path), _toml(f"{context}\n{changed}"), tmp_path)
        assert printed != _output(after), (case, before.output, after.output)
        assert after.exit_code in (0, 1), after.output  # 1: check/lint verdicts, not errors
        assert "Traceback" not in after.output
