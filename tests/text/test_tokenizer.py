"""Tokenizer: grapheme clusters (emoji ZWJ sequences, modifiers, flags, keycaps, variation
selectors) stay one token; invisible format characters (bidi marks, soft hyphen, BOM, word
joiner ...) are never tokens and never split a word (issue 28, item 2)."""
import pytest

from corpustool.text.tokenizer import tokenize


@pytest.mark.parametrize("text,tokens", [
    ("Family 👨‍👩‍👧 here", ["Family", "👨‍👩‍👧", "here"]),
    ("👩🏽‍💻 codes", ["👩🏽‍💻", "codes"]),
    ("ok 👍🏽!", ["ok", "👍🏽", "!"]),
    ("🇨🇿", ["🇨🇿"]),
    ("🇨🇿🇩🇪", ["🇨🇿", "🇩🇪"]),
    ("1️⃣ first, #️⃣ hash", ["1️⃣", "first", ",", "#️⃣", "hash"]),
    ("I ❤️ it", ["I", "❤️", "it"]),
    ("🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F!",
     ["🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F", "!"]),
])
def test_grapheme_clusters_are_one_token(text, tokens):
    assert tokenize(text)[0] == tokens


def test_glue_of_clusters():
    assert tokenize("wow👍🏽🇨🇿")[1] == [False, True, True]


@pytest.mark.parametrize("text,tokens", [
    ("Wort\u00adteil", ["Wortteil"]),                          # soft hyphen
    ("Ge\u00adb\u00e4r\u00adden\u00adspra\u00adche", ["Gebärdensprache"]),
    ("ab\u200ecd", ["abcd"]),                                  # LRM inside a word
    ("\u200fשלום\u200f עולם", ["שלום", "עולם"]),               # RLM
    ("\u202bשלום\u202c x", ["שלום", "x"]),                     # embedding, pop
    ("\u2067abc\u2069 \u2066d\u2069", ["abc", "d"]),            # isolates
    ("\u061cمرحبا", ["مرحبا"]),                                 # Arabic letter mark
    ("\ufeffStart here", ["Start", "here"]),                   # BOM
    ("word\u2060joiner", ["wordjoiner"]),                      # word joiner
    ("zero\u200bwidth", ["zerowidth"]),                        # zero-width space
    ("a \u200e b \u200d c \ufe0f d", ["a", "b", "c", "d"]),      # alone: nothing
    ("end.\u200e", ["end", "."]),
])
def test_format_characters_are_dropped(text, tokens):
    assert tokenize(text)[0] == tokens


def test_joiners_inside_words_stay():
    # ZWNJ in Persian, ZWJ in Devanagari conjuncts are part of the word
    assert tokenize("می\u200cخواهم")[0] == ["می\u200cخواهم"]
    assert tokenize("क्\u200dष")[0] == ["क्\u200dष"]


def test_format_character_does_not_change_glue():
    assert tokenize("Hello\u200e, world")[1] == [False, True, False]


@pytest.mark.parametrize("text,tokens", [
    ("Great food :-) thanks", ["Great", "food", ":-)", "thanks"]),
    ("ha :D and ;) and :'( and :)))", ["ha", ":D", "and", ";)", "and", ":'(", "and", ":)))"]),
    ("I <3 it", ["I", "<3", "it"]),
    ("what?:)", ["what", "?", ":)"]),
    # not emoticons: glued to a word before, a letter or slash after, a time, an equation
    ("Note:D C:/x :Directory", ["Note", ":", "D", "C", ":", "/", "x", ":", "Directory"]),
    ("x=3 (a;) at 10:30", ["x", "=", "3", "(", "a", ";", ")", "at", "10:30"]),
])
def test_emoticons_are_one_token(text, tokens):
    """":-)" came out as ":", "-", ")": a corpus query for the emoticon found nothing."""
    assert tokenize(text)[0] == tokens


def test_programming_language_names_are_one_token():
    """C++, C# and .NET came out as "C" "+" "+", "C" "#", "." "NET"."""
    assert tokenize("I write C++ and C# on .NET, rated A++.")[0] == [
        "I", "write", "C++", "and", "C#", "on", ".NET", ",", "rated", "A", "+", "+", "."]
    assert tokenize("C++11 a+b #tag")[0] == ["C", "+", "+", "11", "a", "+", "b", "#", "tag"]
