"""Where things are, for every test whatever its folder's depth (tests/<package folder>/test_*.py)."""
from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
PACKAGE = REPO / "corpustool"
SCRIPTS = REPO / "scripts"
DEMO_WARC = REPO / "data" / "demo" / "crawl.warc.gz"
# the development data beside the checkout (../shared): tests that need it skip without it
SHARED = REPO.parent / "shared"
SHARED_DATA = SHARED / "data"
SNIPPETS = SHARED_DATA / "snippets"
