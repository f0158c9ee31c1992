"""The language filter: keep documents (and paragraphs) in the wanted languages.

Runs after cleaning, on the clean text (good paragraphs) of each document:

* ``method="fast"`` (default): :func:`corpustool.language.identify.identify`,
  stop words in one pass plus script detection, ~20x langdetect's speed
  (``scripts/bench/bench_language.py``);
* ``method="langdetect"``: the langdetect package, seeded
  (``DetectorFactory.seed = 0``) so its answers are reproducible;
* with ``second_opinion`` (default on), the fast method asks langdetect when
  its own confidence is below ``second_opinion_below`` and takes langdetect's
  answer when langdetect is more confident.

Outcomes, each counted under its reason in the stage's statistics:

* ``unknown-language``: nothing to identify (no stop word of any list, no
  known script) or a language nobody can name;
* ``uncertain-language``: the best language's confidence is below
  ``min_confidence``;
* ``unwanted-language``: identified, but not among ``languages`` (when given).

The language and its confidence are recorded in ``doc.lang``/``doc.lang_score``, the
confidence minus the second language's in ``doc.meta["lang_diff"]``.
With ``paragraph_level``, every good paragraph of a kept document is
identified too (``Paragraph.lang``/``lang_score``); a paragraph confidently
in another language than the wanted ones (the document's language when none
are given) becomes ``bad`` with reason ``foreign-language``. The paragraph's
identification starts from a prior of :data:`PARAGRAPH_PRIOR` for the
document's language: a paragraph is foreign when its own stop words outweigh
that (about two distinctive stop words of another language) with confidence
``paragraph_min_confidence`` (default 0.8). Paragraphs with
fewer than ``min_paragraph_words`` words (headings, "Impressum") are too short
to judge and keep the document's language.
"""
from __future__ import annotations

from typing import Iterable

from ..document import BAD, Document
from ..errors import OptionError
from ..options import default
from ..stage import DocumentStage
from .identify import UNDETERMINED, identify
from .sample import language_sample
from .stoplists import resolve_language

METHODS = ("fast", "langdetect")
# prior probability that a paragraph is in the document's language (or one of the wanted ones)
PARAGRAPH_PRIOR = 0.9
# langdetect's codes -> ours
_LANGDETECT_CODES = {"zh-cn": "zh", "zh-tw": "zh", "no": "nb"}


def _langdetect():
    """langdetect's detector factory, loaded once per process and seeded."""
    from langdetect import DetectorFactory, detector_factory

    DetectorFactory.seed = 0
    if detector_factory._factory is None:
        detector_factory.init_factory()
    factory = detector_factory._factory
    factory.seed = 0
    return factory


def langdetect_language(text: str) -> tuple[str, float]:
    """(code, probability) by langdetect (seeded: same text, same answer), or ("und", 0.0)."""
    return langdetect_scores(text)[:2]


def langdetect_scores(text: str) -> tuple[str, float, float]:
    """(code, probability, the second language's probability) by langdetect, or ("und", 0.0, 0.0)."""
    from langdetect.lang_detect_exception import LangDetectException

    factory = _langdetect()
    try:
        detector = factory.create()
        detector.append(text)
        probs = detector.get_probabilities()
    except LangDetectException:
        return UNDETERMINED, 0.0, 0.0
    if not probs:
        return UNDETERMINED, 0.0, 0.0
    best = probs[0]
    code = _LANGDETECT_CODES.get(best.lang, best.lang)
    second = round(float(probs[1].prob), 4) if len(probs) > 1 else 0.0
    return code, round(float(best.prob), 4), second


class LanguageFilter(DocumentStage):
    name = "langfilter"

    def __init__(self, languages: Iterable[str] | str | None = None,
                 min_confidence: float = default("min_lang_confidence"),
                 method: str = default("lang_method"), paragraph_level: bool = False, second_opinion: bool = True,
                 second_opinion_below: float = default("second_opinion_below"), min_paragraph_words: int = 5,
                 paragraph_min_confidence: float = default("paragraph_min_confidence")) -> None:
        super().__init__()
        if isinstance(languages, str):
            languages = [l for l in languages.split(",") if l.strip()]
        langs = [l.strip() for l in (languages or []) if l and l.strip()]
        if "auto" in langs:
            if len(langs) > 1:
                raise OptionError("language 'auto' cannot be combined with other languages")
            langs = []
        self.languages: frozenset[str] | None = (
            frozenset(resolve_language(l, require_stoplist=False) for l in langs) or None)
        for name, value in (("min_confidence", min_confidence), ("second_opinion_below", second_opinion_below),
                            ("paragraph_min_confidence", paragraph_min_confidence)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise OptionError(f"{name} must be a number in [0, 1], not {value!r}")
        if method not in METHODS:
            raise OptionError(f"unknown language identification method {method!r}; choose from: "
                              f"{', '.join(METHODS)}")
        if isinstance(min_paragraph_words, bool) or not isinstance(min_paragraph_words, int) \
                or min_paragraph_words < 0:
            raise OptionError(f"min_paragraph_words must be a non-negative integer, not {min_paragraph_words!r}")
        self.min_confidence = float(min_confidence)
        self.method = method
        self.paragraph_level = paragraph_level
        self.second_opinion = second_opinion and method == "fast"
        self.second_opinion_below = float(second_opinion_below)
        self.min_paragraph_words = min_paragraph_words
        self.paragraph_min_confidence = float(paragraph_min_confidence)

    def prepare(self) -> None:
        # the identification tables and langdetect's profiles load on first use (about 1.4 s)
        identify("the tables load on the first call")
        if self.method == "langdetect" or self.second_opinion:
            _langdetect()

    # -- identification -----------------------------------------------------
    def identify_text(self, text: str) -> tuple[str, float, str]:
        """(code or "und", confidence, method used) for one text."""
        return self.identify_scores(text)[:3]

    def identify_scores(self, text: str) -> tuple[str, float, str, float]:
        """(code or "und", confidence, method used, confidence of the second language)."""
        if self.method == "langdetect":
            code, prob, second = langdetect_scores(text)
            return code, prob, "langdetect", second
        result = identify(text)
        code, conf = result.lang, result.confidence
        if self.second_opinion and conf < self.second_opinion_below:
            other, prob, second = langdetect_scores(text)
            if other != UNDETERMINED and prob > conf:
                return other, prob, "langdetect", second
        return code, conf, "fast", result.second

    # -- the stage ------------------------------------------------------------
    def process(self, doc: Document) -> Document:
        text = language_sample(doc.clean_text())     # bounded memory on a huge page
        code, conf, used, second = self.identify_scores(text) if text.strip() else (UNDETERMINED, 0.0, "none", 0.0)
        doc.lang, doc.lang_score = code, conf
        # (TenTen's lang_diff: how clearly the best language won; a text attribute)
        doc.meta["lang_diff"] = round(max(0.0, conf - second), 4)
        if used == "langdetect" and self.method == "fast":
            self.stats.extra["second-opinion-used"] += 1
        if code == UNDETERMINED:
            return doc.drop("unknown-language")
        if conf < self.min_confidence or (self.languages is not None and code not in self.languages):
            if self.paragraph_level and self.languages is not None and self._wanted_part(doc):
                self.stats.extra["lang-from-paragraphs"] += 1
                self.stats.extra[f"lang:{doc.lang}"] += 1
                return doc
            return doc.drop("uncertain-language" if conf < self.min_confidence else "unwanted-language")
        if self.paragraph_level:
            self.stats.extra["foreign-paragraphs"] += self._filter_paragraphs(doc)
            if not doc.good_paragraphs():
                return doc.drop("unwanted-language")
        self.stats.extra[f"lang:{code}"] += 1
        return doc

    def _wanted_part(self, doc: Document) -> bool:
        """A document of two languages whose main one is not wanted (or none is clear): with
        --paragraph-lang its paragraphs in other languages go (a short one with the long one before
        it, else after it), and the rest is kept when it is identified, as the whole document would
        be, in a wanted language; its language is then that one. (A page half English, half German
        was dropped whole by ``--lang en --paragraph-lang``.)"""
        saved = [(p.cls, p.reason, p.lang, p.lang_score) for p in doc.paragraphs]
        foreign = self._filter_paragraphs(doc, short_by_neighbours=True)
        text = language_sample(doc.clean_text())
        code, conf = self.identify_scores(text)[:2] if text.strip() else (UNDETERMINED, 0.0)
        if code in self.languages and conf >= self.min_confidence:
            doc.lang, doc.lang_score = code, conf
            self.stats.extra["foreign-paragraphs"] += foreign
            return True
        for p, (cls, reason, lang, score) in zip(doc.paragraphs, saved):    # dropped whole, as it came
            p.cls, p.reason, p.lang, p.lang_score = cls, reason, lang, score
        return False

    def _filter_paragraphs(self, doc: Document, short_by_neighbours: bool = False) -> int:
        """Mark the good paragraphs in unwanted languages bad (foreign-language); returns how many.
        A short paragraph keeps the document's language, or with ``short_by_neighbours`` takes
        that of the long paragraph before it (else after it)."""
        allowed = self.languages or frozenset((doc.lang,))
        # a paragraph is a priori in the document's (or a wanted) language; short paragraphs
        # share stop words with many languages, and langdetect guesses wildly on them, so the
        # second opinion is not asked here
        prior = {code: PARAGRAPH_PRIOR / len(allowed) for code in allowed}
        foreign = 0
        short: list[int] = []
        judged: list[tuple[int, bool]] = []      # (index, foreign) of the long good paragraphs
        for i, p in enumerate(doc.paragraphs):
            if not p.is_good:
                continue
            if len(p.text.split()) < self.min_paragraph_words:
                p.lang, p.lang_score = doc.lang, None
                short.append(i)
                continue
            if self.method == "langdetect":
                code, conf = langdetect_language(p.text)
            else:
                result = identify(p.text, prior=prior)
                code, conf = result.lang, result.confidence
            p.lang, p.lang_score = code, conf
            out = code != UNDETERMINED and code not in allowed and conf >= self.paragraph_min_confidence
            judged.append((i, out))
            if out:
                p.cls = BAD
                p.reason = "foreign-language"
                foreign += 1
        if short_by_neighbours and judged:
            k = 0
            for i in short:
                while k + 1 < len(judged) and judged[k + 1][0] < i:
                    k += 1
                j, out = judged[k]
                p = doc.paragraphs[i]
                p.lang = doc.paragraphs[j].lang
                if out:
                    p.cls = BAD
                    p.reason = "foreign-language"
                    foreign += 1
        return foreign
