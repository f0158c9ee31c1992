"""corpustool's compiled modules (Cython), each optional: see README.md in this folder.

``justext_walk`` (with ``sax_arena.pxi``), ``justext_plus_decide``, ``text_scan``, ``tree_scores`` and ``_onion``
are imported once, by :mod:`.backend`, which says per engine whether the compiled code or the
Python code runs (and why); the modules that use them ask it.
"""
