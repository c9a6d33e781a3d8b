"""A held-out labelled set for retro, written BEFORE the patterns were tuned against it.

The first labelled set (``tests/data/retro/labels.json``) was written while the patterns were
tuned and scores 1.00/1.00, so it measures nothing. This one was written from the issue's
list of look-alikes and true signals, in English and Russian, then measured as it stood.

Each session is a list of steps; a step's label sits on the transcript line where retro must
report (or must not report) it: ``("S", kind, mechanism)`` for a true signal, ``("L",
category)`` for a look-alike. Mechanism ids name what went wrong (what would prevent it),
so signals of one mechanism must land in one cluster and signals of different mechanisms in
different clusters. Git look-alikes and signals are built by :func:`build_repo`.

No line is copied from a real transcript.
"""

# ruff: noqa: E501

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import combinations
from math import comb
from pathlib import Path
from typing import Any

from tests.support.basebuilder import commit, git
from tests.support.transcripts import ClaudeSession, reset_ids

Label = tuple[str, ...] | None
Step = tuple[Any, ...]

REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file)."
)
STOP = " STOP what you are doing and wait for the user to tell you how to proceed."
REASON = " The user provided the following reason for the rejection:  "
TOOL_INTERRUPT = "[Request interrupted by user for tool use]"

# Look-alike categories of the issue, each in English and Russian.
CATEGORIES = (
    "answer",  # the user answering a question the agent asked
    "quoted",  # a correction quoted from elsewhere (a pasted review, a log)
    "revert-of-revert",
    "third-party",  # a test, a reviewer, a tool being wrong, not the agent
    "self-correction",  # the user correcting their own earlier instruction
    "greeting",  # greetings and thanks
    "neutral-again",  # "run it again"
    "gate-approves",
    "declined-no-reason",  # plan mode declined / a permission prompt refused, no reason
)

S = "S"
L = "L"

SESSIONS: list[list[Step]] = [
    # 1 en: skipped the full check before committing (told-you)
    [
        ("u", "Add the --since flag to the export command and commit.", None),
        ("a", "Done: added --since and committed as 4f2c1a9."),
        (
            "u",
            "I told you to run make check before committing. Run it now.",
            (S, "correction", "M-check"),
        ),
    ],
    # 2 ru: the same mechanism, in Russian
    [
        ("u", "Добавь флаг --until и закоммить.", None),
        ("a", "Готово, флаг добавлен, коммит 91ab33c."),
        ("u", "я же просил: сначала make check, потом коммит.", (S, "correction", "M-check")),
    ],
    # 3 en: the same mechanism again, plus a repeat of an earlier correction in the session
    [
        ("u", "Fix the date parsing in export.py and commit it.", None),
        ("a", "Fixed and committed."),
        ("u", "no, run make check before you commit, every time.", (S, "correction", "M-check")),
        ("a", "Ran make check: 2 failures in test_export.py. Fixed them and amended the commit."),
        ("u", "Now add the timezone option.", None),
        ("a", "Added the timezone option and committed it as 77de012."),
        (
            "u",
            "run make check before you commit — every single time.",
            (S, "correction", "M-check"),
        ),
    ],
    # 4 ru: a repeated correction with no correcting words the second time
    [
        ("u", "Поставь зависимости и запусти сборку фронта.", None),
        ("ok", "npm install", "added 312 packages in 9s"),
        ("u", "нет, не npm — у нас pnpm.", (S, "correction", "M-pnpm")),
        ("a", "Понял, удалил package-lock.json и поставил через pnpm."),
        ("u", "Теперь добавь пакет date-fns.", None),
        ("ok", "npm install date-fns", "added 1 package in 2s"),
        ("u", "pnpm, не npm. У нас pnpm.", (S, "correction", "M-pnpm")),
    ],
    # 5 en: permission prompt refused with a reason (pnpm), then a look-alike answer
    [
        ("u", "Install the deps for the web app.", None),
        (
            "reject",
            "Bash",
            {"command": "npm install", "description": "install"},
            "use pnpm",
            (S, "rejected_tool_use", "M-pnpm"),
        ),
        ("ok", "pnpm install", "Done in 4.1s"),
        ("a", "Should I also upgrade vite, or keep the current version?"),
        ("u", "no, keep the current one.", (L, "answer")),
    ],
    # 6 en: tool interrupt of npm install, the user then says why
    [
        ("u", "Get the web app running locally.", None),
        ("tint", "npm install", (S, "interrupt", "M-pnpm")),
        ("u", "this repo uses pnpm, not npm.", (S, "correction", "M-pnpm")),
    ],
    # 7 en: migrations are generated; a refused edit with a reason and a correction
    [
        ("u", "Add a nullable column 'note' to orders.", None),
        (
            "reject",
            "Edit",
            {
                "file_path": "/home/dev/shop/app/migrations/0007_orders.py",
                "old_string": "fields = [",
                "new_string": "fields = [note,",
            },
            "don't edit migrations by hand, generate them with makemigrations",
            (S, "rejected_tool_use", "M-migrations"),
        ),
        ("a", "I will generate the migration instead."),
        ("u", "Thanks. Then run the migration tests.", (L, "greeting")),
    ],
    # 8 ru: the same migrations mechanism
    [
        ("u", "Переименуй поле total в amount.", None),
        ("a", "Переименовал поле в модели и поправил migrations/0008_amount.py вручную."),
        (
            "u",
            "не трогай migrations руками, их генерирует makemigrations.",
            (S, "correction", "M-migrations"),
        ),
    ],
    # 9 en: bbox order
    [
        ("u", "Add a bbox filter to the tiles endpoint.", None),
        ("a", "Added bbox=lat_min,lon_min,lat_max,lon_max."),
        ("u", "that's wrong: the bbox is lon first, then lat.", (S, "correction", "M-bbox")),
    ],
    # 10 ru: bbox order
    [
        ("u", "Сделай фильтр bbox в выгрузке.", None),
        ("a", "Сделал: bbox=широта,долгота,широта,долгота."),
        (
            "u",
            "неправильно, в bbox сначала долгота (lon), потом широта.",
            (S, "correction", "M-bbox"),
        ),
    ],
    # 11 en: shapely missing, pytest with one set of arguments, failing twice
    [
        ("u", "Run the clip tests.", None),
        (
            "bash",
            "uv run pytest tests/test_clip.py -q",
            "Exit code 1\nE   ModuleNotFoundError: No module named 'shapely'\nERROR tests/test_clip.py",
            (S, "repeated_failure", "F-shapely"),
        ),
        (
            "bash",
            "uv run pytest tests/test_clip.py -q",
            "Exit code 1\nE   ModuleNotFoundError: No module named 'shapely'\nERROR tests/test_clip.py",
            None,
        ),
        ("ok", "uv sync --extra geo", "Resolved 41 packages"),
    ],
    # 12 ru: the same failure, other arguments
    [
        ("u", "Прогони тесты площади.", None),
        (
            "bash",
            "cd /home/dev/shop && uv run pytest tests/test_geo.py -k area",
            "Exit code 1\nE   ModuleNotFoundError: No module named 'shapely'",
            (S, "repeated_failure", "F-shapely"),
        ),
        (
            "bash",
            "uv run pytest tests/test_geo.py -k 'area or perimeter'",
            "Exit code 1\nE   ModuleNotFoundError: No module named 'shapely'",
            None,
        ),
    ],
    # 13 en: the same command failing for another reason: a missing fixture
    [
        ("u", "Run the db tests.", None),
        (
            "bash",
            "uv run pytest tests/test_db.py",
            "Exit code 1\nE       fixture 'db' not found\n>       available fixtures: cache, capsys",
            (S, "repeated_failure", "F-fixture"),
        ),
        (
            "bash",
            "uv run pytest tests/test_db.py -x",
            "Exit code 1\nE       fixture 'db' not found\n>       available fixtures: cache, capsys",
            None,
        ),
    ],
    # 14 en: python not on PATH, one spelling
    [
        ("u", "Which python do we have here?", None),
        (
            "bash",
            "which python3.11",
            "Exit code 1\nwhich: no python3.11 in (/usr/local/bin:/usr/bin:/bin)",
            (S, "repeated_failure", "F-python-path"),
        ),
        (
            "bash",
            "which python3.11",
            "Exit code 1\nwhich: no python3.11 in (/usr/local/bin:/usr/bin:/bin)",
            None,
        ),
    ],
    # 15 ru: python not on PATH, another spelling
    [
        ("u", "Проверь версию питона.", None),
        (
            "bash",
            "which python3.12",
            "Exit code 1\nwhich: no python3.12 in (/usr/bin:/bin)",
            (S, "repeated_failure", "F-python-path"),
        ),
        ("bash", "which python3.12", "Exit code 1\nwhich: no python3.12 in (/usr/bin:/bin)", None),
    ],
    # 16 en: edits on a stale view of the file, two files
    [
        ("u", "Rename fetch_all to fetch_rows everywhere.", None),
        (
            "edit",
            "/home/dev/shop/app/db.py",
            "<tool_use_error>String to replace not found in file.\nString: def fetch_all(</tool_use_error>",
            (S, "repeated_failure", "F-stale-edit"),
        ),
        (
            "edit",
            "/home/dev/shop/app/db.py",
            "<tool_use_error>String to replace not found in file.\nString: def fetch_all(</tool_use_error>",
            None,
        ),
    ],
    [
        ("u", "Переименуй load_cfg в load_config.", None),
        (
            "edit",
            "/home/dev/shop/app/config.py",
            "<tool_use_error>String to replace not found in file.\nString: def load_cfg(</tool_use_error>",
            (S, "repeated_failure", "F-stale-edit"),
        ),
        (
            "edit",
            "/home/dev/shop/app/config.py",
            "<tool_use_error>String to replace not found in file.\nString: def load_cfg(</tool_use_error>",
            None,
        ),
    ],
    # 18 en: docker socket permission, two subcommands
    [
        ("u", "Bring the stack up.", None),
        (
            "bash",
            "docker compose up -d",
            "Exit code 1\npermission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock",
            (S, "repeated_failure", "F-docker-socket"),
        ),
        (
            "bash",
            "docker compose up -d db",
            "Exit code 1\npermission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock",
            None,
        ),
    ],
    [
        ("u", "Собери образы.", None),
        (
            "bash",
            "docker compose build",
            "Exit code 1\npermission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock",
            (S, "repeated_failure", "F-docker-socket"),
        ),
        (
            "bash",
            "docker compose build web",
            "Exit code 1\npermission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock",
            None,
        ),
    ],
    # 20 en: reviewer returns the work: only the happy path is tested
    [
        ("u", "Ship the split of the orders migration.", None),
        (
            "task",
            "reviewer",
            "Review the uncommitted diff. Reply APPROVE or REJECT with reasons.",
            "REJECT: the new test only covers the happy path; add a test for an empty order.",
            (S, "gate_rejection", "G-edge-tests"),
        ),
        (
            "task",
            "reviewer",
            "Review the diff again. Reply APPROVE or REJECT.",
            "APPROVE. Nit: the docstring needs changes later, not blocking.",
            (L, "gate-approves"),
        ),
    ],
    # 21 ru: the same mechanism from a Russian reviewer
    [
        ("u", "Подготовь выгрузку к релизу.", None),
        (
            "task",
            "reviewer",
            "Проверь diff. Ответь ПРИНЯТО или ОТКЛОНЕНО с причинами.",
            "Отклонено: тест проверяет только удачный случай, нет теста на пустой ввод.",
            (S, "gate_rejection", "G-edge-tests"),
        ),
        (
            "task",
            "reviewer",
            "Проверь diff ещё раз.",
            "Вердикт: одобрено, доработка не нужна.",
            (L, "gate-approves"),
        ),
    ],
    # 22 en: reviewer returns the work for another reason
    [
        ("u", "Add the archive table.", None),
        (
            "task",
            "reviewer",
            "Review the migration. Reply APPROVE or REJECT.",
            "REJECT: the migration is not reversible — there is no down step.",
            (S, "gate_rejection", "G-irreversible"),
        ),
        (
            "task",
            "reviewer",
            "Review the fix.",
            "Verdict: PASS — no changes requested.",
            (L, "gate-approves"),
        ),
    ],
    # 23 ru: approving reviewer whose remark mentions rework
    [
        ("u", "Проверь мой фикс таймаута.", None),
        (
            "task",
            "reviewer",
            "Проверь фикс.",
            "Принято. Мелочь в комментарии на доработку не отправляю.",
            (L, "gate-approves"),
        ),
    ],
    # 24 en: cargo release build interrupted, twice in two sessions
    [
        ("u", "Check that the crate builds.", None),
        ("tint", "cargo build --release", (S, "interrupt", "I-release-build")),
        (
            "u",
            "Use cargo check for that, the release build takes ten minutes.",
            (S, "correction", "I-release-build"),
        ),
    ],
    [
        ("u", "Проверь, что крейт собирается.", None),
        ("tint", "cargo build --release --all-features", (S, "interrupt", "I-release-build")),
        (
            "u",
            "хватит cargo build --release, для проверки есть cargo check.",
            (S, "correction", "I-release-build"),
        ),
    ],
    # 26 en: the agent rewrites the whole file; a turn interrupt and a stop
    [
        ("u", "Change parse_row to skip blank lines.", None),
        ("a", "I'll rewrite reader.py with a cleaner structure and then add the blank line check."),
        ("turnint", (S, "interrupt", "M-whole-file")),
        (
            "u",
            "stop, don't rewrite the whole file, only change parse_row.",
            (S, "correction", "M-whole-file"),
        ),
    ],
    # 27 ru: the same mechanism
    [
        ("u", "Поправь в writer.py экранирование кавычек.", None),
        ("a", "Перепишу writer.py целиком, так будет чище."),
        ("turnint", (S, "interrupt", "M-whole-file")),
        (
            "u",
            "стоп, не переписывай весь файл, поправь только экранирование.",
            (S, "correction", "M-whole-file"),
        ),
    ],
    # 28 en: force push refused with a reason; ru correction of the same
    [
        ("u", "Push the rebased branch.", None),
        (
            "reject",
            "Bash",
            {"command": "git push --force origin main", "description": "push"},
            "never force-push to main",
            (S, "rejected_tool_use", "M-force-push"),
        ),
    ],
    [
        ("u", "Залей ветку после ребейза.", None),
        ("ok", "git push --force origin main", "+ 1a2b3c4...5d6e7f8 main -> main (forced update)"),
        (
            "u",
            "никогда не делай force push в main, я же говорил.",
            (S, "correction", "M-force-push"),
        ),
    ],
    # 30 en: a plan declined with a real reason (scope)
    [
        ("u", "Fix the off-by-one in the pager.", None),
        (
            "plan",
            "1. Rewrite the pager module\n2. Fix the off-by-one\n3. Update docs",
            "no, don't rewrite the pager, just fix the off-by-one",
            (S, "rejected_tool_use", "M-scope"),
        ),
    ],
    # 31 ru: scope creep, in a correction
    [
        ("u", "Исправь опечатку в сообщении об ошибке.", None),
        ("a", "Исправил опечатку и заодно переименовал все сообщения об ошибках в модуле."),
        (
            "u",
            "зачем ты переименовал все сообщения? Просил только опечатку.",
            (S, "correction", "M-scope"),
        ),
    ],
    # ---------------------------------------------------------------- look-alikes
    # answers to a question the agent asked
    [
        ("u", "Set up the deploy config.", None),
        ("a", "Should I use the dev or the prod config as the base?"),
        ("u", "no, use the other one — prod.", (L, "answer")),
        ("a", "Which branch should I base it on, main or release?"),
        ("u", "not that one, release.", (L, "answer")),
    ],
    [
        ("u", "Настрой конфиг деплоя.", None),
        ("a", "Какой конфиг взять за основу: dev или prod?"),
        ("u", "нет, другой — prod.", (L, "answer")),
        ("a", "Удалить старые тесты деплоя или оставить?"),
        ("u", "не надо, оставь.", (L, "answer")),
    ],
    # quoted corrections: a pasted review, a log
    [
        ("u", "Look at this.", None),
        ("a", "Sure, paste it."),
        (
            "u",
            "Here is the review I got on my PR from Dana:\n> that's wrong: the cache key ignores the locale.\n> why did you drop the retry?\nWhat do you think?",
            (L, "quoted"),
        ),
        ("a", "The locale point is right; the retry was dropped on purpose."),
        (
            "u",
            "The CI log says:\n```\nERROR: not like that: expected 3 rows, got 2\n```\ncan you look?",
            (L, "quoted"),
        ),
    ],
    [
        ("u", "Глянь кое-что.", None),
        ("a", "Давай."),
        (
            "u",
            "Вот отзыв ревьюера на мой PR:\n> неправильно: ключ кэша не учитывает локаль.\nЧто думаешь?",
            (L, "quoted"),
        ),
        ("a", "Замечание по локали верное."),
        ("u", "Коллега написал в чате: «нет, не так, сначала миграции». Согласен?", (L, "quoted")),
    ],
    # third party wrong
    [
        ("u", "Make the tests pass.", None),
        ("a", "test_dates fails: it expects 01/02/2026 but the formatter now writes 2026-02-01."),
        (
            "u",
            "the test is wrong, it expects the old date format. Update the test.",
            (L, "third-party"),
        ),
        ("a", "Updated. ruff reports F401 on the typing import in models.py."),
        (
            "u",
            "ruff is wrong about this import, it's used in an annotation; add a noqa.",
            (L, "third-party"),
        ),
        ("a", "The upstream docs say the flag is --dryrun."),
        ("u", "That's wrong in the upstream docs, the flag is --dry-run.", (L, "third-party")),
    ],
    [
        ("u", "Почини тесты.", None),
        ("a", "test_dates падает: ждёт 01/02/2026, а форматтер теперь пишет 2026-02-01."),
        ("u", "тест неправильный, он ждёт старый формат даты. Поправь тест.", (L, "third-party")),
        ("a", "Ревьюер пишет, что блокировка не нужна."),
        ("u", "ревьюер неправ насчёт блокировки, игнорируй это замечание.", (L, "third-party")),
        ("a", "В документации библиотеки флаг называется --dryrun."),
        (
            "u",
            "Это неправильно в документации библиотеки, флаг называется --dry-run.",
            (L, "third-party"),
        ),
    ],
    # the user correcting their own instruction
    [
        ("u", "Point the dev server at port 8080.", None),
        ("a", "Done, the dev server listens on 8080."),
        ("u", "no, sorry, my mistake: the port is 8081, not 8080.", (L, "self-correction")),
        ("a", "Switched to 8081. Loading the fixtures from data/."),
        (
            "u",
            "wait, I gave you the wrong path — it's data/raw, not data/.",
            (L, "self-correction"),
        ),
    ],
    [
        ("u", "Поставь дев-серверу порт 8080.", None),
        ("a", "Готово, порт 8080."),
        ("u", "нет, я ошибся: порт 8081, а не 8080.", (L, "self-correction")),
        ("a", "Поменял на 8081 и переключился на main."),
        ("u", "стоп, я перепутал ветку — нужна release, а не main.", (L, "self-correction")),
    ],
    # greetings and thanks
    [
        ("u", "Hi! Start with the README.", (L, "greeting")),
        ("a", "Updated the README intro."),
        ("u", "Hello again! Let's continue with the exporter.", (L, "greeting")),
        ("a", "The exporter now writes JSON lines."),
        ("u", "Thanks, that works. Now add the CSV option.", (L, "greeting")),
    ],
    [
        ("u", "Привет! Начни с README.", (L, "greeting")),
        ("a", "Обновил вступление в README."),
        ("u", "Снова привет! Продолжим с экспортом.", (L, "greeting")),
        ("a", "Экспорт теперь пишет JSON lines."),
        ("u", "Спасибо, работает. Теперь добавь CSV.", (L, "greeting")),
    ],
    # "again" used neutrally
    [
        ("u", "Benchmark the parser.", None),
        ("a", "Parser: 41 MB/s in debug."),
        ("u", "Run the benchmark again with --release.", (L, "neutral-again")),
        ("a", "Release: 212 MB/s."),
        (
            "u",
            "Read the spec again and then draft the plan for the streaming mode.",
            (L, "neutral-again"),
        ),
        ("a", "Plan drafted in PLAN.md."),
        ("u", "Nice. Try it again on the big file!", (L, "neutral-again")),
    ],
    [
        ("u", "Замерь скорость парсера.", None),
        ("a", "Парсер: 41 МБ/с в debug."),
        ("u", "Снова запусти бенчмарк, теперь с --release.", (L, "neutral-again")),
        ("a", "Release: 212 МБ/с."),
        (
            "u",
            "Прочитай спецификацию ещё раз и набросай план потокового режима.",
            (L, "neutral-again"),
        ),
        ("a", "План в PLAN.md."),
        ("u", "Давай снова пройдёмся по плану!", (L, "neutral-again")),
    ],
    # plan mode declined, permission prompts refused, without a reason
    [
        ("u", "Plan the move to the new config loader.", None),
        (
            "plan",
            "1. Add loader\n2. Migrate callers\n3. Remove old loader",
            None,
            (L, "declined-no-reason"),
        ),
        ("u", "let me think about it first.", None),
    ],
    [
        ("u", "Clean the build folder.", None),
        (
            "reject",
            "Bash",
            {"command": "rm -rf build", "description": "clean"},
            None,
            (L, "declined-no-reason"),
        ),
    ],
    [
        ("u", "Спланируй переход на новый загрузчик конфига.", None),
        (
            "plan",
            "1. Новый загрузчик\n2. Перевести вызовы\n3. Удалить старый",
            None,
            (L, "declined-no-reason"),
        ),
        ("u", "подожди, я сам посмотрю.", None),
    ],
    [
        ("u", "Обнови версию в pyproject.", None),
        (
            "reject",
            "Edit",
            {
                "file_path": "/home/dev/shop/pyproject.toml",
                "old_string": "0.4.1",
                "new_string": "0.5.0",
            },
            None,
            (L, "declined-no-reason"),
        ),
        ("u", "продолжай.", None),
    ],
]

# Git: a revert (a signal) and a revert of that revert (a look-alike), in both languages.
GIT_LABELS = {
    'Revert "cache: add a locale cache"': (S, "revert", "R-cache"),
    'Revert "Revert "cache: add a locale cache""': (L, "revert-of-revert"),
    "Откатить «экспорт: потоковая запись»": (S, "revert", "R-stream"),
    "Вернуть потоковую запись обратно": (L, "revert-of-revert"),
}


def _at(session: int, step: int) -> str:
    start = datetime(2026, 4, 1, tzinfo=UTC) + timedelta(hours=session)
    return (start + timedelta(seconds=20 * step)).isoformat().replace("+00:00", "Z")


def _assistant_text(s: ClaudeSession, ts: str, text: str) -> None:
    s._line(
        "assistant",
        ts,
        message={
            "id": f"msg_{len(s.lines):04d}{s.session_id[:8]}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-20250514",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
    )


# The text each label sits on (filled by build_sessions), to tell English from Russian.
TEXTS: dict[tuple[str, Any], str] = {}


def language(text: str) -> str:
    return "ru" if any("а" <= ch <= "я" or ch == "ё" for ch in text.lower()) else "en"


def _session(folder: Path, number: int, steps: list[Step]) -> dict[int, tuple[str, ...]]:
    sid = f"{number:02x}{number:02x}0000-0000-4000-8000-0000000000{number:02x}"
    s = ClaudeSession(folder, sid, cwd="/home/dev/shop", version="2.0.30")
    labels: dict[int, tuple[str, ...]] = {}
    tick = iter(range(10_000))

    def ts() -> str:
        return _at(number, next(tick))

    for step in steps:
        kind, label = step[0], step[-1]
        if kind == "u":
            s.prompt(ts(), step[1])
        elif kind == "a":
            _assistant_text(s, ts(), step[1])
            continue
        elif kind in ("bash", "ok"):
            call = s.bash(ts(), step[1])
            s.result(call, ts(), step[2], is_error=kind == "bash")
            if kind == "ok":
                continue
        elif kind == "edit":
            call = s.tool(
                ts(), "Edit", {"file_path": step[1], "old_string": "x", "new_string": "y"}
            )
            s.result(call, ts(), step[2], is_error=True)
        elif kind in ("reject", "plan"):
            if kind == "reject":
                call = s.tool(ts(), step[1], step[2])
                reason = step[3]
            else:
                call = s.tool(ts(), "ExitPlanMode", {"plan": step[1]})
                reason = step[2]
            text = REJECTED + (REASON + reason if reason else STOP)
            s.result(call, ts(), text, is_error=True, tur="Error: " + text)
        elif kind == "tint":
            call = s.bash(ts(), step[1])
            s.result(
                call,
                ts(),
                TOOL_INTERRUPT,
                is_error=True,
                tur={"stdout": "", "stderr": "", "interrupted": True, "isImage": False},
            )
            line = len(s.lines)
            TEXTS[(f"{sid}.jsonl", line)] = step[1]
            s._line(
                "user",
                ts(),
                message={"role": "user", "content": [{"type": "text", "text": TOOL_INTERRUPT}]},
            )
            if label is not None:
                labels[line] = label
            continue
        elif kind == "turnint":
            s._line(
                "user",
                ts(),
                message={
                    "role": "user",
                    "content": [{"type": "text", "text": "[Request interrupted by user]"}],
                },
            )
        elif kind == "task":
            call = s.tool(
                ts(), "Task", {"description": "Review", "prompt": step[2], "subagent_type": step[1]}
            )
            s.result(
                call,
                ts(),
                [{"type": "text", "text": step[3]}],  # type: ignore[arg-type]
                tur={"status": "completed", "totalDurationMs": 9000},
            )
        else:
            raise ValueError(kind)
        if label is not None:
            labels[len(s.lines)] = label
            TEXTS[(f"{sid}.jsonl", len(s.lines))] = " ".join(
                str(p) for p in step[1:-1] if isinstance(p, str)
            )
    s.write()
    return labels


def build_sessions(projects: Path) -> dict[tuple[str, Any], tuple[str, ...]]:
    reset_ids()
    folder = projects / "-home-dev-shop"
    out: dict[tuple[str, Any], tuple[str, ...]] = {}
    for number, steps in enumerate(SESSIONS, start=1):
        for line, label in _session(folder, number, steps).items():
            sid = f"{number:02x}{number:02x}0000-0000-4000-8000-0000000000{number:02x}"
            out[(f"{sid}.jsonl", line)] = label
    return out


def _commit(repo: Path, path: str, text: str, message: str, when: str) -> str:
    return commit(repo, when, {path: text}, message)


def build_repo(root: Path) -> Path:
    repo = root / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", when="2026-04-01T08:00:00+00:00")
    _commit(repo, "app/base.py", "x\n", "init", "2026-04-01T08:00:00+00:00")
    cache = _commit(
        repo, "app/cache.py", "v1\n", "cache: add a locale cache", "2026-04-02T09:00:00+00:00"
    )
    rev = _commit(
        repo,
        "app/cache.py",
        "",
        f'Revert "cache: add a locale cache"\n\nThis reverts commit {cache}.',
        "2026-04-05T09:00:00+00:00",
    )
    _commit(
        repo,
        "app/cache.py",
        "v1\n",
        f'Revert "Revert "cache: add a locale cache""\n\nThis reverts commit {rev}.',
        "2026-04-09T09:00:00+00:00",
    )
    TEXTS.update({("git", subject): subject for subject in GIT_LABELS})
    stream = _commit(
        repo, "app/export.py", "v1\n", "экспорт: потоковая запись", "2026-04-03T09:00:00+00:00"
    )
    rev = _commit(
        repo,
        "app/export.py",
        "",
        f"Откатить «экспорт: потоковая запись»\n\nThis reverts commit {stream}.",
        "2026-04-06T09:00:00+00:00",
    )
    _commit(
        repo,
        "app/export.py",
        "v1\n",
        f"Вернуть потоковую запись обратно\n\nThis reverts commit {rev}.",
        "2026-04-10T09:00:00+00:00",
    )
    return repo


# ---------------------------------------------------------------- metrics


@dataclass
class Scores:
    labelled_signals: int
    look_alikes: int
    found: int
    true_positives: int
    precision: float
    recall: float
    look_alikes_flagged: list[tuple[Any, ...]]
    false_positives: list[tuple[Any, ...]]
    missed: list[tuple[Any, ...]]
    pairwise_f1: float
    ari: float
    clusters: int
    mechanisms: int

    def summary(self) -> str:
        return (
            f"{self.labelled_signals} signals, {self.look_alikes} look-alikes; found {self.found}: "
            f"precision {self.precision:.2f}, recall {self.recall:.2f}, look-alikes flagged "
            f"{len(self.look_alikes_flagged)}/{self.look_alikes}; clusters {self.clusters} for "
            f"{self.mechanisms} mechanisms, pairwise F1 {self.pairwise_f1:.2f}, ARI {self.ari:.2f}"
        )


def signal_key(signal: Any) -> tuple[str, Any]:
    if signal.commit:
        return ("git", signal.detail.get("subject"))
    return (Path(signal.file or "").name, signal.line)


def score(labels: dict[tuple[str, Any], tuple[str, ...]], signals: list[Any]) -> Scores:
    """Precision over every signal reported (a signal on an unlabelled line is a false
    positive), recall over the labelled signals (kind must match), look-alikes flagged (any
    signal on a look-alike's line), and cluster agreement over the true positives: pairwise
    F1 (pairs sharing a cluster vs pairs sharing a mechanism) and the adjusted Rand index."""
    positives = {k: v for k, v in labels.items() if v[0] == S}
    lookalikes = {k for k, v in labels.items() if v[0] == L}
    found: dict[tuple[str, Any], Any] = {}
    for signal in signals:
        found.setdefault(signal_key(signal), signal)
    hits = {k: s for k, s in found.items() if k in positives and positives[k][1] == s.kind}
    precision = len(hits) / len(found) if found else 0.0
    recall = len(hits) / len(positives) if positives else 0.0
    truth = [positives[k][2] for k in hits]
    predicted = [hits[k].cluster_id for k in hits]
    return Scores(
        labelled_signals=len(positives),
        look_alikes=len(lookalikes),
        found=len(found),
        true_positives=len(hits),
        precision=precision,
        recall=recall,
        look_alikes_flagged=sorted((*k, labels[k][1]) for k in found if k in lookalikes),
        false_positives=sorted((*k, found[k].kind) for k in found if k not in hits),
        missed=sorted((*k, *positives[k][1:]) for k in positives if k not in hits),
        pairwise_f1=pairwise_f1(truth, predicted),
        ari=adjusted_rand(truth, predicted),
        clusters=len(set(predicted)),
        mechanisms=len(set(truth)),
    )


def pairwise_f1(truth: list[Any], predicted: list[Any]) -> float:
    same_true = {(i, j) for i, j in combinations(range(len(truth)), 2) if truth[i] == truth[j]}
    same_pred = {
        (i, j) for i, j in combinations(range(len(truth)), 2) if predicted[i] == predicted[j]
    }
    if not same_true and not same_pred:
        return 1.0
    both = len(same_true & same_pred)
    if both == 0:
        return 0.0
    p, r = both / len(same_pred), both / len(same_true)
    return 2 * p * r / (p + r)


def adjusted_rand(truth: list[Any], predicted: list[Any]) -> float:
    n = len(truth)
    if n < 2:
        return 1.0
    table: dict[tuple[Any, Any], int] = defaultdict(int)
    rows: dict[Any, int] = defaultdict(int)
    cols: dict[Any, int] = defaultdict(int)
    for t, p in zip(truth, predicted, strict=True):
        table[(t, p)] += 1
        rows[t] += 1
        cols[p] += 1
    index = sum(comb(v, 2) for v in table.values())
    a = sum(comb(v, 2) for v in rows.values())
    b = sum(comb(v, 2) for v in cols.values())
    expected = a * b / comb(n, 2)
    top = (a + b) / 2
    if top == expected:
        return 1.0
    return (index - expected) / (top - expected)
