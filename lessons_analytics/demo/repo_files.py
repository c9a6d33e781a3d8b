"""Source files of the demo repositories: small, plausible, and stable enough to be read."""

from __future__ import annotations

ATLAS_FILES: dict[str, str] = {
    "README.md": "# atlas\n\nBuilds vector and raster map tiles from OSM extracts.\n\n"
    "    uv run atlas render --zoom 12 --bbox 13.0,52.3,13.8,52.7\n",
    "Makefile": ".PHONY: test check tiles\n\ntest:\n\tuv run pytest -q\n\ncheck:\n\tuv run check\n\n"  # noqa: E501
    "tiles:\n\tuv run atlas render --all\n",
    "pyproject.toml": '[project]\nname = "atlas"\nversion = "2026.10.0"\n'
    'requires-python = ">=3.12"\ndependencies = ["shapely>=2", "pyproj>=3.6", "gdal==3.8.4"]\n\n'
    '[project.scripts]\natlas = "atlas.cli:main"\ncheck = "atlas.devtools:check"\n',
    "atlas/__init__.py": '"""atlas: map tiles from OSM extracts."""\n\n__version__ = "2026.10.0"\n',
    "atlas/projection.py": '"""Coordinate conversions. Everything inside atlas is EPSG:4326 degrees."""\n\n'  # noqa: E501
    "from pyproj import Transformer\n\n"
    '_TO_WGS84 = Transformer.from_crs("EPSG:3857", "EPSG:4326", always_xy=True)\n'
    '_TO_MERC = Transformer.from_crs("EPSG:4326", "EPSG:3857", always_xy=True)\n\n\n'
    "def to_wgs84(x: float, y: float) -> tuple[float, float]:\n"
    "    lon, lat = _TO_WGS84.transform(x, y)\n"
    "    assert -180 <= lon <= 180 and -90 <= lat <= 90, (lon, lat)\n"
    "    return lon, lat\n\n\n"
    "def to_mercator(lon: float, lat: float) -> tuple[float, float]:\n"
    "    return _TO_MERC.transform(lon, lat)\n",
    "atlas/cache.py": '"""Tile cache. Key: f"{STYLE_VERSION}/{z}/{x}/{y}"."""\n\n'
    "from pathlib import Path\n\nfrom atlas.render.style import STYLE_VERSION\n\n\n"
    "def key(z: int, x: int, y: int) -> str:\n"
    '    return f"{STYLE_VERSION}/{z}/{x}/{y}"\n\n\n'
    "def write(root: Path, k: str, data: bytes) -> None:\n"
    '    path = root / f"{k}.pbf"\n'
    "    path.parent.mkdir(parents=True, exist_ok=True)\n"
    "    path.write_bytes(data)\n",
    "atlas/clip.py": '"""Clip geometries to a tile bbox (lon/lat order)."""\n\n'
    "from shapely.geometry import box\n\n\n"
    "def clip(geom, bbox: tuple[float, float, float, float], buffer: float = 0.0):\n"
    "    min_lon, min_lat, max_lon, max_lat = bbox\n"
    "    return geom.intersection(box(min_lon - buffer, min_lat - buffer,"
    " max_lon + buffer, max_lat + buffer))\n",
    "atlas/render/style.py": '"""Render style. Bump STYLE_VERSION with every visible change."""\n\n'
    'STYLE_VERSION = "s41"\nWATER = "#a5c8e1"\nPARK = "#c8e6a0"\nROAD_MAJOR = "#f7c873"\n',
    "tests/test_render.py": "from atlas.render import render_tile\n\n\n"
    "def test_z12_berlin(golden):\n    assert render_tile(12, 2200, 1343) == golden('z12/2200_1343.png')\n",  # noqa: E501
    "CHANGELOG.md": "# Changelog\n\n## Unreleased\n\n- render: water colour follows the new style\n",  # noqa: E501
}

HARBOR_FILES: dict[str, str] = {
    "README.md": "# harbor\n\nBooking platform: web/ (TypeScript) and services/api/ (Python).\n\n"
    "    make check   # what CI runs\n",
    "Makefile": ".PHONY: check test client\n\ncheck:\n\tpnpm -C web build && pnpm -C web test\n"
    "\t$(MAKE) -C services/api test\n\tuv run --project tests/contract pytest -q\n\n"
    "test:\n\tpnpm -C web test\n\nclient:\n\tpnpm -C web gen:api\n",
    "CHANGELOG.md": "# Changelog\n\n## Unreleased\n\n- booking: show venue time zone on the summary page\n",  # noqa: E501
    ".env.example": "DATABASE_URL=postgresql://harbor@localhost/harbor\nSTRIPE_KEY=sk_test_xxx\n",
    "web/package.json": '{\n  "name": "harbor-web",\n  "private": true,\n  "scripts": {\n'
    '    "build": "vite build",\n    "test": "vitest run",\n    "gen:api": "openapi-ts"\n  }\n}\n',
    "web/src/booking.ts": "import { api } from './api';\n\n"
    "export async function book(slotId: string, venueId: string) {\n"
    "  return api.bookings.create({ slotId, venueId });\n}\n",
    "services/api/pyproject.toml": '[project]\nname = "harbor-api"\nversion = "0.19.0"\n'
    'requires-python = ">=3.12"\ndependencies = ["fastapi", "sqlalchemy>=2", "alembic", "stripe"]\n',  # noqa: E501
    "services/api/Makefile": ".PHONY: test migrate-check db-copy\n\ntest:\n\tuv run pytest -q\n\n"
    "migrate-check:\n\tuv run alembic upgrade head && uv run alembic downgrade -1\n\n"
    "db-copy:\n\t./scripts/db-copy.sh staging\n",
    "services/api/app/bookings.py": '"""Bookings. All datetimes are aware UTC."""\n\n'
    "from app.timeutil import utcnow\n\n\n"
    "def create(session, slot, customer):\n"
    "    booking = Booking(slot_id=slot.id, customer_id=customer.id, created_at=utcnow())\n"
    "    session.add(booking)\n    return booking\n",
    "services/api/app/payments.py": '"""The only module that talks to the payment provider."""\n\n'
    "import stripe\n\n\n"
    "def charge(booking, amount_cents: int):\n"
    "    return stripe.PaymentIntent.create(\n"
    '        amount=amount_cents, currency="eur", idempotency_key=str(booking.id)\n    )\n',
}

SANDBOX_FILES: dict[str, str] = {
    "README.md": "# sandbox\n\nScratch space for experiments. Nothing here ships.\n",
    "notes.md": "- try polars lazy frames on the tile index\n- compare mapbox vs maplibre styles\n",
}

# Code commits that the retro pass should find: (repo, week, weekday, hour, message, path, text).
# A revert the next morning and a fix three hours after the commit it repairs.
CODE_COMMITS: tuple[tuple[str, int, int, int, str, str, str], ...] = (
    (
        "atlas",
        3,
        1,
        16,
        "clip: accept (lat, lon) bboxes from the WMS client",
        "atlas/clip.py",
        ATLAS_FILES["atlas/clip.py"].replace(
            "min_lon, min_lat, max_lon, max_lat = bbox", "min_lat, min_lon, max_lat, max_lon = bbox"
        ),
    ),
    (
        "atlas",
        3,
        2,
        8,
        'Revert "clip: accept (lat, lon) bboxes from the WMS client"',
        "atlas/clip.py",
        ATLAS_FILES["atlas/clip.py"],
    ),
    (
        "atlas",
        5,
        2,
        11,
        "cache: write tiles atomically",
        "atlas/cache.py",
        ATLAS_FILES["atlas/cache.py"].replace(
            "    path.write_bytes(data)\n",
            '    tmp = path.with_suffix(".tmp")\n    tmp.write_bytes(data)\n    tmp.rename(path)\n',
        ),
    ),
    (
        "atlas",
        5,
        2,
        14,
        "fix: cache: replace, not rename, so Windows works",
        "atlas/cache.py",
        ATLAS_FILES["atlas/cache.py"].replace(
            "    path.write_bytes(data)\n",
            '    tmp = path.with_suffix(".tmp")\n    tmp.write_bytes(data)\n    tmp.replace(path)\n',  # noqa: E501
        ),
    ),
    (
        "harbor",
        4,
        2,
        15,
        "payments: retry charge on timeout",
        "services/api/app/payments.py",
        HARBOR_FILES["services/api/app/payments.py"].replace(
            ", idempotency_key=str(booking.id)", ""
        ),
    ),
    (
        "harbor",
        4,
        2,
        18,
        "fix: payments: keep the idempotency key on retries",
        "services/api/app/payments.py",
        HARBOR_FILES["services/api/app/payments.py"],
    ),
    (
        "harbor",
        6,
        3,
        10,
        "web: booking summary shows local time",
        "web/src/booking.ts",
        HARBOR_FILES["web/src/booking.ts"] + "\nexport const showLocal = true;\n",
    ),
    (
        "harbor",
        6,
        4,
        9,
        'Revert "web: booking summary shows local time"',
        "web/src/booking.ts",
        HARBOR_FILES["web/src/booking.ts"],
    ),
)
