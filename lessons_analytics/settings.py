"""Every setting of lessons-analytics, typed, with its one default, built once per run.

Layers, each overriding the one before:

1. the defaults below (metrics.md §6 and lesson-base.md);
2. the TOML file (``--config``, else ``$LESSONS_ANALYTICS_CONFIG``, else
   ``./lessons-analytics.toml`` when present); relative paths in it are relative to the file;
3. the environment: ``LESSONS_ANALYTICS_<KEY>`` for a top-level key and
   ``LESSONS_ANALYTICS_<SECTION>__<KEY>`` for a key of a section (``LESSONS_ANALYTICS_WAREHOUSE``,
   ``LESSONS_ANALYTICS_THRESHOLDS__GAP_CAP_S``). A value is read as a TOML value when it is one
   (``300``, ``true``, ``["^fix"]``), else as a string; ``SOURCES``/``BASES`` take paths
   separated by ``os.pathsep``;
4. the command line: the global ``--db``, then a command's own options (``--gap-cap``,
   ``--large-bytes``, ``--divisor``, ``--report-dir``, ``--mark``, paths), applied with
   :meth:`Settings.with_overrides`.

An unknown key, in the file or as a ``LESSONS_ANALYTICS_*`` variable, is an error naming it and
the valid ones: a misspelt threshold silently keeping its default is worse than stopping.

``lessons-analytics config`` prints the effective settings and where each came from. This
module imports neither polars nor duckdb, so ``--help`` stays fast.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import types
import typing
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from lessons_analytics.errors import ConfigError

if typing.TYPE_CHECKING:
    from lessons_analytics.retro.patterns import Patterns
from lessons_analytics.paths import CONFIG_NAME, default_db_path, default_sources

ENV_PREFIX = "LESSONS_ANALYTICS_"
CONFIG_ENV = ENV_PREFIX + "CONFIG"
DEFAULT = "default"


@dataclass(frozen=True)
class Thresholds(Mapping[str, float]):
    """``[thresholds]``: the numbers the signs, the metrics and the report judge by. Read as a
    mapping too (``t["gap_cap_s"]``), so a computation can name its threshold like the spec."""

    candidate_independent_hits: int = 3  # candidate-needs-verdict: >= 3 independent hits ...
    candidate_aged_hits: int = 2  # ... or >= 2 of them
    candidate_age_days: int = 14  # ... and older than 14 days
    candidates_max: int = 10  # candidates-without-verdict: more than 10 candidates
    stale_candidate_days: int = 10
    class_share: float = 0.25
    active_without_hit_days: int = 30
    fat_body_bytes: int = 20480
    journal_share: float = 0.5
    recalled_but_failed_hits: int = 2
    never_recalled_hits: int = 2
    costly_ritual_hours_per_week: float = 1.0
    costly_body_tokens_per_week: int = 200_000
    sleep_due_lessons: int = 3  # lesson-level signs must fire for more than this many lessons
    # index layout: `check` and the `index-layout` sign read the same two keys
    active_heading_max_line: int = 15
    index_max_bytes: int = 16384
    # effect of a lesson (effect.py): one-sided test level and power of the halving test
    effect_alpha: float = 0.05
    effect_power: float = 0.8
    # retire candidate: no hit over this many days with at least this many exposed sessions
    retire_window_days: int = 60
    retire_min_sessions: int = 30
    # what one avoided hit is worth, against a lesson's ritual hours and body tokens: a
    # repeated failure caught by a gate or a person costs about half a session hour of rework
    hours_per_hit: float = 0.5
    tokens_per_hit: int = 100_000
    # interventions: sessions compared on each side of a change of the base
    intervention_window_sessions: int = 20
    # measurement (bodies, cost, the report): characters per token, the large-body size and
    # the most seconds an idle gap counts toward a session's active time
    chars_per_token: float = 4.0
    large_body_bytes: int = 20480
    gap_cap_s: float = 300.0

    def __getitem__(self, key: str) -> float:
        if key not in _names(Thresholds):
            raise KeyError(key)
        value: float = getattr(self, key)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(_names(Thresholds))

    def __len__(self) -> int:
        return len(_names(Thresholds))


@dataclass(frozen=True)
class Lint:
    """``[lint]``: the poisoning scan of ``lint`` and the warnings of ``cards``."""

    base64_min_len: int = 80  # a base64 run this long is flagged as a hidden payload


@dataclass(frozen=True)
class Retro:
    """``[retro]``: the pattern table of ``retro`` (keys of ``retro.patterns``), as given;
    ``load_patterns`` checks it once when the settings are built."""

    table: Mapping[str, object] = field(default_factory=lambda: types.MappingProxyType({}))

    def patterns(self) -> Patterns:
        from lessons_analytics.retro.patterns import load_patterns

        return load_patterns(dict(self.table))


@dataclass(frozen=True)
class Paths:
    """Top-level path keys of the file: where transcripts, bases, the warehouse and the
    outputs are."""

    sources: tuple[Path, ...] = ()  # none given: the runtimes' folders that exist
    bases: tuple[Path, ...] = ()
    warehouse: Path = field(default_factory=default_db_path)
    report_dir: Path = Path("reports")
    export_parquet: Path | None = None  # nightly writes the Parquet contract here


@dataclass(frozen=True)
class Settings:
    paths: Paths = field(default_factory=Paths)
    mark: bool = False  # nightly refreshes the sleep marker lines
    machine: str | None = None  # this machine's name in an export (None: the host name)
    thresholds: Thresholds = field(default_factory=Thresholds)
    lint: Lint = field(default_factory=Lint)
    retro: Retro = field(default_factory=Retro)
    origins: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    config_path: Path | None = field(default=None, compare=False)

    def sources_or_default(self) -> list[Path]:
        """The configured transcript folders, else the runtimes' default folders that exist."""
        return list(self.paths.sources) or [p for p in default_sources() if p.exists()]

    def with_overrides(self, origin: str, **values: object) -> Settings:
        """These settings with ``key=value`` overrides from the command line (``None`` values
        are options not given and change nothing). Keys are dotted names with ``__`` for the
        dot, named as in the file: ``thresholds__gap_cap_s``, ``report_dir``, ``mark``."""
        raw: dict[str, object] = {}
        sections: dict[str, dict[str, object]] = {}
        for key, value in values.items():
            if value is None:
                continue
            section, _, name = key.partition("__")
            if name:
                raw[section] = sections.setdefault(section, {})
                sections[section][name] = value
            else:
                raw[section] = value
        if not raw:
            return self
        return _apply(self, _flat(raw), origin, None)

    def entries(self) -> list[tuple[str, object, str]]:
        """(key as in the file, value, origin) of every setting, in declaration order."""
        out = []
        for key, value in _walk(self):
            out.append((key, value, self.origins.get(key, DEFAULT)))
        return out


# ---------------------------------------------------------------------------------------------
# the file's key names: top-level keys of Paths and Settings, and one table per section


_SECTIONS: dict[str, type] = {"thresholds": Thresholds, "lint": Lint}
_TOP: dict[str, str] = {
    **{f.name: f"paths.{f.name}" for f in fields(Paths)},
    "mark": "mark",
    "machine": "machine",
}
# keys that moved: a file still using them gets an error that names the right key
_MOVED = {
    "check.active_heading_max_line": "thresholds.active_heading_max_line",
    "check.index_max_bytes": "thresholds.index_max_bytes",
}


def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def query_params(thresholds: Thresholds) -> dict[str, float]:
    """The query parameters that are settings, by their name in ``queries/``: what ``query``
    and the notebook helpers bind unless the caller names them."""
    return {
        "divisor": thresholds.chars_per_token,
        "large_bytes": thresholds.large_body_bytes,
        "gap_cap_s": thresholds.gap_cap_s,
    }


def build_settings(
    config_path: Path | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    db_path: Path | None = None,
    cwd: Path | None = None,
) -> Settings:
    """Defaults <- file <- environment <- ``--db``; the one place settings are read."""
    env = os.environ if environ is None else environ
    if config_path is None and env.get(CONFIG_ENV):
        config_path = Path(env[CONFIG_ENV])
    if config_path is None and ((cwd or Path.cwd()) / CONFIG_NAME).is_file():
        config_path = (cwd or Path.cwd()) / CONFIG_NAME
    settings = Settings()
    if config_path is not None:
        settings = _apply(settings, _read(config_path), f"file {config_path}", config_path.parent)
        settings = replace(settings, config_path=config_path)
    settings = _apply_env(settings, env)
    if db_path is not None:
        settings = _apply(settings, {"paths.warehouse": db_path}, "command line --db", None)
    _check_retro(settings)
    return settings


def settings_from(data: Mapping[str, object], origin: str = "caller") -> Settings:
    """Settings from a mapping shaped like the file (``{"thresholds": {"gap_cap_s": 60}}``)
    over the defaults, checked like the file: for the Python API and tests."""
    settings = _apply(Settings(), _flat(data, origin), origin, None)
    _check_retro(settings)
    return settings


def _check_retro(settings: Settings) -> None:
    """A bad ``[retro]`` table stops here, before any command runs, naming where it came
    from (only a given table pays for importing the retro package)."""
    if not settings.retro.table:
        return
    try:
        settings.retro.patterns()
    except ConfigError as exc:
        where = sorted({settings.origins[f"retro.{k}"] for k in settings.retro.table})
        raise ConfigError(f"{', '.join(where)}: {exc}") from exc


def _read(path: Path) -> dict[str, object]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    return _flat(data, str(path))


def _flat(data: Mapping[str, object], where: str = "command line") -> dict[str, object]:
    """``{"thresholds": {"gap_cap_s": 60}}`` -> ``{"thresholds.gap_cap_s": 60}``, refusing
    unknown keys."""
    out: dict[str, object] = {}
    for key, value in data.items():
        if key == "retro":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: [retro] must be a table")
            out["retro.table"] = value
        elif key in _SECTIONS or key == "check":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: [{key}] must be a table, not {value!r}")
            for name, item in value.items():
                out[_section_key(key, name, where)] = item
        elif key in _TOP:
            out[_TOP[key]] = value
        else:
            names = [*_TOP, *_SECTIONS, "retro"]
            raise ConfigError(
                f"{where}: unknown key {key!r}{_did_you_mean(key, names)} (valid top-level "
                f"keys: {', '.join(names)})"
            )
    return out


def _did_you_mean(name: str, names: Sequence[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, names, n=1)
    return f", did you mean {close[0]}?" if close else ""


def _section_key(section: str, name: str, where: str) -> str:
    dotted = f"{section}.{name}"
    if dotted in _MOVED:
        raise ConfigError(
            f"{where}: [{section}] {name}: set it as [thresholds] {name}, the one key"
            " both `check` and the index-layout sign of `stats` read"
        )
    cls = _SECTIONS.get(section)
    if cls is None or name not in _names(cls):
        names = _names(cls) if cls is not None else ()
        valid = ", ".join(names) if names else "none: use [thresholds]"
        raise ConfigError(
            f"{where}: unknown key {name!r} in [{section}]{_did_you_mean(name, names)}"
            f" (valid: {valid})"
        )
    return dotted


def _apply_env(settings: Settings, env: Mapping[str, str]) -> Settings:
    for var in sorted(env):
        if not var.startswith(ENV_PREFIX) or var == CONFIG_ENV:
            continue
        key = var.removeprefix(ENV_PREFIX).lower()
        section, _, name = key.partition("__")
        text = env[var]
        value: object
        if not name and section in ("sources", "bases"):
            value = [p for p in text.split(os.pathsep) if p]
        else:
            value = _env_value(text)
        nested = {section: {name: value}} if name else {section: value}
        try:
            flat = _flat(nested, f"environment {var}")
        except ConfigError as exc:
            raise ConfigError(
                f"{exc}; variables are {ENV_PREFIX}<KEY> or {ENV_PREFIX}<SECTION>__<KEY>"
            ) from exc
        settings = _apply(settings, flat, f"env {var}", Path.cwd())
    return settings


def _env_value(text: str) -> object:
    try:
        value: object = tomllib.loads(f"v = {text}")["v"]
        return value
    except tomllib.TOMLDecodeError:
        return text


def _apply(
    settings: Settings, flat: Mapping[str, object], origin: str, here: Path | None
) -> Settings:
    origins = dict(settings.origins)
    for dotted, raw in flat.items():
        section, _, name = dotted.partition(".")
        if section == "retro":
            if not isinstance(raw, Mapping):  # _flat lets only a table through
                raise ConfigError(f"{origin}: [retro] must be a table")
            merged = {**settings.retro.table, **raw}
            for key in raw:
                origins[f"retro.{key}"] = origin
            settings = replace(settings, retro=Retro(types.MappingProxyType(merged)))
            continue
        current = getattr(settings, section)
        if not name:
            settings = replace(settings, **{section: _typed(Settings, section, raw, origin, here)})
        else:
            item = _typed(type(current), name, raw, f"{origin}: [{section}]", here)
            settings = replace(settings, **{section: replace(current, **{name: item})})
        origins[dotted.removeprefix("paths.")] = origin
    return replace(settings, origins=origins)


def _typed(cls: type, name: str, value: object, where: str, here: Path | None) -> Any:
    """``value`` checked against the declared type of ``cls.name``. The return type is
    open on purpose: the value has the type of a field named at run time, which the
    checker cannot follow into ``dataclasses.replace``; the checks below hold it."""
    hint = typing.get_type_hints(cls)[name]
    args = set(typing.get_args(hint))
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where} {name} must be true or false, not {value!r}")
        return value
    if hint is int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where} {name} must be a whole number, not {value!r}")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where} {name} must be a number, not {value!r}")
        return float(value)
    if hint == str | None:
        if not isinstance(value, str):
            raise ConfigError(f"{where} {name} must be a string, not {value!r}")
        return value
    if hint == tuple[Path, ...]:
        items = [value] if isinstance(value, str | Path) else value
        paths = (
            [v for v in items if isinstance(v, str | Path)]
            if isinstance(items, list | tuple)
            else []
        )
        if not isinstance(items, list | tuple) or len(paths) != len(items):
            raise ConfigError(f"{where} {name} must be a path or a list of paths, not {value!r}")
        return tuple(_path(here, v) for v in paths)
    if hint is Path or (Path in args and type(None) in args):
        if not isinstance(value, str | Path):
            raise ConfigError(f"{where} {name} must be a path, not {value!r}")
        return _path(here, value)
    raise AssertionError(f"no type check for {cls.__name__}.{name}: {hint}")  # pragma: no cover


def _path(here: Path | None, text: str | Path) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() or here is None else here / path


def _walk(settings: Settings) -> Iterator[tuple[str, object]]:
    for f in fields(Settings):
        if f.name in ("origins", "config_path"):
            continue
        value = getattr(settings, f.name)
        if isinstance(value, Retro):
            for key in sorted(value.table):
                yield f"retro.{key}", value.table[key]
            if not value.table:
                yield "retro", "(the built-in patterns)"
        elif isinstance(value, Paths):
            for sub in fields(value):
                yield sub.name, getattr(value, sub.name)
        elif dataclasses.is_dataclass(value):
            for sub in fields(value):
                yield f"{f.name}.{sub.name}", getattr(value, sub.name)
        else:
            yield f.name, value


def setting_keys() -> list[str]:
    """The key of every setting field as the file names it (the retro table counts as one:
    ``retro``)."""
    keys = []
    for f in fields(Settings):
        if f.name in ("origins", "config_path"):
            continue
        if f.name == "paths":
            keys += list(_names(Paths))
        elif f.name in _SECTIONS:
            keys += [f"{f.name}.{n}" for n in _names(_SECTIONS[f.name])]
        else:
            keys.append(f.name)
    return keys
