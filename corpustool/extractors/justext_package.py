"""jusText through the justext package's own functions (the reference engine).

Segmentation, preprocessing and both classification passes are the
package's (seed 003, Sect. 2.7: Algorithm 2.2, the headings rule, Algorithm
2.3). For lengths in tokens (the thesis presets A-D) the package's paragraph
objects measure their length in words instead of characters; the heading
distance stays in characters, as in the package.
"""
from __future__ import annotations

from typing import Any

import justext.core as jt
import lxml.html
from lxml import etree
from justext.paragraph import Paragraph as JtParagraph

from ..document import BAD, GOOD, Paragraph
from .base import _XML_DECLARATION, Extractor, Page, register
from .justext_params import JustextParams, preset


class _TokenLengthParagraph(JtParagraph):
    def __len__(self) -> int:
        return self.words_count


class _TokenLengthMaker(jt.ParagraphMaker):
    def _start_new_pragraph(self) -> None:
        if self.paragraph and self.paragraph.contains_text():
            self.paragraphs.append(self.paragraph)
        self.paragraph = _TokenLengthParagraph(self.path)


def params_from_options(options: dict[str, Any], default_preset: str = "justext") -> JustextParams:
    options = dict(options)
    base = preset(options.pop("preset", None) or default_preset)
    return base.with_options(**options)


@register("justext-package")
class JustextPackageExtractor(Extractor):
    """The justext package (3.0.2) as the reference implementation."""

    needs_stoplist = True
    description = "jusText via the justext package's functions (reference, slow)"

    def __init__(self, **options: Any) -> None:
        self.params = params_from_options(options)

    def extract(self, page: Page) -> list[Paragraph]:
        # the package's Cleaner needs lxml.html's element classes (drop_tree, drop_tag),
        # so the reference builds its own tree, exactly as justext.justext() does
        tree = None
        if page.html.strip():
            try:
                tree = lxml.html.document_fromstring(_XML_DECLARATION.sub("", page.html, count=1),
                                                     parser=lxml.html.HTMLParser(remove_comments=False))
            except (ValueError, etree.ParserError):
                pass
        if tree is None:
            return []
        p = self.params.language_independent() if page.meta.get("language_independent") else self.params
        dom = jt.preprocessor(tree)
        maker = _TokenLengthMaker if p.length_unit == "tokens" else jt.ParagraphMaker
        paragraphs = maker.make_paragraphs(dom)
        stoplist = page.stoplist or frozenset()
        jt.classify_paragraphs(paragraphs, stoplist, p.length_low, p.length_high, p.stopwords_low,
                               p.stopwords_high, p.max_link_density, p.no_headings)
        jt.revise_paragraph_classification(paragraphs, p.max_heading_distance)
        out = []
        for jp in paragraphs:
            words = jp.words_count
            stop = jp.stopwords_count(stoplist) if words else 0
            good = jp.class_type == "good"
            dom_path = jp.dom_path
            out.append(Paragraph(
                text=jp.text,
                cls=GOOD if good else BAD,
                cf_class=jp.cf_class,
                heading=bool(jp.heading),
                tag=dom_path.rsplit(".", 1)[-1],
                dom_path=dom_path,
                xpath=jp.xpath,
                reason=None if good else "boilerplate",
                features={
                    "chars": len(jp.text),
                    "words": words,
                    "link_density": round(jp.links_density(), 4),
                    "stopwords": stop,
                    "stopword_density": round(stop / words, 4) if words else 0.0,
                },
            ))
        return out
