"""The demo's lessons, written the way people write them. Pure data, no logic.

Events are (week, status): the lesson appears in INDEX.md at its first event's week and changes
status at the later ones. `retire` says where the remedy went once a lesson is retired.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CHECK_RITUAL = "^(make|uv run) (test|check)"
COMMIT_RITUAL = "^git commit"


@dataclass(frozen=True)
class LessonSpec:
    id: str
    slug: str
    title: str
    addressee: str
    triggers: tuple[str, ...]
    scope: str
    target: str
    cls: str
    rule: str
    why: str
    created: str
    events: tuple[tuple[int, str], ...]
    wheres: tuple[str, ...]
    whats: tuple[str, ...]
    ritual: str | None = None
    helped: str = "null"
    old_hits: int = 0  # journal lines from before the demo (their transcripts are long gone)
    lang: str = "en"
    retire: tuple[str, str] | None = None
    extra: str = ""  # more prose under the rule (fat bodies, examples)


@dataclass(frozen=True)
class BaseSpec:
    key: str
    repo: str
    prefix: str  # "" or "services/api/": where LESSONS/ sits inside the repo
    title: str
    intro: tuple[str, ...]
    notes: tuple[tuple[int, str], ...]  # (week, line) added above `## Active`
    lessons: tuple[LessonSpec, ...] = field(default_factory=tuple)
    relayout_week: int | None = None
    marker_week: int | None = None
    # The weeks whose Tuesday review sweeps the notes gathered since the last sweep into
    # INDEX.md, in one commit (`timeline.morning` says why notes wait for a review).
    note_sweeps: tuple[int, ...] = ()


ATLAS = (
    LessonSpec(
        "L-0001",
        "report-only-after-checks",
        "Report done only after `uv run check` on the final diff",
        "all-agents",
        ("done", "report", "checks", "tests pass"),
        "any task that ends with a claim that the work is finished",
        "reported 'all checks pass' without running uv run check on the final diff",
        "verify-before-report",
        "before writing 'done', 'all green' or 'tests pass', run `uv run check` on the tree you "
        "are about to hand over and paste the last line of its output into the report.",
        "three times in one week a report said green while CI was red: the agent had run the "
        "checks before its last edit, or only the unit subset.",
        "2026-06-11",
        ((1, "active"),),
        ("atlas/render.py", "atlas/cli.py", "tests/test_render.py"),
        (
            "said checks pass after a last-minute edit",
            "ran only pytest -k unit, reported all green",
            "pasted an old check output into the report",
        ),
        ritual=CHECK_RITUAL,
        helped="true",
        old_hits=112,
        extra="How to check yourself: the last line of `uv run check` reads `All checks passed "
        "(lint, types, 212 tests)`. If you cannot quote it, you have not run it.\n",
    ),
    LessonSpec(
        "L-0002",
        "commit-through-hooks",
        "Commit through the hooks, never with --no-verify",
        "all-agents",
        ("commit", "pre-commit", "no-verify"),
        "every commit in this repository",
        "commit made with --no-verify, skipping the migration lint and the golden diff",
        "process-shortcut",
        "commit with plain `git commit`; the pre-commit hook runs the migration lint and the "
        "golden-tile diff and takes two to five minutes. Wait for it.",
        "a --no-verify commit shipped a migration that the lint would have refused; the "
        "nightly build was broken for a day.",
        "2026-07-02",
        ((1, "active"),),
        ("migrations/", ".pre-commit-config.yaml"),
        ("committed with --no-verify to save time", "hook skipped via SKIP=golden"),
        ritual=COMMIT_RITUAL,
        helped="true",
    ),
    LessonSpec(
        "L-0003",
        "re-diff-golden-tiles",
        "Diff golden tiles against the previous render before committing",
        "executor",
        ("golden", "fixtures", "render", "snapshot"),
        "changes under atlas/render/ or tests/golden/",
        "golden tiles regenerated and committed without diffing against the previous render",
        "verify-before-report",
        "after `uv run atlas golden --update`, run `uv run atlas golden --diff HEAD` and look "
        "at every changed tile before you commit the new goldens.",
        "regenerating goldens makes the failing test pass by definition; twice a colour "
        "regression went in as the new truth.",
        "2026-08-14",
        ((1, "active"),),
        ("tests/golden/z12", "tests/golden/z14", "atlas/render/style.py"),
        ("goldens regenerated over a colour regression", "snapshot updated to match a bug"),
        helped="false",
    ),
    LessonSpec(
        "L-0004",
        "degrees-not-metres",
        "Internal coordinates are EPSG:4326 degrees",
        "all-agents",
        ("projection", "crs", "epsg", "coordinates"),
        "code that takes or returns coordinates inside atlas/",
        "EPSG:3857 metres passed where EPSG:4326 degrees are expected",
        "wrong-units",
        "everything inside atlas/ speaks EPSG:4326 degrees; convert at the edge with "
        "`projection.to_wgs84()` and assert the range (-180..180, -90..90) in new functions.",
        "web-mercator metres look like plausible numbers until a tile lands in the Gulf of Guinea.",
        "2026-08-20",
        ((1, "active"),),
        ("atlas/projection.py", "atlas/clip.py:88"),
        ("bbox in metres fed to clip()", "tile centre computed in 3857"),
    ),
    LessonSpec(
        "L-0005",
        "backfill-before-drop",
        "Backfill before dropping a column",
        "executor",
        ("migration", "drop column", "schema"),
        "schema migrations in migrations/",
        "migration dropped a column before the backfill copied it",
        "data-loss",
        "split it: one migration adds and backfills, a later one drops; run both against "
        "`make db-copy` first.",
        "a combined migration ran the DROP first on a large table and the backfill copied nulls.",
        "2026-09-28",
        ((1, "candidate"), (3, "active")),
        ("migrations/0042_tile_meta.sql",),
        ("drop before backfill in one migration",),
    ),
    LessonSpec(
        "L-0006",
        "bump-cache-key",
        "Bump the tile cache key with the style version",
        "executor",
        ("cache", "style", "stale tiles"),
        "style or schema changes that alter rendered tiles",
        "tile cache served stale tiles after a style change because the cache key kept its version",
        "stale-state",
        "any change to atlas/render/style.py bumps `STYLE_VERSION`; the cache key includes it.",
        "stale tiles are invisible in tests and only show in production.",
        "2026-09-30",
        ((1, "candidate"), (4, "active")),
        ("atlas/cache.py", "atlas/render/style.py"),
        ("style changed, STYLE_VERSION not bumped",),
        helped="true",
    ),
    LessonSpec(
        "L-0007",
        "read-the-whole-index",
        "Read INDEX.md whole, not its head",
        "all-agents",
        ("lessons", "index", "start"),
        "session start",
        "agent read only the head of LESSONS/INDEX.md and never saw the Active table",
        "verify-before-report",
        "read LESSONS/INDEX.md whole (`cat`, or Read without a limit); the Active table has "
        "moved below line 40.",
        "the notes above the table keep growing; `head -40` now shows only notes.",
        "2026-11-02",
        ((5, "candidate"),),
        ("atlas/render.py", "atlas/cli.py"),
        ("worked from head -40 of the index and missed the Active table",),
    ),
    LessonSpec(
        "L-0008",
        "flaky-is-a-bug",
        "A flaky test is a bug, not a retry",
        "executor",
        ("flaky", "retry", "intermittent"),
        "test failures that pass on a re-run",
        "test failure dismissed as flaky and re-run until green",
        "verify-before-report",
        "when a test fails and then passes, open an issue with both outputs before moving on.",
        "the 'flaky' tile-seam test was a real race in the cache writer.",
        "2026-11-03",
        ((5, "candidate"),),
        ("tests/test_cache.py::test_seams", "tests/test_cli.py"),
        ("re-ran until green and reported success", "marked flaky without an issue"),
    ),
    LessonSpec(
        "L-0009",
        "pin-gdal",
        "Pin GDAL to the version CI uses",
        "all-agents",
        ("gdal", "environment", "wheels"),
        "dependency changes",
        "local GDAL differed from CI and renders drifted",
        "environment",
        "use the GDAL pinned in uv.lock; never `pip install gdal` into the venv.",
        "two days lost to renders that differed only on one laptop.",
        "2026-07-15",
        ((1, "active"), (6, "retired")),
        ("uv.lock",),
        ("unpinned gdal wheel",),
        retire=(
            "remedy moved into structure",
            "uv.lock pins gdal==3.8.4 and `uv run check` verifies it",
        ),
    ),
    LessonSpec(
        "L-0010",
        "no-force-push-main",
        "Never force-push a shared branch",
        "all-agents",
        ("push", "force", "rebase"),
        "git pushes",
        "force-push rewrote main under a colleague's open branch",
        "data-loss",
        "no `git push --force` to main or release/*; use --force-with-lease on your own branches.",
        "needs a server-side protection rule; until then it is only words.",
        "2026-09-01",
        ((1, "deferred"),),
        ("main",),
        ("force-push to main",),
    ),
    LessonSpec(
        "L-0011",
        "docstring-examples",
        "Keep docstring examples runnable",
        "executor",
        ("docs", "doctest"),
        "public functions with examples",
        "docstring example drifted from the signature",
        "docs-drift",
        "run `uv run pytest --doctest-modules atlas/` after changing a public signature.",
        "one report from a user, no second case yet.",
        "2026-10-01",
        ((1, "candidate"),),
        ("atlas/tiles.py",),
        ("stale doctest",),
    ),
    LessonSpec(
        "L-0012",
        "ne-smeshivat-refaktoring",
        "Не смешивать рефакторинг и исправление в одном коммите",
        "executor",
        ("рефакторинг", "коммит", "ревью"),
        "коммиты, которые и исправляют, и переделывают код",
        "исправление утонуло в рефакторинге, ревьюер пропустил регрессию",
        "process-shortcut",
        "сначала отдельный коммит с рефакторингом без изменения поведения, потом маленький "
        "коммит с исправлением.",
        "в смешанном диффе на 600 строк ревьюер не увидел одну изменённую границу цикла.",
        "2026-10-12",
        ((2, "candidate"), (6, "active")),
        ("atlas/clip.py", "atlas/tiles.py"),
        ("фикс спрятан в большом рефакторинге", "переименование и исправление в одном коммите"),
        # two commits instead of one: the commit hook's time is its price (effect: costs
        # more than it saves, its rate did not fall)
        ritual=COMMIT_RITUAL,
        lang="ru",
    ),
    LessonSpec(
        "L-0013",
        "restart-tile-server",
        "Restart the tile server after a config change",
        "all-agents",
        ("deploy", "config"),
        "deploys",
        "config change deployed without restarting atlas-tiles",
        "stale-state",
        "after editing deploy/atlas.toml run `systemctl restart atlas-tiles`.",
        "the old process kept serving with the old config for hours.",
        "2026-07-20",
        ((1, "active"), (3, "retired")),
        ("deploy/atlas.toml",),
        ("no restart",),
        retire=(
            "remedy moved into structure",
            "deploy/atlas-tiles.service restarts on config change (PathChanged=)",
        ),
    ),
    LessonSpec(
        "L-0014",
        "bbox-axis-order",
        "A bbox is (min_lon, min_lat, max_lon, max_lat)",
        "executor",
        ("bbox", "axis order", "coordinates"),
        "functions taking a bbox",
        "bbox built in lat/lon order",
        "wrong-units",
        "build a bbox with `BBox.from_lonlat()`; never a bare tuple.",
        "GeoJSON and our API are lon-first; the old WMS client was lat-first.",
        "2026-11-10",
        ((6, "candidate"),),
        ("atlas/bbox.py", "atlas/cli.py"),
        ("lat/lon swapped",),
    ),
)

HARBOR = (
    LessonSpec(
        "L-0101",
        "make-check-before-done",
        "Run `make check` before saying done",
        "all-agents",
        ("done", "make check", "report"),
        "every task in the monorepo",
        "work reported finished while `make check` was red",
        "verify-before-report",
        "run `make check` from the repo root on the final tree and quote its last line.",
        "`make test` in one package is not `make check`: the web build and the contract tests "
        "live in the root target.",
        "2026-06-03",
        ((1, "active"),),
        ("web/src/booking.ts", "services/api/app/routes.py", "Makefile"),
        ("ran make test in one package only", "reported done with a red contract test"),
        ritual=CHECK_RITUAL,
        helped="true",
        old_hits=76,
    ),
    LessonSpec(
        "L-0102",
        "lockfile-in-same-commit",
        "Commit the lockfile with the manifest",
        "executor",
        ("dependencies", "lockfile", "package.json"),
        "dependency changes",
        "package.json changed without pnpm-lock.yaml, CI installed other versions",
        "environment",
        "a change to package.json or pyproject.toml goes in the same commit as its lockfile.",
        "CI resolves fresh versions when the lockfile lags behind.",
        "2026-08-01",
        ((1, "active"),),
        ("web/package.json", "services/api/pyproject.toml"),
        ("lockfile left out of the commit",),
    ),
    LessonSpec(
        "L-0103",
        "env-example-sync",
        "Add new settings to .env.example",
        "executor",
        ("config", "env", "settings"),
        "new environment variables",
        "new setting read from the environment but missing in .env.example",
        "docs-drift",
        "every `os.environ[...]` or `process.env.X` you add gets a line in .env.example.",
        "fresh checkouts crash at start with a KeyError nobody can explain.",
        "2026-09-29",
        ((1, "candidate"), (4, "active")),
        (".env.example", "services/api/app/settings.py"),
        ("BOOKING_TTL added without example",),
    ),
    LessonSpec(
        "L-0104",
        "changelog-line",
        "Every user-visible change gets a CHANGELOG line",
        "executor",
        ("changelog", "release"),
        "user-visible changes",
        "user-visible change shipped without a CHANGELOG entry",
        "process-shortcut",
        "add a line under `## Unreleased` in CHANGELOG.md in the same pull request.",
        "release notes are assembled from it; a missing line is a missing note.",
        "2026-07-10",
        ((1, "active"),),
        ("CHANGELOG.md",),
        ("no changelog line", "line under the wrong heading"),
    ),
    LessonSpec(
        "L-0105",
        "node-version",
        "Use the Node version from .nvmrc",
        "all-agents",
        ("node", "nvm"),
        "web builds",
        "web build run with the system Node and failed on syntax",
        "environment",
        "`nvm use` before any pnpm command.",
        "the system Node is two majors behind.",
        "2026-06-20",
        ((1, "active"), (4, "retired")),
        ("web/",),
        ("system node",),
        retire=(
            "remedy moved into structure",
            "Makefile targets call `corepack` with the pinned Node",
        ),
    ),
    LessonSpec(
        "L-0106",
        "contract-tests-after-schema",
        "Regenerate the API client after a schema change",
        "executor",
        ("openapi", "client", "schema"),
        "changes to services/api request or response models",
        "API schema changed without regenerating web/src/api client; the web build broke on main",
        "stale-state",
        "after touching services/api models run `make client` and commit web/src/api with it.",
        "two breakages in a fortnight.",
        "2026-10-13",
        ((2, "candidate"),),
        ("web/src/api/", "services/api/app/models.py"),
        ("client not regenerated",),
    ),
    LessonSpec(
        "L-0107",
        "screenshot-diff",
        "Check the booking page screenshot diff",
        "executor",
        ("ui", "css", "screenshot"),
        "CSS changes",
        "CSS change broke the booking page layout on mobile",
        "verify-before-report",
        "needs a screenshot-diff job; nothing to run yet.",
        "no tool exists for it yet.",
        "2026-09-15",
        ((1, "deferred"),),
        ("web/src/styles/",),
        ("mobile layout broke",),
    ),
    LessonSpec(
        "L-0108",
        "feature-flag-cleanup",
        "Remove a feature flag in the release after it ships",
        "executor",
        ("feature flag", "cleanup"),
        "feature flags",
        "dead feature flag left in code for months",
        "docs-drift",
        "open a cleanup ticket when the flag is turned on for everyone.",
        "a single observation so far.",
        "2026-10-02",
        ((1, "candidate"),),
        ("web/src/flags.ts",),
        ("dead flag",),
    ),
)

API = (
    LessonSpec(
        "L-0201",
        "migrate-a-copy-first",
        "Run migrations on a copy of the production schema first",
        "executor",
        ("migration", "alembic", "schema"),
        "services/api migrations",
        "alembic migration failed on production data it never saw",
        "data-loss",
        "`make db-copy && make migrate-check` before merging any migration.",
        "the empty test database accepts migrations that real rows refuse.",
        "2026-07-01",
        ((1, "active"),),
        ("services/api/migrations/versions/",),
        ("NOT NULL added on a column with nulls",),
        ritual="^make (migrate-check|db-copy)",
    ),
    LessonSpec(
        "L-0202",
        "idempotency-key",
        "Payment calls carry an idempotency key",
        "all-agents",
        ("payments", "retry", "stripe"),
        "code that calls the payment provider",
        "retry charged a customer twice",
        "wrong-number",
        "every call to `payments.charge()` passes `idempotency_key=booking.id`.",
        "the HTTP client retries on timeouts.",
        "2026-08-05",
        ((1, "active"),),
        ("services/api/app/payments.py",),
        ("charge retried without key",),
    ),
    LessonSpec(
        "L-0203",
        "utc-in-storage",
        "Store UTC, convert at the edge",
        "all-agents",
        ("timezone", "datetime", "utc"),
        "datetimes in services/api",
        "local time stored as UTC, bookings shifted by three hours",
        "wrong-units",
        "datetimes are timezone-aware UTC in the database and in the API; convert for display only.",  # noqa: E501
        "naive datetimes pick up the server's zone silently.",
        "2026-05-20",
        ((1, "active"),),
        ("services/api/app/bookings.py", "services/api/app/slots.py"),
        ("naive datetime saved", "slot end compared in local time"),
        helped="true",
        old_hits=78,
    ),
    LessonSpec(
        "L-0204",
        "n-plus-one",
        "Check the query count on list endpoints",
        "executor",
        ("performance", "orm", "queries"),
        "list endpoints",
        "list endpoint issued one query per row",
        "performance",
        "needs a query-count assertion helper in the test client; not built yet.",
        "there is no cheap way to see it today.",
        "2026-10-20",
        ((3, "deferred"),),
        ("services/api/app/routes.py",),
        ("N+1 on /bookings",),
    ),
    LessonSpec(
        "L-0205",
        "pagination-cursor",
        "Cursor pagination must be stable",
        "executor",
        ("pagination", "cursor"),
        "list endpoints",
        "page boundary skipped rows with equal timestamps",
        "wrong-number",
        "order by (created_at, id), never by created_at alone.",
        "one case so far.",
        "2026-11-02",
        ((5, "candidate"),),
        ("services/api/app/pagination.py",),
        ("rows skipped",),
    ),
    LessonSpec(
        "L-0206",
        "seed-data-script",
        "Use scripts/seed.py, not fixtures, for local data",
        "all-agents",
        ("seed", "local data"),
        "local setup",
        "hand-written fixtures drifted from the schema",
        "docs-drift",
        "`uv run python scripts/seed.py`.",
        "fixtures rot.",
        "2026-06-25",
        ((1, "active"), (5, "retired")),
        ("services/api/fixtures/",),
        ("stale fixture",),
        retire=("remedy moved into structure", "fixtures/ deleted; make dev seeds automatically"),
    ),
)

_ATLAS_NOTES = {
    1: (
        "Build tiles with `make tiles`; never edit build/ by hand.",
        "Goldens live in tests/golden/ (z12 and z14 only).",
    ),
    2: (
        "`uv run check` = ruff + mypy + pytest; about three minutes on a laptop.",
        "The pre-commit hook runs the migration lint and the golden diff.",
        "Style constants are in atlas/render/style.py, not in the templates.",
        "OSM extracts are cached in ~/.cache/atlas; delete it if a render looks stale.",
        "Ask before touching deploy/: it is shared with the ops team.",
        "The CLI entry point is atlas/cli.py; subcommands register in atlas/commands/.",
    ),
    3: (
        "Migrations: one change per file, numbered, never edited after merge.",
        "`make db-copy` clones the staging database into a local container (needs docker).",
        "The cache writer is not thread-safe; run renders with --workers 1 when debugging.",
        "Tile seams: see docs/seams.md before changing the buffer size.",
        "Benchmark renders with `uv run atlas bench --zoom 12`; compare against docs/bench.md.",
        "Anna owns the style; ping her before colour changes.",
    ),
    4: (
        "CI runs on Python 3.12 only; do not use 3.13 syntax.",
        "`uv run check --fast` skips the render tests; fine while iterating, never for a report.",
        "Large fixtures are in git-lfs; run `git lfs pull` after a fresh clone.",
        "The z14 goldens take 40 s to regenerate.",
        "atlas/legacy/ is frozen; do not refactor it, it goes away in Q1.",
        "Log format is JSON lines; `jq` is your friend.",
        "Release tags are vYYYY.MM.N; CHANGELOG.md is generated from commit messages.",
    ),
    5: (
        "`atlas doctor` prints the environment CI expects.",
        "Projection helpers: atlas/projection.py (to_wgs84, to_mercator).",
        "The API docs are built by `make docs`; they fail on broken cross-references.",
        "Review checklist: docs/review.md.",
        "If a test needs network, mark it `@pytest.mark.net`; CI runs those nightly only.",
        "The cache key format is documented at the top of atlas/cache.py.",
        "Do not add new dependencies without asking; the wheel must stay under 5 MB.",
    ),
    6: (
        "Staging is rebuilt every night at 02:00 UTC; do not rely on it in the morning.",
        "`uv run atlas golden --diff HEAD` shows changed tiles side by side.",
        "Borders come from Natural Earth 1:10m; do not mix scales.",
        "Keep PRs under 400 lines of diff where possible.",
        "The nightly job posts failures to #atlas-ci.",
        "Profiling: `uv run python -m cProfile -o out.prof -m atlas render ...`.",
        "Commit messages: `area: what changed` in the imperative.",
        "Ping the judge (LESSONS/ is judge-only) if a lesson seems wrong; do not edit it.",
    ),
}

_HARBOR_NOTES = {
    1: (
        "Monorepo: web/ (TypeScript, pnpm), services/api/ (Python, uv), infra/.",
        "`make check` at the root runs everything CI runs.",
        "services/api has its own LESSONS/; read both when you work there.",
    ),
    2: (
        "pnpm only; npm and yarn lockfiles are rejected by CI.",
        "Contract tests live in tests/contract and need the api running (`make api-up`).",
        "The booking flow is documented in docs/booking-flow.md.",
        "Use `make fmt` before committing; the hook only checks.",
        "Secrets come from 1Password via `op run`; never commit .env.",
        "Staging deploys on merge to main; production on tags.",
    ),
    3: (
        "Feature flags live in web/src/flags.ts and services/api/app/flags.py.",
        "Storybook: `pnpm -C web storybook`.",
        "The API client in web/src/api is generated; never edit it by hand.",
        "Ask in #harbor-dev before changing infra/.",
        "Playwright tests: `make e2e`; slow, run them before UI reports.",
        "Dates on the wire are ISO-8601 UTC with a Z.",
    ),
    4: (
        "i18n strings are in web/src/i18n/*.json; keep keys sorted.",
        "`make check` takes 4-6 minutes; it is still the only definition of green.",
        "The mobile breakpoint is 720 px.",
        "Error messages shown to users go through web/src/errors.ts.",
        "Database: Postgres 16 everywhere, including CI.",
        "The payments sandbox key is in 1Password under 'harbor-stripe-test'.",
    ),
    5: (
        "Release checklist: docs/release.md.",
        "Renovate PRs are merged on Mondays only.",
        "The booking page must stay under 200 KB of JS.",
        "Run `make client` after any change to services/api models.",
        "Logs in staging: Grafana, dashboard 'harbor-api'.",
        "Prefer small PRs; reviewers time out on 1000-line diffs.",
    ),
    6: (
        "The on-call rota is in docs/oncall.md.",
        "infra/ uses Terraform 1.9; `make plan` never applies.",
        "Do not bump Node; web/ follows the LTS pinned in .nvmrc.",
        "Slots are 15 minutes; never hard-code 30.",
        "Timezones: venues have their own zone in venue.tz.",
        "Accessibility: every form field needs a label (axe runs in CI).",
    ),
    7: (
        "Load tests: `make k6`, results in docs/perf/.",
        "Emails are rendered by services/mailer (separate repo).",
        "Cancellations refund through payments.refund(); never issue refunds by hand.",
        "The admin UI is behind the `admin_v2` flag.",
        "Use `make db-copy` before touching migrations (see the api LESSONS).",
        "Screenshots for PRs: `pnpm -C web shots`.",
    ),
    8: (
        "The web build caches in .turbo/; delete it if the build lies.",
        "Coverage is informative only; do not chase it.",
        "The API rate limit is 50 requests per second per venue.",
        "When in doubt about a lesson, ask the judge, do not edit LESSONS/.",
        "Weekly sync: Thursdays 15:00 UTC.",
    ),
}

_API_NOTES = {
    1: (
        "Run everything from services/api: `uv run ...`.",
        "Alembic migrations: services/api/migrations/.",
    ),
    2: (
        "`make test` here runs only the api tests.",
        "The test database is recreated per session.",
        "Payments go through app/payments.py only.",
    ),
    3: (
        "`make db-copy` needs the staging VPN.",
        "Pydantic v2 models in app/models.py.",
        "Background jobs run in app/jobs.py (arq).",
    ),
    4: (
        "Datetimes: app/timeutil.py has utcnow(); do not call datetime.now().",
        "OpenAPI schema: `make schema` writes openapi.json.",
        "Fixtures are being replaced by scripts/seed.py.",
    ),
    5: (
        "Slow tests are marked `@pytest.mark.slow`.",
        "The venue timezone is venue.tz (IANA name).",
        "Pagination helpers: app/pagination.py.",
    ),
    6: (
        "Keep endpoints thin; logic goes in app/services/.",
        "`make migrate-check` runs upgrade and downgrade.",
        "Structured logging via structlog; no print().",
    ),
    7: (
        "Retries: app/http.py retries twice on timeouts.",
        "Idempotency keys are booking ids.",
        "Error codes are listed in docs/errors.md.",
    ),
    8: ("Query counts: see the deferred L-0204.", "The seed script takes about 20 s."),
}


def _notes(table: dict[int, tuple[str, ...]]) -> tuple[tuple[int, str], ...]:
    return tuple((week, line) for week, lines in sorted(table.items()) for line in lines)


BASES = (
    BaseSpec(
        "atlas",
        "atlas",
        "",
        "atlas",
        (
            "Read this file whole at the start of every session; lesson bodies are in L-*.md.",
            "Candidates are hypotheses: do not act on them unless asked.",
        ),
        _notes(_ATLAS_NOTES),
        ATLAS,
        relayout_week=8,
        note_sweeps=(3, 4, 6),
    ),
    BaseSpec(
        "harbor",
        "harbor",
        "",
        "harbor",
        (
            "Lessons for the whole monorepo. Read it at the start of every session.",
            "Bodies: LESSONS/L-*.md. Only the judge edits this folder.",
        ),
        _notes(_HARBOR_NOTES),
        HARBOR,
        marker_week=5,
        note_sweeps=(2, 4, 8),
    ),
    BaseSpec(
        "api",
        "harbor",
        "services/api/",
        "harbor/services/api",
        ("Lessons specific to the booking API. The monorepo lessons in ../../LESSONS apply too.",),
        _notes(_API_NOTES),
        API,
        note_sweeps=(2, 8),
    ),
)
