"""The eight demo weeks, day by day: base commits in the morning, sessions during the day,
the judge's journal commit in the evening. Sessions are planned in time order, so every read
sees the base exactly as it was committed at that moment."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from . import texts
from .bases import PEOPLE, Base, Repo, old_journal
from .claude import ClaudeWriter, write_warmup
from .codex import CodexWriter, codex_start, write_bare
from .lessons_data import BASES
from .plan import Session
from .repo_files import ATLAS_FILES, CODE_COMMITS, HARBOR_FILES, SANDBOX_FILES
from .scenario import (
    BASE_CWDS,
    ERAS_BY_WEEK,
    HITS,
    KNOBS,
    PROJECTS,
    QUARANTINE,
    STALE_EVIDENCE,
    HitSpec,
)
from .script import build_script
from .util import FIRST_DAY, WEEKS, at, day_of, iso_s, new_uuid, uuid7, week_of


@dataclass
class World:
    root: Path
    rng: random.Random
    repos: dict[str, Repo]
    bases: dict[str, Base]
    sessions: list[Session] = field(default_factory=list)
    clock: dict[str, datetime] = field(default_factory=dict)  # last commit time per repo

    def commit(
        self, repo: Repo, day: date, hour: int, message: str, author: tuple[str, str] | None = None
    ) -> None:
        when = max(at(day, hour), self.clock.get(repo.name, at(day, 0)) + timedelta(minutes=1))
        for base in self.bases.values():
            if base.repo is repo:
                base.render(STALE_EVIDENCE)
        repo.commit(when, message, *(() if author is None else (author,)))
        self.clock[repo.name] = when


def make_world(root: Path, rng: random.Random) -> World:
    repos = {
        name: Repo(name, root / "repos" / name, dict(files))
        for name, files in (
            ("atlas", ATLAS_FILES),
            ("harbor", HARBOR_FILES),
            ("sandbox", SANDBOX_FILES),
        )
    }
    bases = {spec.key: Base(spec, repos[spec.repo]) for spec in BASES}
    world = World(root, rng, repos, bases)
    for name, repo in repos.items():
        repo.commit(at(FIRST_DAY, 4), "Initial import", PEOPLE[name])
        world.clock[name] = at(FIRST_DAY, 4)
    for base in bases.values():
        base.notes = [line for week, line in base.spec.notes if week == 1]
        for lesson in base.spec.lessons:
            if lesson.events[0][0] == 1:
                base.status[lesson.id] = lesson.events[0][1]
                base.journals[lesson.id] = old_journal(lesson, rng) if lesson.old_hits else []
        world.commit(
            base.repo, FIRST_DAY, 4, f"{base.dir}: import the lesson base from the team wiki"
        )
    return world


def _pick(rng: random.Random, table: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([v for v, _ in table], weights=[w for _, w in table])[0]


def _session(
    world: World, agent: str, start: datetime, project: str, lang: str, version: str
) -> Session:
    rng = world.rng
    sid = uuid7(rng, start) if agent == "codex" else new_uuid(rng)
    repo = world.repos[project.split("/")[0]]
    keys = [k for k, cwds in BASE_CWDS.items() if project in cwds]
    if project == "harbor/services/api":
        keys = ["api", "harbor"]  # innermost first: the sub-project base, then the repo base
    return Session(
        sid,
        agent,
        version,
        start,
        world.root / "repos" / project,
        project,
        lang,
        repo,
        [world.bases[k] for k in keys],
    )


def schedule(world: World) -> None:
    rng = world.rng
    for n in range(WEEKS * 7):
        day = FIRST_DAY + timedelta(days=n)
        low, high = KNOBS.sessions_weekday if day.weekday() < 5 else KNOBS.sessions_weekend
        for _ in range(rng.randint(low, high)):
            start = at(day, KNOBS.day_start_hour) + timedelta(hours=rng.uniform(0, 11.5))
            project, _, lang = rng.choices(PROJECTS, weights=[w for _, w, _ in PROJECTS])[0]
            lang = lang if rng.random() < 0.75 else "en"
            version = _pick(rng, ERAS_BY_WEEK[week_of(day)])
            world.sessions.append(_session(world, "claude", start, project, lang, version))
    for i, (week, weekday) in enumerate(KNOBS.codex_days):
        day = day_of(week, weekday)
        version = "0.39.0" if week <= 2 else "0.63.0" if week <= 4 else "0.104.0"
        project = ("atlas", "harbor", "harbor/services/api")[i % 3]
        s = _session(
            world,
            "codex",
            codex_start(at(day, 0), rng, i % 5 == 2),
            project,
            "ru" if i % 2 else "en",
            version,
        )
        if i < KNOBS.bare_codex:
            s.extras.add("bare")
        world.sessions.append(s)
    world.sessions.sort(key=lambda s: s.start)


def assign_hits(world: World) -> list[HitSpec]:
    """Give each planned hit a session of the right project and week; return the hits that
    have no transcript in the demo (unknown session, or no session at all)."""
    rng, loose = world.rng, []
    for hit in HITS:
        if hit.source in ("unknown", "none"):
            loose.append(hit)
            continue
        agent = "codex" if hit.source == "codex" else "claude"
        pool = [
            s
            for s in world.sessions
            if s.agent == agent and week_of(s.start.date()) == hit.week and "bare" not in s.extras
        ]
        fits = [
            s
            for s in pool
            if s.project in BASE_CWDS[hit.base]
            and len(s.hits) < 2
            and all(h.truth == hit.truth and h.lesson != hit.lesson for h in s.hits)
        ]
        # Prefer Wednesday to Friday: lessons that appear in the hit's week exist by then.
        fits = (
            [s for s in fits if s.start.weekday() in (2, 3, 4)]
            or [s for s in fits if s.start.weekday() >= 2]
            or fits  # a busy week: any day (only the late L-0006 hits of week 1 need this)
        )
        if not fits and agent == "codex":  # move a Codex session into the project the hit needs
            s = rng.choice([s for s in pool if not s.hits])
            moved = _session(world, "codex", s.start, BASE_CWDS[hit.base][0], s.lang, s.version)
            moved.sid, world.sessions[world.sessions.index(s)] = s.sid, moved
            fits = [moved]
        rng.choice(fits).hits.append(hit)
    return loose


def mark_specials(world: World) -> None:
    rng = world.rng
    claude = [s for s in world.sessions if s.agent == "claude"]
    plain = [s for s in claude if not s.hits]
    week4 = [s for s in plain if week_of(s.start.date()) == 4]
    week4[-1].no_result_commit = True  # a commit ritual whose result never came (session died)
    next(s for s in plain if s.version == "2.1.114").extras.add("ai-title")
    for s in rng.sample([s for s in claude if s.era == "2.0"], 12):
        s.extras.add("warmup")
    _force_signals(world, plain)
    early = [s for s in plain if s.start.hour < 13 and not s.no_result_commit]
    for s in rng.sample(early, KNOBS.resumed):
        s.extras.add("resumed-later")


def _force_signals(world: World, plain: list[Session]) -> None:
    """Every correction and look-alike phrase appears at least once, in a session of its language;
    a fat body is `cat` in each era (cut in the middle <= 2.0, persisted in 2.1)."""
    rng = world.rng
    for table in (texts.CORRECTIONS, texts.LOOKALIKES):
        for lang, phrases in table.items():
            pool = [s for s in plain if s.lang == lang]
            for phrase in phrases:
                rng.choice(pool).forced.append(phrase)
    for era in ("1.0", "2.0", "2.1"):
        rng.choice([s for s in plain if s.era == era and s.project == "atlas"]).extras.add(
            "cat-fat"
        )


def _pending_notes(base: Base, week: int) -> list[str]:
    """The notes written up to `week` that INDEX.md (or NOTES.md) does not hold yet."""
    return [line for w, line in base.spec.notes if w <= week][len(base.notes) :]


def morning(world: World, day: date) -> None:
    """Notes wait for a review. A team jots notes as work goes, but the judge is the only
    writer of LESSONS/ and folds them in at a Tuesday review, in one commit per review:
    before the re-layout every note above `## Active` moves the heading, so a commit per
    note (the demo's earlier timeline) made every day a layout change and chained every
    change of a base into one confounded package. Reviews happen in the weeks of
    `note_sweeps`; the re-layout moves whatever is pending to NOTES.md, and after it a note
    is committed the day it is written, since NOTES.md no longer moves the Active table."""
    week, wd = week_of(day), day.weekday()
    for base in world.bases.values():
        if base.relaid:
            for i, note in enumerate(_week_notes(base, week)):
                if i % 5 == wd and note not in base.notes:
                    base.notes.append(note)
                    world.commit(base.repo, day, 5, f"{base.dir}NOTES.md: note: {note[:50]}")
        elif wd == 1 and week in base.spec.note_sweeps:
            pending = _pending_notes(base, week)
            if pending:
                base.notes += pending
                world.commit(
                    base.repo, day, 5, f"{base.dir}INDEX.md: review: {len(pending)} notes added"
                )
        if wd == 1:
            _status_changes(world, base, day, week)
        if wd == 2 and week == base.spec.relayout_week:
            base.notes += _pending_notes(base, week - 1)
            base.relaid = True
            world.commit(
                base.repo,
                day,
                5,
                f"{base.dir}INDEX.md: re-layout: Active table back to the top, notes to NOTES.md",
            )
        if wd == 3 and week == base.spec.marker_week:
            base.marker = (
                f"<!-- sleep-due: {day.isoformat()} · reasons: candidates-without-verdict=3, "
                "class-share=verify-before-report:41% -->"
            )
            world.commit(base.repo, day, 5, f"{base.dir}INDEX.md: sleep marker (stats --mark)")


def _week_notes(base: Base, week: int) -> list[str]:
    return [line for w, line in base.spec.notes if w == week] if week > 1 else []


def _status_changes(world: World, base: Base, day: date, week: int) -> None:
    for lesson in base.spec.lessons:
        for w, status in lesson.events:
            if w != week or w == 1:
                continue
            old = base.status.get(lesson.id)
            base.status[lesson.id] = status
            base.journals.setdefault(lesson.id, [])
            if status == "retired" and lesson.retire:
                reason, where = lesson.retire
                base.retired.append(
                    f"- {lesson.id} · {day.isoformat()} · reason: {reason} · where: {where}"
                )
            msg = (
                f"{lesson.id}: new {status}: {lesson.title}"
                if old is None
                else f"{lesson.id}: {old} -> {status}"
            )
            world.commit(base.repo, day, 5, msg)


def code_commits(world: World, day: date) -> None:
    for repo, week, wd, hour, message, path, text in CODE_COMMITS:
        if day_of(week, wd) == day:
            world.repos[repo].files[path] = text
            world.commit(world.repos[repo], day, hour, message, PEOPLE[repo])
    if day == day_of(4, 2):
        world.repos["sandbox"].files["notes.md"] += "- polars lazy: 3x faster on the tile index\n"
        world.commit(world.repos["sandbox"], day, 12, "notes: polars result", PEOPLE["sandbox"])


def run_day(world: World, day: date, claude_dir: Path, codex_dir: Path) -> list[Session]:
    done: list[Session] = []
    queue = [s for s in world.sessions if s.start.date() == day]
    replays: dict[str, list[dict[str, object]]] = {}
    while queue:
        s = queue.pop(0)
        s.acts = build_script(world.rng, s)
        if s.agent == "codex":
            s.file = (
                write_bare(world.rng, s, codex_dir)
                if "bare" in s.extras
                else CodexWriter(world.rng, s, codex_dir).write()
            )
        else:
            lines = ClaudeWriter(world.rng, s, claude_dir).write(replays.get(s.sid))
            if "warmup" in s.extras:
                write_warmup(world.rng, s, claude_dir)
            if "resumed-later" in s.extras and s.end is not None:
                queue.append(_resume(world, s, lines, replays))
                queue.sort(key=lambda x: x.start)
        done.append(s)
    return done


def _resume(
    world: World,
    s: Session,
    lines: list[dict[str, object]],
    replays: dict[str, list[dict[str, object]]],
) -> Session:
    assert s.end is not None
    start = s.end + timedelta(minutes=world.rng.uniform(20, 70))
    new = _session(world, "claude", start, s.project, s.lang, s.version)
    new.resume_of = s
    convo = [
        r for r in lines if r.get("type") in ("user", "assistant") and not r.get("isSidechain")
    ]
    replays[new.sid] = convo[: min(6, len(convo))]
    world.sessions.append(new)
    return new


def evening(world: World, day: date, done: list[Session], loose: list[HitSpec]) -> None:
    rng, week = world.rng, week_of(day)
    entries: dict[str, list[tuple[str, str]]] = defaultdict(list)  # base -> (lesson, journal line)
    for s in done:
        for n, hit in enumerate(s.hits):
            key = f"{hit.base}:{hit.lesson}:{n}"
            where, what = s.miss_info[key]
            ts = s.marks[key][:19] + "Z"
            entries[hit.base].append((hit.lesson, _hit_line(day, hit, where, what, s.sid, ts)))
    for hit in loose:
        if hit.week == week and day.weekday() == 2:
            lesson = world.bases[hit.base].lesson(hit.lesson)
            sid = new_uuid(rng) if hit.source == "unknown" else ""
            ts = iso_s(at(day, rng.randrange(8, 18), rng.randrange(60))) if sid else ""
            entries[hit.base].append(
                (
                    hit.lesson,
                    _hit_line(
                        day, hit, rng.choice(lesson.wheres), rng.choice(lesson.whats), sid, ts
                    ),
                )
            )
    for key, wk, wd, signal, mech in QUARANTINE:
        if (wk, wd) == (week, day.weekday()):
            sids = [s.sid for s in done if any(b.key == key for b in s.bases)]
            sid = f" · session: {sids[0]}" if sids else ""
            world.bases[key].quarantine.append(
                f"- {day.isoformat()} · signal: {signal}{sid} · mechanism: {mech} · seen: 1"
            )
            entries.setdefault(key, [])
    latest = max([s.end for s in done if s.end] + [at(day, 20, 44)])
    for key, items in sorted(entries.items()):
        base = world.bases[key]
        for lid, line in items:
            base.journals.setdefault(lid, []).append(line)
        ids = sorted({lid for lid, _ in items})
        msg = f"journal: {', '.join(ids)}" if ids else "quarantine: new observation"
        world.clock[base.repo.name] = max(world.clock[base.repo.name], latest)
        world.commit(base.repo, day, 20, msg)


def _hit_line(day: date, hit: HitSpec, where: str, what: str, sid: str, ts: str) -> str:
    parts = [
        f"- {day.isoformat()}",
        f"where: {where}",
        f"what: {what}",
        f"caught: {hit.caught}",
        f"recalled: {hit.recorded}",
        f"defect: {hit.defect}",
    ]
    if sid:
        parts.append(f"session: {sid}")
    if ts:
        parts.append(f"ts: {ts}")
    return " · ".join(parts)
