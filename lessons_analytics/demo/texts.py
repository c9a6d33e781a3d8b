"""What people type and what agents say: task prompts, corrections, look-alikes, reviews."""

from __future__ import annotations

TASKS: dict[str, tuple[tuple[str, str], ...]] = {  # project -> (prompt, commit message)
    "atlas": (
        (
            "Add a --bbox option to `atlas render` so I can render a single district.",
            "cli: add --bbox to render",
        ),
        (
            "The z14 water polygons have seams at tile edges. Can you look?",
            "clip: buffer water polygons at tile edges",
        ),
        (
            "Make the cache writer safe to run with --workers 4.",
            "cache: lock per tile while writing",
        ),
        ("Parks should be a bit darker, Anna sent #b5d98c.", "style: darker parks (#b5d98c)"),
        (
            "Add a migration that stores the render duration per tile.",
            "migrations: tile_meta.render_ms",
        ),
        ("`atlas bench` prints nonsense for zoom 15, fix it.", "bench: correct tile count for z15"),
        (
            "Port projection.py to the new pyproj Transformer API.",
            "projection: use Transformer.from_crs",
        ),
        (
            "Write a test for the antimeridian case in clip().",
            "tests: clip across the antimeridian",
        ),
        (
            "Regenerate the goldens after the road colour change and open a PR.",
            "goldens: new road colour",
        ),
        (
            "Why is `uv run check` so slow today? Profile the render tests.",
            "tests: share the OSM fixture per module",
        ),
    ),
    "harbor": (
        ("Bump vite to 5.4 and make sure nothing breaks.", "web: vite 5.4"),
        ("Add BOOKING_TTL to the settings, default 15 minutes.", "settings: BOOKING_TTL"),
        (
            "The contract tests are flaky on CI, investigate.",
            "contract: wait for api health before tests",
        ),
        (
            "Add a CHANGELOG line for the venue time zone change and tag a release.",
            "release: 2026.11.1",
        ),
        (
            "Clean up the admin_v2 flag, it has been on for everyone since September.",
            "flags: remove admin_v2",
        ),
    ),
    "harbor/web": (
        (
            "The booking summary should show the venue's local time.",
            "web: venue local time on summary",
        ),
        (
            "Fix the mobile layout of the slot picker under 720 px.",
            "web: slot picker wraps on mobile",
        ),
        ("Add German strings for the cancellation dialog.", "i18n: de cancellation dialog"),
        (
            "Regenerate the API client, the bookings response gained `venue_tz`.",
            "web: regenerate api client",
        ),
    ),
    "harbor/services/api": (
        ("Добавь поле venue_tz в ответ /bookings.", "api: venue_tz in bookings response"),
        ("Сделай миграцию: bookings.cancelled_at, nullable.", "migrations: bookings.cancelled_at"),
        (
            "Повторная оплата после таймаута списывает дважды, разберись.",
            "payments: reuse idempotency key on retry",
        ),
        (
            "Курсорная пагинация на /bookings теряет строки, почини.",
            "pagination: order by (created_at, id)",
        ),
        ("Add a refund endpoint that calls payments.refund().", "api: POST /bookings/{id}/refund"),
        (
            "Перенеси расчёт окончания слота в app/slots.py и покрой тестом.",
            "slots: move end computation, add test",
        ),
    ),
    "sandbox": (
        (
            "Try polars lazy frames on the tile index CSV and tell me if it is faster.",
            "notes: polars lazy test",
        ),
        ("Sketch a maplibre style with our colours.", "notes: maplibre sketch"),
    ),
}

CORRECTIONS = {
    "en": (
        "no, not like that. Keep the old function signature and add a wrapper.",
        "I told you to run the full check, not just the unit tests.",
        "that's wrong: the bbox is (min_lon, min_lat, max_lon, max_lat).",
        "again? You committed without running the check. Please run it now.",
        "No, revert that last change, it is not what I asked for.",
    ),
    "ru": (
        "нет, не так. Миграцию сначала прогони на копии базы.",
        "я же говорил: не смешивай рефакторинг с исправлением.",
        "опять закоммитил без проверки. Запусти make test.",
        "снова сломал импорт в app/routes.py, посмотри внимательнее.",
        "нет, не так, время храним в UTC, а не в поясе площадки.",
    ),
}

LOOKALIKES = {
    "en": (
        "no problem, take your time.",
        "again, thanks! That's exactly it.",
        "Not bad at all. Now the docs, please.",
        "no worries, go ahead.",
    ),
    "ru": ("нет проблем, продолжай.", "спасибо, опять выручил!", "не торопись, всё хорошо."),
}

FOLLOW_UPS = {
    "en": (
        "Looks good. Commit it.",
        "ok, ship it",
        "Great, thanks. Commit and we're done.",
        "Fine, commit.",
    ),
    "ru": ("Хорошо, коммить.", "ок, закоммить", "Отлично, спасибо. Коммить."),
}

AFTER_INTERRUPT = {
    "en": (
        "use the fast check while iterating, the full one at the end",
        "wait, don't run the whole suite yet",
    ),
    "ru": ("подожди, сначала покажи дифф", "не запускай всё, только тесты api"),
}

AFTER_REJECT = {
    "en": ("don't touch deploy/, ask first.", "not that file. The change belongs in atlas/cli.py."),
    "ru": ("не трогай этот файл, спроси сначала.", "не надо, это сгенерированный код."),
}

REPEATED_FAILURES = (  # (command, error output) that fail the same way twice before the fix
    (
        "uv run pytest tests/test_clip.py -q",
        "E   ModuleNotFoundError: No module named 'shapely'\n"
        "ERROR tests/test_clip.py\n1 error in 0.41s",
        "uv sync",
    ),
    (
        "make -C services/api test",
        "E   sqlalchemy.exc.OperationalError: could not connect to server: "
        "Connection refused\n1 error in 2.10s\nmake: *** [Makefile:4: test] Error 1",
        "make api-up",
    ),
    (
        "pnpm -C web test",
        "Error: Cannot find module '@harbor/api-client'\n"
        " ELIFECYCLE  Test failed. See above for more details.",
        "pnpm -C web gen:api",
    ),
)

REVIEW_REJECT = (
    "REJECT: needs rework. The migration drops `legacy_tz` in the same file that backfills it; "
    "split it into two migrations and run `make migrate-check`.",
    "REJECT: needs rework — the new test only covers the happy path; add the antimeridian case "
    "and quote the `uv run check` line in the report.",
    "ВЕРНУТЬ НА ДОРАБОТКУ (REJECT): нет теста на повторную оплату, ключ идемпотентности не проверяется.",  # noqa: E501
)

REVIEW_APPROVE = (
    "APPROVE. The split migrations are fine and migrate-check passes.",
    "APPROVE: tests cover both cases now; check output quoted.",
)

SCOUT_PROMPT = (
    "Read LESSONS/INDEX.md (the whole file) and the lesson bodies that apply to this "
    "task: {task}\nReply with the lesson ids that apply and one line each on what to do."
)

DONE_CLAIMS = {
    "en": "Done. All checks pass and the change is ready for review.",
    "ru": "Готово, все проверки проходят, можно смотреть.",
}
