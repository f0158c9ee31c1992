"""Snippet hit rates (the scoring of the data README, used by trafilatura's benchmark).

Both the output and each snippet are normalised (lower-case, every run of
non-word characters collapsed to one space); a snippet is found when its
normalised form occurs in the normalised output. ``with`` snippets should be
found, ``without`` snippets should not. As a confusion: TP = ``with`` found,
FN = ``with`` missed, FP = ``without`` found, TN = ``without`` absent, which
gives snippet-level precision and recall. Snippets that normalise to nothing
cannot be tested and are left out.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .metrics import Confusion
from .tokens import normalize_snippet


@dataclass
class SnippetResult:
    found_with: list[bool] = field(default_factory=list)
    found_without: list[bool] = field(default_factory=list)

    @property
    def confusion(self) -> Confusion:
        w, wo = self.found_with, self.found_without
        return Confusion(tp=sum(w), fn=len(w) - sum(w), fp=sum(wo), tn=len(wo) - sum(wo))

    @property
    def with_rate(self) -> float:
        return sum(self.found_with) / len(self.found_with) if self.found_with else float("nan")

    @property
    def without_rate(self) -> float:
        """Share of ``without`` snippets absent from the output."""
        wo = self.found_without
        return (len(wo) - sum(wo)) / len(wo) if wo else float("nan")


def match_snippets(output: str, with_snippets: list[str], without_snippets: list[str]) -> SnippetResult:
    text = normalize_snippet(output)

    def found(snippets: list[str]) -> list[bool]:
        out = []
        for s in snippets:
            norm = normalize_snippet(s)
            if norm:
                out.append(norm in text)
        return out

    return SnippetResult(found(with_snippets), found(without_snippets))
