"""Build script for the optional compiled part of corpustool (metadata is in pyproject.toml).

``corpustool.native.justext_walk`` is the jusText engine's segmentation
walk in Cython over lxml's public C API. It is optional: when Cython, lxml's
headers or a C compiler are missing, or the compilation fails, the install
goes on with a warning and the engine uses its pure-Python walk (same
results, slower). The .c file is generated at build time from the .pyx.
"""
from __future__ import annotations

import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

PYX = "corpustool/native/justext_walk.pyx"
MODULE = "corpustool.native.justext_walk"
# justext-plus's decide() on the compiled walk's PageTree (same results as the Python one)
DECIDE_PYX, DECIDE_MODULE = "corpustool/native/justext_plus_decide.pyx", "corpustool.native.justext_plus_decide"
# scans of text: template_lines' keyword gate (same answer as pyahocorasick's), encoding's control check
SCAN_PYX, SCAN_MODULE = "corpustool/native/text_scan.pyx", "corpustool.native.text_scan"
# justext-learned's gradient-boosted trees from their arrays (same scores as numpy's and LightGBM's)
TREES_PYX, TREES_MODULE = "corpustool/native/tree_scores.pyx", "corpustool.native.tree_scores"
# justext-learned's feature matrix (the same values as its Python page_features_py)
FEATURES_PYX, FEATURES_MODULE = "corpustool/native/learned_features.pyx", "corpustool.native.learned_features"
ONION_C, ONION_MODULE = "corpustool/native/_onion.c", "corpustool.native._onion"


def warn(message: str) -> None:
    print(f"WARNING: {message}; corpustool's jusText engine will use its pure-Python walk", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """build_ext whose failures are warnings: the extension is a speed-up, never a requirement."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:   # noqa: BLE001 - any build failure must leave the install working
            warn(f"building the compiled jusText walk failed ({exc})")

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:   # noqa: BLE001
            warn(f"building {ext.name} failed ({exc})")


def extensions() -> list:
    try:
        import lxml
        from Cython.Build import cythonize
        from setuptools import Extension
    except ImportError as exc:
        warn(f"cannot build {MODULE} ({exc})")
        return []
    # sax_arena.pxi (justext-plus's SAX parse by lxml's libxml2) is included by the .pyx
    ext = Extension(MODULE, [PYX], include_dirs=lxml.get_include(), extra_compile_args=["-O2"],
                    depends=["corpustool/native/sax_arena.pxi", "corpustool/native/revision.pxi",
                             "corpustool/native/paragraph_slots.pxi"])
    decide = Extension(DECIDE_MODULE, [DECIDE_PYX], extra_compile_args=["-O2"])
    scan = Extension(SCAN_MODULE, [SCAN_PYX], extra_compile_args=["-O3"])   # -O3: the scans' loops vectorised
    trees = Extension(TREES_MODULE, [TREES_PYX], extra_compile_args=["-O3"])   # -O3: the rows' loops unrolled
    # revision.pxi (jusText's Algorithm 2.3 over integer classes) and paragraph_slots.pxi (a
    # paragraph's slots by offset) are included by both .pyx
    features = Extension(FEATURES_MODULE, [FEATURES_PYX], extra_compile_args=["-O2"],
                         depends=["corpustool/native/revision.pxi", "corpustool/native/paragraph_slots.pxi"])
    # onion over vertical files at the C program's speed (plain C, no Cython): corpustool onion/dupngrams
    onion = Extension(ONION_MODULE, [ONION_C], extra_compile_args=["-O2"])
    try:
        return cythonize([ext, decide, scan, trees, features], compiler_directives={"language_level": "3"}, quiet=True) + [onion]
    except Exception as exc:   # noqa: BLE001 - e.g. lxml's .pxd files missing
        warn(f"cythonizing {PYX} failed ({exc})")
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
