#!/bin/sh
# Build corpustool with its compiled modules instrumented by AddressSanitizer, UBSan and
# libFuzzer's coverage (clang -fsanitize=address,undefined,fuzzer-no-link) into its own virtual
# environment (.venv-fuzz by default), from a copy of the sources in $WORK/src: the normal build
# (.venv, the .c/.so files next to the .pyx) is left alone. Fails when an extension does not
# build or does not load: a fuzz run without them would fuzz nothing.
set -eu
VENV=${FUZZ_VENV:-.venv-fuzz}
WORK=${FUZZ_WORK:-.fuzz}
PYTHON=${PYTHON:-python3}
if ! command -v clang >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq >/dev/null 2>&1 || true
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null
    else
        echo "fuzz_build: clang is needed (apt-get install clang)" >&2
        exit 1
    fi
fi
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
# the build's own tools (no build isolation: the extension is compiled against this lxml)
"$VENV/bin/python" -m pip install --quiet atheris "setuptools>=77" "Cython>=3" wheel "lxml>=5"
rm -rf "$WORK/src"
mkdir -p "$WORK/src"
git ls-files -co --exclude-standard -z setup.py pyproject.toml README.md corpustool stoplists \
    | xargs -0 cp --parents -t "$WORK/src"
# -DCYTHON_VECTORCALL_TPNEW=0: Cython 3.3's vectorcall tp_new computes "args + nargs" with args NULL
# and nargs 0 when an extension type is made without arguments (generated code, not ours); UBSan
# stops every run there (pointer-overflow), so the types are made the tuple way, as before 3.3
SAN="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1 -DCYTHON_VECTORCALL_TPNEW=0"
# OptionalBuildExt turns a failed compilation into a warning; the import check below catches it
CC=clang LDSHARED="clang -shared" CFLAGS="$SAN" LDFLAGS="-fsanitize=address,undefined" \
    "$VENV/bin/python" -m pip install --quiet --no-build-isolation --force-reinstall --no-deps "$WORK/src"
# corpustool's dependencies (corpustool itself is installed: not rebuilt)
"$VENV/bin/python" -m pip install --quiet --no-build-isolation "$WORK/src"
ASAN_RT="$("$VENV/bin/python" -c 'import atheris, os; print(os.path.join(atheris.path(), "asan_with_fuzzer.so"))')"
for m in justext_walk justext_plus_decide text_scan tree_scores learned_features; do
    so=$(ls "$VENV"/lib/python3*/site-packages/corpustool/native/$m.*.so)
    nm -D "$so" | grep -q __asan_report || { echo "fuzz_build: $so is not instrumented" >&2; exit 1; }
done
LD_PRELOAD="$ASAN_RT" ASAN_OPTIONS=detect_leaks=0 "$VENV/bin/python" -c '
from corpustool.extractors import justext_engine as je, justext_plus as jp
from corpustool.native import text_scan
assert je.WALK.compiled and je.WALK.has_parse, (je.backend.walk.reason, je.backend.sax.reason)
assert jp.compiled_decide is not None
from corpustool.extractors import justext_learned as jl
assert jl._COLUMNS is not None and jl._CompleteTrees is not None
# one page through every compiled engine: a build whose generated code trips the sanitizers on
# every call stops here, not in each run of the campaign
import corpustool
page = b"<html><body><h1>A title</h1>" + b"<p>The council met on Tuesday to discuss the budget of the city.</p>" * 5
assert corpustool.extract_text(page, language="en")
from corpustool.extractors.base import Page
from corpustool.extractors.registry import get_extractor
assert get_extractor("justext-learned").extract(Page(page.decode(), language="en"))
print("fuzz_build: instrumented extensions load (walk, SAX parse, decide, scans, trees, features)")'
