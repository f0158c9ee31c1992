"""corpustool's compiled modules (Cython), each optional: see README.md in this folder.

``justext_walk`` (with ``sax_arena.pxi``), ``justext_plus_decide`` and ``text_scan`` are
imported by the pure-Python modules that use them, which fall back to their Python code
when an extension is not built.
"""
