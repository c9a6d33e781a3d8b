from __future__ import annotations

import os

os.environ["TZ"] = "UTC"
os.environ["NO_COLOR"] = "1"
os.environ["COLUMNS"] = "120"
