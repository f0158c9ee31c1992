"""Peer extractors outside our registry, measured side by side when installed.

* ``peer:justext`` - the justext package's own ``justext.justext()`` call
  with the stoplist the clean stage chooses for the page
  (``Clean.choose_stoplist``: the same language decision, so only the
  engine differs; where the stage would drop the page for an unknown
  language, the peer gets an empty stoplist and keeps nothing);
* ``peer:trafilatura`` - ``trafilatura.extract`` (comments excluded: the
  snippet gold counts comments as boilerplate);
* ``peer:resiliparse`` - resiliparse's ``extract_plain_text`` with
  ``main_content=True``.

A peer that is not installed is skipped and reported, never an error: they
are optional extras (the ``bench`` extra of pyproject.toml). Options given
as ``peer:NAME:key=value`` are passed to the peer's function after checking
that it takes them.
"""
from __future__ import annotations

import importlib.util
import inspect
from typing import Any, Callable

from ..document import BAD, GOOD, Paragraph
from ..errors import OptionError

PEERS = ("justext", "trafilatura", "resiliparse")
_MODULES = {"justext": "justext", "trafilatura": "trafilatura", "resiliparse": "resiliparse"}


def is_installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(_MODULES[name]) is not None
    except (ImportError, ValueError):
        return False


def installed_peers() -> list[str]:
    return [p for p in PEERS if is_installed(p)]


class Peer:
    """One peer: ``extract(html, url, stoplist)`` -> (kept text, paragraphs or None)."""

    needs_stoplist = False

    def __init__(self, name: str, **options: Any) -> None:
        if name not in PEERS:
            raise OptionError(f"unknown peer {name!r}; choose from: {', '.join(PEERS)}")
        self.name = name
        self.options = options
        self._fn: Callable[..., Any] | None = None

    def _check_options(self, fn: Callable[..., Any], reserved: tuple[str, ...]) -> None:
        params = inspect.signature(fn).parameters
        unknown = sorted(k for k in self.options if k not in params or k in reserved)
        if unknown:
            raise OptionError(f"peer {self.name!r} does not take option(s): {', '.join(unknown)}")

    def load(self) -> None:
        """Import the peer and validate the options (OptionError when they do not fit)."""
        if self.name == "justext":
            import justext
            self._check_options(justext.justext, ("html_text", "stoplist"))
            self._fn = justext.justext
            self.needs_stoplist = True
        elif self.name == "trafilatura":
            import trafilatura
            self._check_options(trafilatura.extract, ("filecontent", "url"))
            self.options.setdefault("include_comments", False)
            self._fn = trafilatura.extract
        else:
            from resiliparse.extract.html2text import extract_plain_text
            self._check_options(extract_plain_text, ("html",))
            self.options.setdefault("main_content", True)
            self._fn = extract_plain_text

    def extract(self, html: str, url: str | None, stoplist: frozenset[str] | None) -> tuple[str, list[Paragraph] | None]:
        if self._fn is None:
            self.load()
        fn = self._fn
        assert fn is not None
        if self.name == "justext":
            paragraphs = fn(html.encode("utf-8"), stoplist or frozenset(), encoding="utf-8", **self.options)
            out = [Paragraph(text=p.text, cls=GOOD if not p.is_boilerplate else BAD, cf_class=p.cf_class,
                             heading=bool(p.heading)) for p in paragraphs]
            return "\n".join(p.text for p in out if p.cls == GOOD), out
        if self.name == "trafilatura":
            return fn(html, url=url, **self.options) or "", None
        from resiliparse.parse.html import HTMLTree
        return fn(HTMLTree.parse(html), **self.options) or "", None
