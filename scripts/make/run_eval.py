#!/usr/bin/env python3
"""``make eval``: our extractors and the installed peers on ../shared/data/snippets and wcxb-dev.

Runs ``corpustool eval`` with the clean stage's default configuration, the
thesis presets A-D (seed 003, Table 2.7), justext-package with the package
defaults, and every installed peer (peer:justext, peer:trafilatura,
peer:resiliparse), and prints the table: snippet hit rates (``with`` found,
``without`` absent), snippet-level precision/recall/F1, fragmentation and
pages per second. Then the same on ../shared/data/wcxb-dev (the WCXB development split,
1,476 pages with a main text, seven page types) with the default, the classic
``justext`` and every installed peer (trafilatura gets the page URL): mean
word F1 (the benchmark's bag-of-words metric), per page type, per domain fold
and for the development and held-out halves of the folds, all cross-validated by domain (``--cv``: 5 folds;
justext-learned's model for a page is trained on wcxb-dev and the snippet set without the page's fold of
domains, and so scores the snippet set's pages too); the collapses (pages more than 0.5 below classic jusText's word F1); then the page type written on
``<doc>`` against the pages' types (``scripts/bench/bench_page_types.py``: macro-F1 cross-validated
by domain). Without one of the
data sets it says so and goes on; without both it says what is missing and
exits with status 1 (nothing was evaluated). ``$CORPUSTOOL_EVAL_DATA`` names
another folder holding ``snippets/`` and ``wcxb-dev/``.

Extra arguments are passed to ``corpustool eval`` (e.g. ``--limit 100``,
``--lang html``, ``--csv out.csv``, ``--html report/``).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))

# name, what a present set holds, what it is
DATA_SETS = {
    "snippets": ("evaldata.json", "evaldata.json and pages/: the multilingual evaluation set of the "
                                  "trafilatura project, 884 pages with snippet gold"),
    "wcxb-dev": ("ground-truth", "ground-truth/ and html/: the WCXB development split, 1,476 pages of seven "
                                 "page types with main-text gold"),
}


def data_dir() -> Path:
    """The folder holding snippets/ and wcxb-dev/: $CORPUSTOOL_EVAL_DATA, else ../shared/data."""
    explicit = os.environ.get("CORPUSTOOL_EVAL_DATA", "").strip()
    return Path(explicit) if explicit else DEFAULT_DATA


def _shown(path: Path) -> str:
    """``../shared/data/...`` for the default place (as the README names it), else the path given."""
    # only the shared folder beside the checkout is shown relative: any other path (a temporary
    # folder that happens to sit beside the checkout, say) is shown as given
    try:
        rel = path.resolve().relative_to(REPO.parent.resolve())
    except ValueError:
        return str(path)
    return "../" + str(rel) if rel.parts[:1] == ("shared",) else str(path)


def missing_message(folder: Path) -> str:
    lines = [f"make eval: nothing to evaluate: no data set in {_shown(folder)}"]
    for name, (marker, what) in DATA_SETS.items():
        lines.append(f"  missing {_shown(folder / name)}/ ({what}; {marker} not found)")
    lines += ["Put the data sets there (or set CORPUSTOOL_EVAL_DATA to the folder that holds them), or",
              "score the extractors on the shipped demo data: make examples, then",
              "  .venv/bin/corpustool eval --gold snippets:examples/snippets --extractor justext-plus "
              "--extractor justext"]
    return "\n".join(lines)


def configurations() -> list[str]:
    from corpustool.eval.peers import installed_peers
    from corpustool.errors import OptionError
    from corpustool.extractors.clean import DEFAULT_EXTRACTOR
    from corpustool.extractors.registry import get_extractor

    specs = [f"default={DEFAULT_EXTRACTOR}"]
    # the presets belong to the default engine when it takes them, else to justext-package
    preset_engine = DEFAULT_EXTRACTOR
    try:
        get_extractor(DEFAULT_EXTRACTOR, preset="A")
    except OptionError:
        preset_engine = "justext-package"
    specs += [f"{p}={preset_engine}:preset={p}" for p in "ABCD"]
    if DEFAULT_EXTRACTOR != "justext-package" or preset_engine != "justext-package":
        specs.append("justext-package")
    specs.append("learned=justext-learned")
    specs += [f"peer:{p}" for p in installed_peers()]
    return specs


def wcxb_configurations() -> list[str]:
    from corpustool.eval.peers import installed_peers
    from corpustool.extractors.clean import DEFAULT_EXTRACTOR

    return [f"default={DEFAULT_EXTRACTOR}", "learned=justext-learned", "justext"] + [
        f"peer:{p}" for p in installed_peers()]


def main(argv: list[str]) -> int:
    from corpustool.cli import main as cli_main
    from corpustool.eval.peers import PEERS, installed_peers
    from corpustool.extractors.clean import DEFAULT_EXTRACTOR

    data = data_dir()
    snippets, wcxb = data / "snippets", data / "wcxb-dev"
    gold_sets = [("snippets", "snippets", snippets, snippets / DATA_SETS["snippets"][0], configurations),
                 ("wcxb", "wcxb-dev", wcxb, wcxb / DATA_SETS["wcxb-dev"][0], wcxb_configurations)]
    if not any(marker.exists() for _, _, _, marker, _ in gold_sets):
        print(missing_message(data), file=sys.stderr)
        return 1
    print(f"default = {DEFAULT_EXTRACTOR} (the clean stage's default configuration)")
    missing = [p for p in PEERS if p not in installed_peers()]
    if missing:
        print("peers not installed (skipped): " + ", ".join(f"peer:{p}" for p in missing))
    status = 0
    for i, (kind, name, folder, marker, specs) in enumerate(gold_sets):
        if i:
            print()
        if not marker.exists():
            print(f"skipped: {_shown(folder)} not present ({DATA_SETS[name][1]})")
            continue
        args = ["eval", "--gold", f"{kind}:{folder}", "-q"]
        if (wcxb / DATA_SETS["wcxb-dev"][0]).exists():
            # cross-validation by domain: justext-learned scores each page with a model trained
            # on wcxb-dev without the page's fold of domains (the snippet set's pages too)
            args += ["--cv", "--train", f"wcxb:{wcxb}"]
            if (snippets / DATA_SETS["snippets"][0]).exists():
                # (the snippet set's pages as partial labels too, as make model trains)
                args += ["--train", f"snippets:{snippets}"]
        for spec in specs():
            args += ["--extractor", spec]
        status = cli_main(args + argv) or status
    if (wcxb / DATA_SETS["wcxb-dev"][0]).exists() and not argv:
        # the page type written on <doc> (corpustool/page_type.py) against the pages' types,
        # macro-F1 cross-validated by domain (scripts/bench/bench_page_types.py)
        print("\npage types (the <doc> attribute type) on wcxb-dev:")
        import subprocess
        status = subprocess.call([sys.executable, str(REPO / "scripts" / "bench" / "bench_page_types.py"),
                                  "--data", str(wcxb)]) or status
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
