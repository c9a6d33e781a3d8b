"""Small deterministic helpers shared by the demo writers: ids, clocks, JSON lines."""

from __future__ import annotations

import json
import random
import re
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

FIRST_DAY = date(2026, 10, 5)  # Monday of ISO week 41
LAST_DAY = date(2026, 11, 29)  # Sunday of ISO week 48
WEEKS = 8


def day_of(week: int, weekday: int) -> date:
    """Date of `weekday` (0 = Monday) in demo week `week` (1-based)."""
    return FIRST_DAY + timedelta(days=7 * (week - 1) + weekday)


def week_of(d: date) -> int:
    return (d - FIRST_DAY).days // 7 + 1


def at(d: date, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(d.year, d.month, d.day, hour, minute, second, tzinfo=UTC)


def iso_ms(t: datetime) -> str:
    """Claude/Codex style UTC timestamp: milliseconds and a `Z`."""
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def iso_s(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def uuid7(rng: random.Random, t: datetime) -> str:
    """A UUIDv7 (time-ordered), the shape Codex uses for its session ids."""
    ms = int(t.timestamp() * 1000)
    rand = rng.getrandbits(74)
    value = (
        (ms << 80) | (0x7 << 76) | ((rand >> 62) << 64) | (0b10 << 62) | (rand & ((1 << 62) - 1))
    )
    return str(uuid.UUID(int=value))


def hex_id(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def b62(rng: random.Random, n: int) -> str:
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    return "".join(rng.choice(alphabet) for _ in range(n))


def slugify_path(path: Path | str) -> str:
    """Claude Code's project folder name: every non-alphanumeric character becomes `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


def dumps(obj: object) -> str:
    # Compact separators like the real transcripts; non-ASCII kept (Russian text stays readable).
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def write_jsonl(path: Path, records: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            fh.write(dumps(rec) + "\n")


def lines_of(text: str) -> list[str]:
    """File lines without their newline characters (a final newline adds no empty line)."""
    parts = text.split("\n")
    return parts[:-1] if parts and parts[-1] == "" else parts


def clock_after(t: datetime, rng: random.Random, low: float, high: float) -> datetime:
    """`t` plus a random gap in seconds, with millisecond jitter like real logs."""
    return t + timedelta(seconds=rng.uniform(low, high))
