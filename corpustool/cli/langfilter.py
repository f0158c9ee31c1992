"""``corpustool langfilter``: keep documents in the wanted languages (JSON Lines in and out)."""
from __future__ import annotations

import argparse

from ..options import OPTIONS, add_options, default
from .common import add_stats_options, run_stream_command


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "langfilter", help="keep documents (and paragraphs) in the wanted languages",
        description="Identify the language of each document's clean text and drop documents in other "
                    "languages (reason unwanted-language), below the confidence threshold "
                    "(uncertain-language) or in no identifiable language (unknown-language). The language "
                    "and its confidence are recorded in the document (and in each paragraph with "
                    "--paragraph-lang).")
    add_options(p, ("languages",), languages={
        "help": "wanted language(s): ISO 639-1 codes or names, comma-separated, or 'auto' "
                "(keep every identified language); default auto"})
    p.add_argument("--min-confidence", type=float, default=default("min_lang_confidence"),
                   help=OPTIONS["min_lang_confidence"].help)
    p.add_argument("--method", choices=OPTIONS["lang_method"].choices, default=default("lang_method"),
                   help="fast: stop words in one pass plus script detection (default); "
                        "langdetect: the langdetect package, seeded")
    p.add_argument("--no-second-opinion", action="store_true",
                   help="with --method fast, never ask langdetect about uncertain documents")
    add_options(p, ("second_opinion_below",))
    p.add_argument("--paragraph-lang", action="store_true",
                   help="also mark paragraphs in other languages as bad (reason foreign-language); a "
                        "document mostly in an unwanted language (or in none clearly) is kept with its "
                        "paragraphs in a wanted one, when what remains is identified as that language "
                        "(counted as lang-from-paragraphs)")
    p.add_argument("--min-paragraph-words", type=int, default=5,
                   help="with --paragraph-lang, paragraphs shorter than this keep the document's language "
                        "(default 5)")
    add_options(p, ("paragraph_min_confidence",))
    p.add_argument("--detail", action="store_true",
                   help="emit every paragraph with its DOM path, tag, features and classes")
    add_stats_options(p)
    p.set_defaults(func=run_langfilter)


def run_langfilter(args: argparse.Namespace) -> int:
    from ..language.filter import LanguageFilter
    from ..language import split_langs

    stage = LanguageFilter(languages=split_langs(args.lang), min_confidence=args.min_confidence,
                           method=args.method, paragraph_level=args.paragraph_lang,
                           second_opinion=not args.no_second_opinion,
                           second_opinion_below=args.second_opinion_below,
                           min_paragraph_words=args.min_paragraph_words,
                           paragraph_min_confidence=args.paragraph_min_confidence)
    return run_stream_command(args, stage, detail=args.detail)
