"""Rule-based sentence splitting over the tokenizer's tokens.

:func:`sentence_spans` takes the tokens and glue flags of one paragraph
(:func:`corpustool.text.tokenizer.tokenize`) and the paragraph's language when
known, and returns ``(start, end)`` token spans. A sentence may end only after
end punctuation (``.`` ``!`` ``?`` ``…`` runs of them, CJK ``。！？``, the full stops and question
marks of other scripts such as ``؟`` ``।`` ``։`` ``።``, Greek ``;``) or after
an abbreviation token that ends with a period; closing quotes and brackets
glued to the punctuation (a straight ``"`` with spaces on both sides when it
closes a quotation opened before it), further end punctuation and an emoticon
stay with the ending sentence. Whether it does end depends on:

* what follows: a capital, a digit, an opening quote or bracket before one, a
  bullet, or a URL starts a sentence; ``,`` ``;`` ``:`` or a token glued to the
  punctuation (``3.5``, ``example.com``, ``Hello.World``) does not. After
  ``?`` and ``!`` a lower-case word starts a sentence too (web text), unless
  the punctuation closed a quotation (``„Kommst du?“ fragte er``); after ``.``
  it does when the word before the period is not an abbreviation (a stop word
  of the language or a word of five or more letters), after ``…`` never;
* what precedes the period: an abbreviation of the language (``z. B.``,
  ``d. h.``, ``bzw.``, ``tj.``, ``e.g.``, ``Mr.``: never a boundary after it;
  ``etc.``, ``usw.``, ``atd.`` and dotted acronyms such as ``U.S.`` end a
  sentence only before a capitalised stop word), a single letter (initials
  ``J. R. R. Tolkien``, parts of ``z. B.``), an ordinal number in languages
  that write ordinals with a period (German ``am 3. Oktober``, Czech
  ``21. století``: not before a lower-case word or a month name, nor before a
  capital after a lower-case function word), a numeric date (``3. 5. 2020``),
  a list number (``1. Einleitung``: a sentence of a number alone is not made).

The language (ISO 639-1) selects the abbreviation list and the stop words;
without it (or for a language without a list) the union of all lists and a
few languages' stop words are used. Measured against Universal Dependencies
treebanks by ``scripts/bench/bench_sentences.py`` (``docs/sentences.md``).
"""
from __future__ import annotations

import functools
import re

# -- abbreviations ----------------------------------------------------------------------------
# Written as they appear (without the period). A lower-case entry also matches its capitalised
# form (a sentence-initial "Vgl."), a capitalised one only itself ("No." but not "no.").
# Single letters need no entry: a single letter before a period is never a sentence end.
_UNIVERSAL = """
Dr Prof Mr Mrs Ms Mme Mlle Mgr Ing Bc Sr Jr St Nr No Vol vol Fig fig Abb ca cf vs resp approx
Co Corp Inc Ltd GmbH Ing Dipl MUDr JUDr PhDr RNDr PaedDr doc
""".split()
ABBREVIATIONS: dict[str, list[str]] = {
    "en": """P.S PS Mr Mrs Ms Messrs Dr Prof Rev Hon Gen Col Capt Cpt Lt Sgt Maj Adm Cmdr Gov Sen Rep Pres
        Supt Insp Det Fr Sr Jr St Sts Ave Blvd Rd Mt Ft Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec
        Mon Tue Tues Wed Thu Thur Thurs Fri Sat Sun No Nos Vol Vols Ch Chap Sec Art Fig Figs Eq Ed Eds
        vs esp approx appt apt dept est min max misc ext tel fax cf ibid viz al ca ed eds pp vol nos
        Inc Ltd Co Corp Bros Assn Assoc Univ Dept Gov Govt Jr Ph Esq Ref Tel""".split(),
    "de": """bzw usw ca vgl Nr Str ggf evtl inkl zzgl exkl Hr Hrn Fr Frl Dr Prof Dipl Ing Abs Art Abt
        Bd Bde Bsp bspw bzgl ehem eigtl einschl entspr erg etc gem ggü hl hrsg Hrsg Jh Jhd Jh Kap
        Kfz lt Mio Mrd max min Mo Di Mi Do Fr Sa So Jan Feb Mär Apr Jun Jul Aug Sep Sept Okt Nov Dez
        od o. österr Pkw Lkw Pos rd röm sog Std Tel tägl u. usf uvm Verf verh vorm weibl Whg zB zt
        zus zzt ff Anm Aufl Ausg Bearb Bhf Bzw Co dgl dt engl franz frz geb gegr Ges gest hg Hbf
        ital Jg jr jun kath lat led männl mtl Nachf Nr n. Chr Pf phil Reg Sen sen Sr St staatl
        stv Tsd Univ usw vs z. T""".split(),
    "cs": """tj tzv atd apod např resp mj ing Ing Mgr Bc str tzn čl odst písm sb Sb tis mil mld
        min max cca popř příp viz srov roč č s r tř ul nám kap obr tab pozn př např ev zvl zejm
        doc Doc prof Prof PhDr MUDr JUDr RNDr Dr dr CSc DrSc ml st nar zemř hod ing atp aj
        sv odd sl pp p pí pan fa spol vč vyd ed tel čes angl něm lat""".split(),
    "sk": """tj tzv atď atd napr resp mj Ing Mgr Bc str čl ods písm zb Zb tis mil mld min max cca
        popr príp pozri viď porov roč č s r tr ul nám kap obr tab pozn pr zvl najm doc prof PhDr
        MUDr JUDr RNDr Dr CSc DrSc ml st nar hod aj pod sv odd p pí sl spol vr vyd tel""".split(),
    "fr": """M MM Mme Mmes Mlle Mlles Dr Pr Me Mgr St Ste av bd boul env etc cf ex p pp vol éd
        chap fig art n no nos tél apr av J.-C janv févr avr juil sept oct nov déc lun mar mer jeu
        ven sam dim ca min max resp vs Cie Sté Inc""".split(),
    "es": """Sr Sra Srta Sres Dr Dra Dres Lic Ing Arq Prof D Dña Da Ud Uds Vd Vds pág págs p pp
        núm n cap art etc aprox ej vol tel avda Av av c ca cía Cía Sto Sta ene feb mar abr jun jul
        ago sep sept oct nov dic adj pl fig dcha izq máx mín""".split(),
    "it": """Sig Sigg Sig.ra Sig.na Dott Dr Dott.ssa Prof Prof.ssa Avv Ing Arch Geom Rag On Sen
        ecc pag pagg p pp art cap cfr es ecc fig n num tel vol ca gen feb mar apr giu lug ago sett
        ott nov dic S Sta Sto ca cit ediz min max""".split(),
    "pl": """np itd itp tzw tj godz ul al pl ok ks dr prof doc mgr inż hab lek płk gen por kpt
        pkt ust art rozdz str s nr tel tys mln mld zł gr wg ww jw tzn m.in cdn dot ds red wyd
        sp zob por im św bł r w ur zm""".split(),
    "nl": """dhr mevr mw mr dr drs ir ing prof bv nv vs nr blz bijv bv vgl dwz enz etc evt
        ca jl jr sr st mln mld min max incl excl resp tel afd art hfst ca mevr Bijv Zie zgn
        jan feb mrt apr jun jul aug sep sept okt nov dec""".split(),
    "pt": """Sr Sra Srta Dr Dra Prof Profa Eng Exmo Exma pág págs p pp n nº art cap etc ex vol tel
        av Av jan fev mar abr mai jun jul ago set out nov dez aprox""".split(),
    "ru": "т.е т.к т.д т.п др пр см г гг ул д стр им тыс млн млрд руб коп проф акад".split(),
    "sv": "bl.a t.ex m.m osv o.s.v s.k p.g.a fr.o.m t.o.m ca kl nr resp jfr dvs mfl".split(),
    "da": "bl.a f.eks m.m osv ca kl nr jf dvs mht vedr ca".split(),
    "nb": "bl.a f.eks m.m osv ca kl nr jf dvs mht vedr pga".split(),
    "fi": "esim ks mm n nk ns os yms jne tms ts vrt".split(),
    "hu": "pl stb ún kb ill vö Dr dr sz u krt ford".split(),
    "sl": "npr itd ipd tj oz dr prof mag št sv cca".split(),
    "hr": "npr itd tj tzv dr prof mr sv br god st".split(),
    "ro": "dl dna dr prof nr art pag etc ș.a ș.a.m.d".split(),
}
# abbreviations that often end a sentence ("apples, pears, etc."): a boundary after them only
# before a capitalised stop word ("etc. The", "usw. Dann")
_TERMINAL = set("""etc usw usf uvm atd apod atp aj atď itd itp ecc enz etc. jne stb osv a.m p.m
    ff dgl""".split())
# units and quantities: often the last word of a sentence ("stálo to 5 tis. Pak ..."), so they
# end one before a capitalised function word, and never before a noun ("100 Mio. Euro")
_UNITS = frozenset("""tis mil mld min max hod sb str roč mio mrd tsd std jh jhd jhdt mln tys
    tel ca cca stol""".split())
# degrees written after a name ("Petr Malý, CSc."): inside a sentence a comma or a lower-case
# word follows them, so before a capital they end one
_POSTNOMINAL = frozenset("CSc DrSc DiS MBA".split())
# languages whose ordinal numbers are written with a period ("3. Oktober", "21. století")
ORDINAL_LANGS = frozenset("de cs sk pl sl hr sr bs sh hu fi da nb nn no is et lv lt tr fo lb".split())
_MONTHS = set("""
januar februar märz april mai juni juli august september oktober november dezember jänner feber
jan feb mär apr jun jul aug sep sept okt nov dez
ledna února března dubna května června července srpna září října listopadu prosince
leden únor březen duben květen červen červenec srpen říjen listopad prosinec
januára februára marca apríla mája júna júla augusta septembra októbra novembra decembra
stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia
januar februar marts april maj juni juli august september oktober november december
tammikuuta helmikuuta maaliskuuta huhtikuuta toukokuuta kesäkuuta heinäkuuta elokuuta syyskuuta
lokakuuta marraskuuta joulukuuta januára
""".split())
_NOUN_CAPS = frozenset(("de", "lb", None))
_BANG_NAMES = frozenset(("Yahoo", "Jeopardy", "Wham"))
MIN_WORD = 4
# languages whose abbreviations are short, so that any word of MIN_WORD letters before a period
# and a lower-case word is taken as a word ending a sentence ("kicked by cats. they look ..."); in
# Czech, Slovak, Polish or German truncations of four and more letters are common (předs., techn.,
# Abschn.): there only a stop word counts
_SHORT_ABBR_LANGS = frozenset(("en",))
_ROMAN_UPPER = re.compile(r"^[IVXLC]{1,5}$")
_ROMAN = re.compile(r"^[IVXLCDM]+$|^[ivxlcdm]{1,4}$")

# the full stops and question marks of other scripts: Arabic question mark, Urdu full stop,
# Devanagari (Hindi, Marathi, Nepali ...) danda and double danda, Armenian full stop, Ethiopic full
# stop and question mark, Myanmar and Khmer full stops. None of them abbreviates, so they end a
# sentence as "!" and "?" do
_SCRIPT_END = "؟۔।॥։።፧။។៕"
_END_CHARS = frozenset(".!?…‼⁇⁈⁉。！？" + _SCRIPT_END)
_CJK_END = frozenset("。！？")
# end punctuation after which any word, even a lower-case one, starts a sentence
_QUESTION_BANG = frozenset("!?‼⁇⁈⁉" + _SCRIPT_END)
# Greek writes its question mark as ";" (U+037E, which NFC makes ";"); its semicolon is "·"
_GREEK_QUESTION = frozenset(";\u037e")
# closing quotes and brackets: always closing / closing when glued to the punctuation
_CLOSE_ALWAYS = frozenset(")]}”»›」』）】〕〉》")
_CLOSE_GLUED = frozenset("\"'’“‘«‹`")
# what may precede a sentence's first word
_OPENERS = frozenset("\"'`“”„‚‘’«»‹›([{¿¡-–—•*·►▪→#")
_MIDDLE = frozenset(",;:)]}%/&=+|")
# an emoticon the tokenizer keeps whole (tokenizer.EMOTICON), or its pieces glued (":", "-", ")"),
# as tokens from elsewhere may come
_EMOTICON = re.compile(r"(?:[:;=][-'^]?[)(\]\[DPpOo/\\|]{1,3}|</?3)").fullmatch
_EMOTICON_EYES = frozenset(":;=8")
_EMOTICON_REST = frozenset(")(-DPpOo/|][3*^'")


def _is_end(tok: str) -> bool:
    return tok[0] in _END_CHARS and all(c in _END_CHARS for c in tok)


@functools.lru_cache(maxsize=None)
def _abbreviations(lang: str | None) -> tuple[frozenset, frozenset]:
    """(exact forms, lower-case forms) of the abbreviations for ``lang``, without the period."""
    if lang in ABBREVIATIONS:
        words = list(ABBREVIATIONS[lang]) + _UNIVERSAL
    else:
        words = [w for ws in ABBREVIATIONS.values() for w in ws] + _UNIVERSAL
    words = [w.rstrip(".") for w in words]
    exact = frozenset(words)
    lower = frozenset(w for w in words if w.islower())
    return exact, lower


_STOP_FALLBACK = ("en", "de", "fr", "es", "it", "cs", "pl", "nl")


@functools.lru_cache(maxsize=None)
def _stopwords(lang: str | None) -> frozenset:
    """Lower-case stop words of ``lang`` (the jusText stoplist), or of a few languages."""
    try:
        from ..language.stoplists import has_stoplist, stoplist
    except Exception:   # pragma: no cover - the package is always there
        return frozenset()
    if lang and has_stoplist(lang):
        return frozenset(stoplist(lang))
    out: set[str] = set()
    for code in _STOP_FALLBACK:
        out |= stoplist(code)
    return frozenset(out)


def _norm_lang(lang: str | None) -> str | None:
    if not lang:
        return None
    lang = lang.lower().replace("_", "-").split("-")[0]
    return {"no": "nb", "cz": "cs"}.get(lang, lang)


def sentence_spans(tokens: list[str], glue: list[bool] | None = None,
                   lang: str | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` token spans of the sentences of one paragraph (see the module doc).

    ``glue[i]`` tells whether token ``i`` followed token ``i - 1`` without white space
    (:func:`~corpustool.text.tokenizer.tokenize`); without it, every token is taken as
    preceded by a space.
    """
    n = len(tokens)
    if n == 0:
        return []
    if glue is None:
        glue = [False] * n
    lang = _norm_lang(lang)
    spans: list[tuple[int, int]] = []
    start = 0
    counted = [0, 0]                            # straight quotes in tokens[:counted[0]]: counted[1]

    def quotes_before(k: int) -> int:
        # counted on from the last call (k only grows), so a paragraph is scanned once
        counted[1] += tokens[counted[0]:k].count('"')
        counted[0] = k
        return counted[1]

    i = 0
    while i < n:
        tok = tokens[i]
        c0 = tok[0]
        if (c0 in _END_CHARS and _is_end(tok)) or (tok in _GREEK_QUESTION and lang == "el"):
            word = None
        elif tok[-1] == "." and len(tok) > 1 and tok[-2] != ".":
            word = tok[:-1]                     # an abbreviation token from the tokenizer ("Mr.", "U.S.")
        else:
            whole = c0 in _EMOTICON_EYES or c0 == "<"
            whole = whole and len(tok) > 1 and _EMOTICON(tok) is not None
            if whole and i > start or (c0 in _EMOTICON_EYES and len(tok) == 1 and i + 1 < n and glue[i + 1]
                                       and tokens[i + 1] in _EMOTICON_REST and i > start):
                # an emoticon ending a sentence without punctuation: "community :-) Posted by"
                j = i + 1 if whole else i + 2
                while j < n and glue[j] and tokens[j] in _EMOTICON_REST:
                    j += 1
                if j < n and not glue[j] and tokens[j][0].isupper():
                    spans.append((start, j))
                    start = j
                i = j
                continue
            i += 1
            continue
        # the run that ends the sentence: more end punctuation, closing quotes and brackets, emoticons
        j = i + 1
        closed_quote = False
        cjk = c0 in _CJK_END
        while j < n:
            t = tokens[j]
            g = glue[j]
            if _is_end(t) and (g or t != tok):
                cjk = cjk or t[0] in _CJK_END
                j += 1
            elif t in _CLOSE_ALWAYS and (g or t == "”" or (t == "»" and lang == "fr")):
                closed_quote = True
                j += 1
            elif t in _CLOSE_GLUED and g:
                closed_quote = True
                j += 1
            elif t == '"' and (j + 1 == n or not glue[j + 1]) and quotes_before(j) % 2 == 1:
                # a straight quote with spaces on both sides closes the quotation left open before
                # it (' Řekl: " Přijdu. " Pak odešel.'); with an even number before it, or glued
                # to the next word ('. "The'), it opens one
                closed_quote = True
                j += 1
            elif (t[0] in _EMOTICON_EYES or t[0] == "<") and len(t) > 1 and _EMOTICON(t) is not None:
                j += 1
            elif (t in _EMOTICON_EYES and j + 1 < n and glue[j + 1]
                  and tokens[j + 1] in _EMOTICON_REST and (j + 2 >= n or not glue[j + 2]
                                                           or tokens[j + 2] in _EMOTICON_REST)):
                j += 2
                while j < n and glue[j] and tokens[j] in _EMOTICON_REST:
                    j += 1
            else:
                break
        if j >= n:
            break
        if _boundary(tokens, glue, start, i, j, word, closed_quote, cjk, lang):
            spans.append((start, j))
            start = j
        i = j
    if start < n:
        spans.append((start, n))
    return spans


def _next_word(tokens: list[str], j: int) -> str:
    """The first token from ``j`` on that is not an opening quote, bracket or bullet ("" at the end)."""
    n = len(tokens)
    while j < n and tokens[j] in _OPENERS:
        j += 1
    return tokens[j] if j < n else ""


def _boundary(tokens, glue, start, i, j, word, closed_quote, cjk, lang) -> bool:
    """Is there a sentence boundary before token ``j``? ``tokens[i]`` is the end punctuation
    (or an abbreviation token ending in a period, whose letters are ``word``)."""
    if cjk:
        return True
    if glue[j]:                                  # "3.5" is one token, but "end.Next", ".)" ...
        return False
    nxt = tokens[j]
    if nxt[0] in _MIDDLE:
        return False
    # content of the sentence so far: never a sentence of end punctuation alone or a list number
    content = [t for t in tokens[start:i] if t[0].isalnum()]
    if word is None and not content:
        return False
    if word is None and len(content) == 1 and i - start == 1 and glue[i]:
        c = content[0]
        if c.isdigit() or len(c) == 1 or _ROMAN.match(c):
            return False                         # "1. Einleitung", "a. ...", "IV. ..."
    w = _next_word(tokens, j)
    if not w:
        return True
    w0 = w[0]
    upper = w0.isupper()
    lower = w0.islower()
    if "://" in w or w.startswith("www."):
        upper, lower = True, False                # a URL
    elif not upper and not lower:
        if w0.isdigit() or w0 in _OPENERS:
            upper = True                          # a number, a bullet: a new sentence
        elif w0.isalpha():                        # caseless scripts (Arabic, Hebrew, Devanagari...)
            upper = True
        else:
            return False
    p = tokens[i]
    if word is None:
        if p[0] == "." and len(p) >= 2:           # "..", "...", "...."
            return upper
        if p[0] == "…":
            return upper
        if p[0] in _QUESTION_BANG or (p in _GREEK_QUESTION and lang == "el"):
            prev = tokens[i - 1] if i > start else ""
            if glue[i] and prev and prev[0] in _MIDDLE:
                return False                     # "Dial:?" (a broken character), "(!)"
            if upper:
                return True
            if glue[i] and prev in _BANG_NAMES:
                return False                     # "Yahoo! and AOL"
            return not closed_quote              # "where did you grow up? india?" but „Kommst du?“ fragte er
        # a single period
        if not glue[i] or i == start:
            return upper or (lower and not closed_quote)    # "cats . they ..."
        word = tokens[i - 1]
        if word[-1] == "." or not (word[0].isalnum()):
            return upper                         # "Inc..", "(see below)."
        if lang in ORDINAL_LANGS and _day_month(tokens, glue, i, j):
            return False                         # "ve čtvrtek 3. 5. jsme", "am 3. 5. 2020"
        before = tokens[i - 2] if i - 2 >= start else ""
    else:
        before = tokens[i - 1] if i > start else ""
    return _after_period(word, before, w, upper, closed_quote, lang)


def _day_month(tokens, glue, i, j) -> bool:
    """Is the period ``tokens[i]`` inside a date written with numbers: after its day ("3. 5.")
    or after its month before the year ("3. 5. 2020")?"""
    def number(k, top):
        t = tokens[k] if 0 <= k < len(tokens) else ""
        return len(t) <= 2 and t.isdigit() and 1 <= int(t) <= top

    def period(k):
        return k < len(tokens) and tokens[k] == "." and glue[k]

    if number(i - 1, 31) and number(j, 12) and period(j + 1):
        return True
    year = tokens[j]
    return (len(year) == 4 and year.isdigit() and number(i - 1, 12) and i >= 3 and period(i - 2)
            and number(i - 3, 31))


def _after_period(word: str, before: str, w: str, upper: bool, closed_quote: bool, lang) -> bool:
    """Boundary after ``word`` + "." before the word ``w`` (``upper``: a capital, digit ...)?"""
    exact, lower_abbr = _abbreviations(lang)
    base = word.lower()
    if "/" in word or "@" in word or word[:4].lower() == "www.":
        return upper                              # a URL, an e-mail address
    if closed_quote and upper and len(word) > 1:
        return True                               # "(220 South Michigan Ave.) Does"
    if word[0].isdigit() and not word.isdigit():
        return upper                              # "2.7. Both", "1990s. The"
    if word.isdigit():
        if not upper:
            return False                          # "3. the", "21. století"
        if lang in ORDINAL_LANGS and len(word) <= 3:
            if w.lower() in _MONTHS:
                return False                      # "3. Oktober", "1. ledna"
            if (lang in _NOUN_CAPS and before and before.lower() in _stopwords(lang)
                    and not _capital_stop(w, lang)):
                return False                      # "am 3. Tag", "Der 2. Weltkrieg" but "bis 3. Dann"
            # elsewhere nouns are not capitalised: "je jich 25. Mezi nimi ..." ends a sentence
        return True
    if lang in ORDINAL_LANGS and _ROMAN_UPPER.match(word) and before[:1].isupper() \
            and not _capital_stop(w, lang):
        return False                              # "Karel IV. Lucemburský", "Ludwig II. von Bayern"
    if len(word) == 1 and word.isalpha():
        return False                              # initials, "z. B.", "d. h."
    if not word[0].isalpha() and not word[0].isdigit():
        return upper
    if "." in word:                               # dotted: "U.S", "e.g", "z.B", "a.m"
        if word in exact or (word.islower() and base in lower_abbr):
            return base in _TERMINAL and _capital_stop(w, lang)
        if word.islower() or (len(word) <= 4 and not word.isupper()):   # "e.g", "i.e", "d.h", "z.B"
            return base in _TERMINAL and _capital_stop(w, lang)
        return _capital_stop(w, lang)             # "U.S. The" but "U.S. President"
    if base in _TERMINAL:
        # "etc. The": in languages that capitalise nouns only before a stop word ("usw. Dann")
        return w[:1].isupper() and (lang not in _NOUN_CAPS or _capital_stop(w, lang))
    if base in _UNITS:
        return _capital_stop(w, lang)             # "5 tis. Pak ..." but "max. 10 osob", "100 Mio. Euro"
    if word in _POSTNOMINAL:
        return upper                              # "Petr Malý, CSc. Diskuse ..."
    if word in exact or (base in lower_abbr and word[1:].islower()):
        return False
    if upper:
        return True
    if closed_quote:
        return False
    # a lower-case start: a new sentence in web text unless the period ends an abbreviation
    # we do not know ("Mio. Euro", "tis. korun"): take a stop word or a longer word as a word
    if not word.isalpha():
        return False
    if (len(word) >= MIN_WORD and lang in _SHORT_ABBR_LANGS) or (len(word) >= 2 and base in _stopwords(lang)):
        return True
    return len(word) >= 3 and w.lower() in _stopwords(lang) and w.isalpha()


# function words that often start a sentence (articles, pronouns, conjunctions, adverbs)
STARTERS: dict[str, str] = {
    "en": "the a an this that these those it i we you he she they there here his her its our their my "
          "but and so then however also in on at for if when while after before as what how why "
          "who which no yes thanks please",
    "de": "der die das den dem des ein eine einen einem einer es er sie wir ich ihr du man dies diese "
          "dieser dieses das dann danach aber und auch doch so da dort hier in im am an auf bei mit "
          "nach seit von vom zum zur für wenn als wie was wer warum weil denn jedoch trotzdem nun "
          "damit deshalb daher außerdem ja nein kein keine",
    "cs": "to ten ta tento tato toto tak pak ale a i v ve na do z ze s se já my on ona ono oni jsem "
          "je jsou byl byla bylo když protože proto však také takže tedy jak co kdo proč kde už "
          "potom nyní dnes ano ne dále poté navíc rovněž zároveň přesto tehdy nakonec",
    "sk": "to ten tá tento táto toto tak potom ale a aj v vo na do z zo s so ja my on ona ono oni "
          "som je sú bol bola bolo keď pretože preto však tiež takže teda ako čo kto prečo kde už "
          "teraz dnes áno nie",
    "fr": "le la les un une des ce cette ces il elle ils elles nous vous je on c mais et puis alors "
          "donc ensuite dans en à au pour si quand comme que qui pourquoi oui non",
    "es": "el la los las un una unos unas este esta estos estas eso esto él ella ellos nosotros yo "
          "pero y entonces luego después en a para si cuando como que quien por sí no también",
    "it": "il lo la i gli le un uno una questo questa questi quello quella lui lei loro noi io ma e "
          "poi allora quindi in a per se quando come che chi perché sì no anche",
    "pl": "to ten ta te tak potem ale a i w we na do z ze jest był była było ja my on ona ono oni "
          "gdy kiedy bo ponieważ dlatego jednak także więc jak co kto dlaczego gdzie już teraz "
          "dziś tak nie",
    "nl": "de het een dit dat deze die hij zij ze wij we ik jij je u maar en dan daarna ook dus in "
          "op aan voor als wanneer hoe wat wie waarom waar er hier ja nee",
}


@functools.lru_cache(maxsize=None)
def _starters(lang: str | None) -> frozenset:
    if lang in STARTERS:
        return frozenset(STARTERS[lang].split())
    return frozenset(w for ws in STARTERS.values() for w in ws.split())


def _capital_stop(w: str, lang) -> bool:
    """A capitalised function word ("The", "Dann", "Tak"): starts a sentence after "etc."."""
    return w[:1].isupper() and (len(w) == 1 or not w.isupper()) and w.lower() in _starters(lang)
