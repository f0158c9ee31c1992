"""Configurations that load a vertical corpus into CWB and Manatee with no hand editing.

``build --registry DIR`` writes, for the structures and attributes the writer
actually wrote (an undeclared tag line would be stored by Manatee as a token):

* ``DIR/registry/NAME``: a CWB registry entry (as ``cwb-encode -R`` writes it),
  data in ``DIR/cwb/NAME``;
* ``DIR/NAME.manatee``: a Manatee / NoSketch Engine corpus configuration, data in
  ``DIR/manatee/NAME``, reading the vertical file (through ``zcat`` when gzipped);
* ``DIR/encode.sh``: ``sh DIR/encode.sh cwb`` runs ``cwb-encode`` and ``cwb-makeall``,
  ``sh DIR/encode.sh manatee`` runs ``encodevert`` (without an argument: the tool of
  the target the corpus was written for); each refuses a corpus written
  for the other target (Manatee decodes no XML entities; CWB reads ``\\"`` as two
  characters).

Paths may hold spaces, quotes and backslashes; a path neither tool's grammar can hold (a line
break; both ``'`` and ``"``, for Manatee; ``:`` in DIR, for CWB) is refused (:func:`check_paths`).
"""
from __future__ import annotations

import os
import re
import shlex

from ..errors import OptionError

# the order in which the writer writes a document's attributes, then any others
_DOC_ORDER = ("id", "url", "title", "lang", "lang_score", "crawl_date", "encoding", "domain", "tld", "site",
              "wordcount", "length", "lang_diff", "type", "date", "date_source", "author", "sitename")


def corpus_name(output: str) -> str:
    """A corpus ID both tools accept, from the output file name: ``my-corpus.vert.gz`` -> ``my_corpus``."""
    base = os.path.basename(output)
    for suffix in (".gz", ".vert", ".vrt"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    name = re.sub(r"[^a-z0-9_]+", "_", base.lower()).strip("_")
    if not name or not name[0].isalpha():
        name = "c_" + name
    return name[:60]


def _ordered(structures: dict[str, set[str]]) -> list[tuple[str, list[str]]]:
    out = []
    for name in ("doc", "p", "s", "g"):
        if name in structures:
            attrs = structures[name]
            order = _DOC_ORDER if name == "doc" else ("heading", "lang")
            out.append((name, [a for a in order if a in attrs] + sorted(attrs - set(order))))
    return out


def cwb_flags(structures: dict[str, set[str]]) -> list[str]:
    """cwb-encode's s-attribute declarations: ``-S doc:0+id+url ...``; ``<g/>`` flat."""
    flags = []
    for name, attrs in _ordered(structures):
        flags += ["-S", name if name == "g" else f"{name}:0" + "".join(f"+{a}" for a in attrs)]
    return flags


def _cwb_path(path: str) -> str:
    # CWB's registry lexer (cl/registry.l) reads a "..." string with \" and \\ escapes; a bare
    # path ends at the first space
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _manatee_string(value: str) -> str:
    # Manatee's corpconf lexer (corp/corpconf.y) reads "..." or '...' with no escapes at all
    return f'"{value}"' if '"' not in value else f"'{value}'"


def _sh_word(path: str) -> str:
    """``path`` as one sh word with no quote character the path lacks (``it\\'s``), for a
    command inside a Manatee string: ``shlex.quote`` writes ``'"'"'`` for an apostrophe."""
    return re.sub(r"([^A-Za-z0-9_./\x80-\U0010ffff-])", r"\\\1", path)


def check_paths(directory: str, vertical: str, target: str) -> None:
    """Refuse, in one line, a path the configurations cannot hold (OptionError)."""
    registry = os.path.join(os.path.abspath(directory), "registry")
    if target == "cwb" and ":" in registry:
        # CWB reads -r (and CORPUS_REGISTRY) as a list of directories separated by ':'
        raise OptionError(f"CWB cannot read the registry directory {registry!r}: it has ':' "
                          "(CWB's separator of registry directories)")
    for path in (os.path.abspath(directory), os.path.abspath(vertical)):
        for ch in "\n\r":
            if ch in path:      # ends a line of either tool's file (and a line of encode.sh)
                raise OptionError(f"the corpus managers' configurations cannot hold the path "
                                  f"{path!r}: it has a line break (U+{ord(ch):04X})")
        if "'" in path and '"' in path:
            raise OptionError(f"a Manatee configuration cannot hold the path {path!r}: it has "
                              "both ' and \" (its strings are quoted with one, unescaped)")


def cwb_registry(name: str, home: str, structures: dict[str, set[str]]) -> str:
    lines = ["##", f"## registry entry for corpus {name.upper()} (written by corpustool)", "##", "",
             'NAME ""', f"ID   {name}", f"HOME {_cwb_path(home)}", f"INFO {_cwb_path(home + '/.info')}", "",
             '##:: charset  = "utf8" # character encoding of corpus data', "",
             "ATTRIBUTE word", ""]
    for struct, attrs in _ordered(structures):
        lines.append(f"STRUCTURE {struct}")
        lines += [f"STRUCTURE {struct}_{a}" for a in attrs]
        lines.append("")
    return "\n".join(lines)


def manatee_config(name: str, path: str, vertical: str, structures: dict[str, set[str]]) -> str:
    source = vertical
    if vertical.endswith(".gz"):
        source = f"| zcat {shlex.quote(vertical)}"
        if '"' in source and "'" in source:
            source = f"| zcat {_sh_word(vertical)}"
    lines = [f'NAME "{name}"', f"PATH {_manatee_string(path + '/')}", f"VERTICAL {_manatee_string(source)}",
             'ENCODING "UTF-8"',
             'INFO "corpus written by corpustool"', "", "ATTRIBUTE word", ""]
    for struct, attrs in _ordered(structures):
        body = [f"    ATTRIBUTE {a}" for a in attrs]
        if struct == "g":
            # glue: shown as no space between the tokens, not as a tag
            body += ['    DISPLAYTAG 0', '    DISPLAYBEGIN "_EMPTY_"']
        lines += [f"STRUCTURE {struct} {{", *body, "}", ""] if body else [f"STRUCTURE {struct}", ""]
    return "\n".join(lines)


def write_registry(directory: str, vertical: str, structures: dict[str, set[str]], target: str) -> list[str]:
    """Write the three files for ``vertical`` (already in place); returns their paths."""
    check_paths(directory, vertical, target)
    directory = os.path.abspath(directory)
    vertical = os.path.abspath(vertical)
    name = corpus_name(vertical)
    os.makedirs(os.path.join(directory, "registry"), exist_ok=True)
    home = os.path.join(directory, "cwb", name)
    data = os.path.join(directory, "manatee", name)
    registry = os.path.join(directory, "registry", name)
    conf = os.path.join(directory, f"{name}.manatee")
    script = os.path.join(directory, "encode.sh")
    # surrogateescape: a path's undecodable bytes are written back as they were
    with open(registry, "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(cwb_registry(name, home, structures))
    with open(conf, "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(manatee_config(name, data, vertical, structures))
    q = shlex.quote
    cwb_encode = " ".join(["cwb-encode", "-c", "utf8", "-x", "-s", "-d", q(home), "-f", q(vertical),
                           *map(q, cwb_flags(structures))])
    feed = (f"zcat {q(vertical)} | encodevert -c {q(conf)}" if vertical.endswith(".gz")
            else f"encodevert -c {q(conf)} {q(vertical)}")
    query = q('[word="the"]')
    with open(script, "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(f"""#!/bin/sh
# Encode {os.path.basename(vertical)} (written for {target}) with a corpus manager: sh {q(script)} [cwb|manatee]
set -e
case "${{1:-{target}}}" in
cwb)
    [ {q(target)} = cwb ] || {{ echo "encode.sh: this corpus was written for {target}; build it with --target cwb for CWB" >&2; exit 2; }}
    rm -rf {q(home)} && mkdir -p {q(home)}
    {cwb_encode}
    cwb-makeall -r {q(os.path.join(directory, "registry"))} -V {name.upper()}
    echo {q(f"query: cqp -r {q(os.path.join(directory, 'registry'))} -D {name.upper()}")} ;;
manatee)
    [ {q(target)} = manatee ] || {{ echo "encode.sh: this corpus was written for {target}; build it with --target manatee for Manatee" >&2; exit 2; }}
    rm -rf {q(data)} && mkdir -p {q(data)}
    {feed}
    echo {q(f"query: corpquery {q(conf)} {query}")} ;;
*)
    echo {q(f"usage: sh {q(script)} cwb|manatee")} >&2; exit 2 ;;
esac
""")
    return [registry, conf, script]
