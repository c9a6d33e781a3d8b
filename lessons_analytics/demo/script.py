"""Session scripts: the order of things an agent does in one session of the demo."""

from __future__ import annotations

import os
import random

from . import shell, texts
from .bases import Base
from .plan import (
    Act,
    Session,
    Sub,
    body_read,
    check_act,
    commit_act,
    edit_act,
    index_read,
    read_file_act,
    saw_active,
)
from .scenario import KNOBS, HitSpec
from .util import week_of


def build_script(rng: random.Random, s: Session) -> list[Act]:
    task, message = rng.choice(texts.TASKS[s.project])
    if s.resume_of is not None:
        task = ("продолжим: " if s.lang == "ru" else "Let's continue where we stopped. ") + task
    acts = [Act("prompt", text=task)]
    forbid = {h.lesson for h in s.hits if h.truth != "recalled"}
    hook = _hook(s, forbid)
    if hook:
        acts.append(hook)
    acts += _lessons_phase(rng, s, task, forbid)
    acts += _work_phase(rng, s)
    for n, hit in enumerate(s.hits):
        acts += _miss(rng, s, hit, n)
    acts += _signals(rng, s)
    acts += _finish(rng, s, message)
    return acts


def _hook(s: Session, forbid: set[str]) -> Act | None:
    # From week 6 the harbor team runs a SessionStart hook that injects the active lesson ids.
    if (
        not s.version.startswith("2.1")
        or not s.project.startswith("harbor")
        or week_of(s.start.date()) < 6
    ):
        return None
    harbor = next(b for b in s.bases if b.key == "harbor")
    ids = [lid for lid, st in harbor.status.items() if st == "active" and lid not in forbid]
    parts = [f"{lid} ({harbor.lesson(lid).title})" for lid in ids[:3]]
    return Act(
        "hook", text="Lessons that apply in harbor: " + "; ".join(parts) + ". Bodies in LESSONS/."
    )


def _base_of(s: Session, lid: str) -> Base:
    return next(b for b in s.bases if lid in b.status)


def _lessons_phase(rng: random.Random, s: Session, task: str, forbid: set[str]) -> list[Act]:
    must = [h.lesson for h in s.hits if h.truth == "recalled"]
    index_only = {h.base for h in s.hits if h.truth == "index"}
    if any(h.truth == "none" for h in s.hits):
        return []  # a miss "without the lesson": this session never looked at the lessons
    if not s.bases or not (
        must or index_only or "cat-fat" in s.extras or rng.random() < KNOBS.index_read_share
    ):
        return []
    acts = [
        Act(
            "say",
            text="Я начну с индекса уроков."
            if s.lang == "ru"
            else "Let me check the lessons index first.",
        )
    ]
    seen: list[str] = []
    for base in reversed(s.bases):  # outer base first, the sub-project's own base last
        act = index_read(rng, s, base, whole=base.key in index_only)
        acts.append(act)
        if saw_active(act, base):
            seen += [lid for lid, st in base.status.items() if st == "active" and lid not in forbid]
    # Agents open fat bodies less often than light ones (they scroll past them), but they do.
    light = [x for x in seen if not _base_of(s, x).lesson(x).old_hits or rng.random() < 0.3]
    extra = rng.sample(light, k=min(len(light), rng.choice((0, 0, 0, 1, 1, 2))))
    recall = list(dict.fromkeys(must + [x for x in extra if x not in must]))
    if "cat-fat" in s.extras:  # the whole fat body through `cat`: more than the harness keeps
        base = s.bases[0]
        rel = base.lesson_rel("L-0001")
        acts.append(
            Act(
                "bash",
                text=f"cat LESSONS/{rel.split('/')[-1]}",
                output=base.repo.files[rel].rstrip("\n"),
            )
        )
    if not recall:
        return acts
    scout_ok = s.agent == "claude" and rng.random() < KNOBS.scout_share
    if scout_ok:
        acts.append(_scout(rng, s, task, recall))
    else:
        acts += [body_read(rng, s, _base_of(s, lid), lid) for lid in recall]
    return acts


def _scout(rng: random.Random, s: Session, task: str, recall: list[str]) -> Act:
    sub_acts: list[Act] = [index_read(rng, s, b, whole=True) for b in reversed(s.bases)]
    sub_acts += [body_read(rng, s, _base_of(s, lid), lid) for lid in recall]
    lines = [
        f"- {lid} ({_base_of(s, lid).lesson(lid).title}): {_base_of(s, lid).lesson(lid).rule}"
        for lid in recall
    ]
    final = "Lessons that apply to this task:\n" + "\n".join(lines)
    prompt = texts.SCOUT_PROMPT.format(task=task)
    return Act(
        "spawn",
        sub=Sub("lessons-scout", "Find lessons for the task", prompt, sub_acts, final),
        seconds=0.0,
    )


def _source_files(s: Session) -> dict[str, str]:
    """Source files under the session's cwd, keyed by their path relative to it."""
    prefix = os.path.relpath(s.cwd, s.repo.root)
    prefix = "" if prefix == "." else prefix + "/"
    return {
        p[len(prefix) :]: t
        for p, t in sorted(s.repo.files.items())
        if p.startswith(prefix) and "LESSONS/" not in p
    }


def _work_phase(rng: random.Random, s: Session) -> list[Act]:
    acts: list[Act] = []
    files = _source_files(s) or {"README.md": "# notes\n"}
    picks = rng.sample(sorted(files), k=min(len(files), rng.choice((1, 1, 2))))
    for rel in picks:
        if s.agent == "claude":
            acts.append(read_file_act(s, s.cwd / rel, files[rel]))
        else:
            acts.append(
                Act(
                    "bash",
                    text=f"sed -n '1,120p' {rel}",
                    output=shell.sed_range(files[rel], 1, 120),
                )
            )
    if rng.random() < 0.3:
        acts.append(Act("bash", text="git status --short", output=f" M {picks[0]}", seconds=0.05))
    acts.append(
        edit_act(s, picks[0], "    return", "    # keep the public signature stable\n    return")
    )
    if s.version.startswith(("1.0", "2.1")) and rng.random() < 0.06:
        out = shell.verbose_tests(rng, rng.choice((260, 520)))
        acts.append(
            Act("bash", text="uv run pytest -v tests/", output=out, seconds=rng.uniform(100, 200))
        )
    if rng.random() < 0.8:
        if rng.random() < 0.15:
            acts += [check_act(rng, s, ok=False), edit_act(s, picks[0], "x", "y")]
        acts.append(check_act(rng, s))
    return acts


def _miss(rng: random.Random, s: Session, hit: HitSpec, n: int) -> list[Act]:
    base = next(b for b in s.bases if b.key == hit.base)
    lesson = base.lesson(hit.lesson)
    what, where = rng.choice(lesson.whats), rng.choice(lesson.wheres)
    key = f"{hit.base}:{hit.lesson}:{n}"
    s.miss_info[key] = (where, what)
    if hit.lesson in ("L-0001", "L-0101", "L-0008"):
        acts = [
            edit_act(s, where, "pass", "return None"),
            Act("say", text=texts.DONE_CLAIMS[s.lang], mark=key),
        ]
    elif hit.lesson == "L-0002":
        acts = [commit_act(rng, s, "wip: " + what, flags="--no-verify ")]
        acts[0].mark = key
    else:
        acts = [edit_act(s, where, "old", "new  # " + what, mark=key)]
    acts += _detect(rng, s, hit, what)
    acts += [edit_act(s, where, "new", "fixed"), check_act(rng, s)]
    return acts


def _detect(rng: random.Random, s: Session, hit: HitSpec, what: str) -> list[Act]:
    if hit.caught in ("gate", "self", "judge"):
        return [check_act(rng, s, ok=False, failure=f"FAILED {hit.lesson} gate: {what}")]
    if hit.caught == "ci":
        text = f"CI is red on main: {what}." if s.lang == "en" else f"CI красный на main: {what}."
        return [Act("prompt", text=text)]
    if hit.caught == "reviewer" and s.agent == "claude":
        return [_reviewer(rng, s, f"REJECT: needs rework — {what}.")]
    prefix = "that's wrong: " if s.lang == "en" else "нет, не так: "
    return [Act("prompt", text=prefix + what + ".")]


def _reviewer(rng: random.Random, s: Session, verdict: str) -> Act:
    files = sorted(_source_files(s)) or ["README.md"]
    diff = Act(
        "bash",
        text="git diff --stat",
        output=f" {files[0]} | {rng.randint(2, 40)} ++--",
        seconds=0.1,
    )
    prompt = "Review the uncommitted diff in this repository. Reply APPROVE or REJECT with reasons."
    return Act("spawn", sub=Sub("reviewer", "Review the diff", prompt, [diff], verdict))


def _signals(rng: random.Random, s: Session) -> list[Act]:
    acts: list[Act] = []
    lang = s.lang
    for phrase in s.forced:
        acts += [
            Act("say", text="Готово, посмотри." if lang == "ru" else "I've made the change."),
            Act("prompt", text=phrase),
        ]
    if rng.random() < 0.12:
        acts += [
            Act("say", text="I've made the change."),
            Act("prompt", text=rng.choice(texts.CORRECTIONS[lang])),
        ]
    if rng.random() < 0.10:
        acts += [
            Act("say", text="Sorry, that took a while."),
            Act("prompt", text=rng.choice(texts.LOOKALIKES[lang])),
        ]
    if rng.random() < 0.06:
        act = check_act(rng, s)
        act.result, act.seconds = "interrupt", rng.uniform(5, 30)
        acts += [act, Act("prompt", text=rng.choice(texts.AFTER_INTERRUPT[lang]))]
    if rng.random() < 0.03:
        acts += [
            Act("say", text="Let me also refactor the helpers while I'm here."),
            Act("interrupt"),
            Act("prompt", text=rng.choice(texts.AFTER_INTERRUPT[lang])),
        ]
    if rng.random() < 0.06:
        act = edit_act(s, "deploy/config.toml", "workers = 2", "workers = 4")
        act.result = "reject"
        acts += [act, Act("prompt", text=rng.choice(texts.AFTER_REJECT[lang]))]
    if rng.random() < 0.08:
        cmd, err, fix = rng.choice(texts.REPEATED_FAILURES)
        fail = [
            Act("bash", text=cmd, output=err, error=True, seconds=rng.uniform(1, 4))
            for _ in range(2)
        ]
        acts += [*fail, Act("bash", text=fix, output="ok", seconds=rng.uniform(3, 20))]
    if s.agent == "claude" and rng.random() < KNOBS.reviewer_share:
        acts += [
            _reviewer(rng, s, rng.choice(texts.REVIEW_REJECT)),
            edit_act(s, "tests/test_rework.py", "", "def test_rework(): ..."),
            _reviewer(rng, s, rng.choice(texts.REVIEW_APPROVE)),
        ]
    return acts


def _finish(rng: random.Random, s: Session, message: str) -> list[Act]:
    acts = [Act("say", text="Summary: the change is in place and the checks pass.")]
    if s.no_result_commit or rng.random() < KNOBS.commit_share:
        acts.append(Act("prompt", text=rng.choice(texts.FOLLOW_UPS[s.lang])))
        for i in range(rng.choice((1, 1, 2, 2))):
            acts.append(commit_act(rng, s, message if i == 0 else f"{message} (follow-up {i})"))
        if s.no_result_commit:
            acts[-1].result = "none"
            return acts
        acts.append(Act("say", text="Committed."))
    return acts
