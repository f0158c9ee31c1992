import json
from pathlib import Path

import pytest

from tests.support.paths import SNIPPETS


@pytest.fixture(scope="session")
def snippets_dir() -> Path:
    """The development pages with snippet gold (../shared/data/snippets); skip when absent."""
    if not (SNIPPETS / "evaldata.json").is_file():
        pytest.skip("../shared/data/snippets is not present")
    return SNIPPETS


@pytest.fixture(scope="session")
def snippets_gold(snippets_dir):
    with open(snippets_dir / "evaldata.json", encoding="utf-8") as fh:
        gold = json.load(fh)
    return {url: e for url, e in gold.items() if (snippets_dir / "pages" / e["file"]).is_file()}


@pytest.fixture(scope="session", autouse=True)
def _no_user_stoplists(tmp_path_factory):
    """The suite never reads or writes the user's own stoplist directory (~/.local/share/corpustool/
    stoplists): $CORPUSTOOL_STOPLISTS is an empty temporary folder for every test and child process."""
    import os

    old = os.environ.get("CORPUSTOOL_STOPLISTS")
    os.environ["CORPUSTOOL_STOPLISTS"] = str(tmp_path_factory.mktemp("user-stoplists"))
    yield
    if old is None:
        os.environ.pop("CORPUSTOOL_STOPLISTS", None)
    else:
        os.environ["CORPUSTOOL_STOPLISTS"] = old


@pytest.fixture(params=["compiled", "python"])
def native_backend(request, monkeypatch) -> str:
    """Run the test on each backend: the compiled engines (as corpustool.native.backend chose
    them; skipped when none is built or CORPUSTOOL_BACKEND=python) and their pure-Python twins
    (tests/support/backends.py switches every engine for this test only). The value: its name."""
    from tests.support import backends

    return backends.use(request.param, monkeypatch)
