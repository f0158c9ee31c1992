"""The vocabulary of site templates: what a short line's words say it is.

Structure (regions, the main-content block) settles most of a page; what is
left are lines inside the article that belong to the site, not to the text:
calls to action ("Share this", "Subscribe to our newsletter"), the titles of
related-article and author boxes, advertising labels and disclosures,
picture credits and captions, datelines and blog-engine post lines,
copyright and licence notices, disclaimers and consent placeholders of
embedded posts. Each is recognised by the words web templates use for it
in the most common languages of the corpora (English, German, French,
Spanish, Portuguese, Polish); none names a site.

The patterns match lower-cased text: matching a lower-cased line without
IGNORECASE is several times cheaper in Python's ``re``, and
:func:`line_verdict` runs for most short paragraphs of every page.
"""
from __future__ import annotations

import re
from functools import lru_cache

_DATE = re.compile(
    r"\b(\d{1,2}[./-]\s?\d{1,2}[./-]\s?\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}\.?\s+\w+\.?\s+\d{4}|\w+\.?\s+\d{1,2},?\s+\d{4}"
    r"|\d{1,2}:\d{2})\b")
_MONTHS = frozenset("""jan feb mar apr may jun jul aug sep sept oct nov dec january february march april june july
august september october november december januar februar märz maerz mai juni juli oktober dezember janvier février
mars avril juin juillet août septembre octobre novembre décembre enero febrero marzo abril mayo junio julio agosto
septiembre octubre noviembre diciembre styczeń stycznia lutego marca kwietnia maja czerwca lipca sierpnia września
października listopada grudnia""".split())


# words that introduce a picture credit or a source line ("Foto: dpa", "Quelle: ...",
# "Photo: Reuters"), in the stoplist languages' most common forms
_CREDIT = re.compile(
    r"(?:^|[\s(|.,;])(?:foto|fotos|bild|bilder|bildquelle|fotoquelle|titelbild|grafik|abbildung|abb|photo|photos"
    r"|image|images|picture|pictures|credit|credits|crédit|crédits|source|quelle|fuente|imagen|imágenes|zdjęcie"
    r"|źródło|fonte|crédito|créditos|kuva|kuvat|фото|foto\w*)\s?:\s*\S")
MAX_CREDIT_CHARS = 200


# a photo caption's marks: who stands where ("(l.)", "(v.l.)"), a symbolic or archive picture
_CAPTION_PLACE = (r"\((?:l|r|li|re|m|links|rechts|mitte|left|right|center|centre|v\.\s?l|v\.\s?r|from left|"
                  r"de izq\.?|izq|der|g|d|à gauche|à droite)\.?\)")
_CAPTION_WORDS = (r"\b(?:symbolbild|symbolfoto|archivbild|archivfoto|imagen de archivo|photo d'archive|file photo)\b"
                  # a picture's caption after its lightbox button ("Vergrößern Eine kleine ...")
                  r"|^\W*(?:bild )?(?:vergrößern|enlarge|ampliar|agrandir|powiększ)\b")
# a caption's mark is either (two patterns, each behind its own bit of the gate): the places' required string is "(", on every fourth short line, and
# their search skips to the "(" (its first item), the words' tries every position
_CAPTION_PLACE, _CAPTION_WORDS = re.compile(_CAPTION_PLACE), re.compile(_CAPTION_WORDS)
# a numbered figure's caption ("Abbildung 8: ...", "Fig. 2.")
_FIGURE_CAPTION = re.compile(r"^\W*(?:abbildung|abb|figure|fig|grafik|tabelle|table|ilustración|figura|rysunek)"
                             r"\.?\s*\d+\s*[:.]")


def looks_like_credit_line(text: str, low: str | None = None, gate: int = -1) -> bool:
    """A short line naming a picture's author or a source: a caption's credit, not running text
    (``low``: the text lower-cased, when the caller has it; the patterns match lower-case text;
    ``gate``: :data:`GATE`'s mask of the patterns that can match ``low``)."""
    # (every credit has a colon: most lines are settled without the pattern)
    if len(text) >= MAX_CREDIT_CHARS:
        return False
    low = text.lower() if low is None else low
    return bool(gate & G_CREDIT and ":" in low and _CREDIT.search(low) is not None
                or gate & G_AGENCY_PAREN and _AGENCY_PAREN.search(low) is not None
                or gate & G_FIGURE and _FIGURE_CAPTION.match(low) is not None
                or gate & G_CAPTION_PLACE and _CAPTION_PLACE.search(low) is not None
                or gate & G_CAPTION_WORDS and _CAPTION_WORDS.search(low) is not None)


_DIGIT = re.compile(r"\d").search
# what every match of _DATE contains (each of its forms has "\d[./-]\s?\d", "\d:\d" or four digits):
# a search that starts at digits only (its first item is \d: re skips to them), several times
# cheaper than _DATE's, which tries every position, settles a third of the lines with a digit
_DATE_HINT = re.compile(r"\d(?:[-./:]\s?\d|\d\d\d)")
# a number and a month's name among the words of a lower-cased line, its runs of ASCII letters and
# digits (the lookbehinds come after the first character: re then skips to the possible ones)
_NUMBER_WORD = re.compile(r"[0-9](?<![a-z0-9][0-9])[0-9]*(?![a-z0-9])")
_MONTH_WORD = re.compile("(?:%s)(?![a-z0-9])" % "|".join(
    f"{m}(?<![a-z0-9]{m})" for m in sorted(m for m in _MONTHS if re.fullmatch("[a-z]+", m))))


# what a page asks its reader to do with it (share, rate, print, subscribe, log in,
# comment), in the most common languages' words; stems match inflections. Ambiguous
# words ("share" of a market, "print" edition) only in phrases.
_ACTION = re.compile(
    r"\b(?:share this|subscrib\w*|newsletter\w*|sign(?:ing)? up|log(?:ged)? ?in|sign in|rate this|"
    r"comment(?:s|ing)?|teilen|abonnier\w*|einlogg\w*|eingeloggt|anmeld\w*|registrier\w*|kommentier\w*|"
    r"bewert\w*|drucken|compartir|suscríbe\w*|comenta\w*|valora|partager|abonne\w*|commente\w*|"
    r"udostępnij|subskryb\w*|zaloguj\w*|compartilh\w*|assine|support us|donate|unterstütze\w*|spende\w*|"
    r"become a member|mitglied werden|hazte miembro|subskrypcj\w*|"
    r"folg(?:en sie|t) uns|síguenos|suivez-nous|obserwuj nas|"
    r"nichts mehr (?:verpassen|versäumen)|verpasse nichts|never miss|don't miss (?:a|any)|"
    # feedback widgets and read-aloud players
    r"(?:war|ist) (?:der|dieser|die|diese) (?:artikel|beitrag|text|seite|information\w*) (?:hilfreich|nützlich)|"
    r"was this (?:article|page|post|answer|information) (?:helpful|useful)|"
    r"(?:te|le) (?:ha )?(?:resultó|resulto|fue|sido) útil|cet article (?:vous )?a-t-il été utile|"
    r"czy (?:ten )?artykuł był (?:pomocny|przydatny)|"
    r"listen to (?:this|the) (?:article|story)|(?:artikel|beitrag) (?:anhören|vorlesen)|"
    r"escuch(?:a|ar) (?:esta|la) (?:nota|noticia)|écouter (?:cet|l'|l’)\s?article|posłuchaj)\b")
MAX_ACTION_WORDS = 12

# what the site asks of its reader in phrases no article text uses, in lines of any length
# under 200 characters: get its app, join its channel, subscribe to it, support it,
# write to its editor, visit its shop; and its post navigation and text toggles
_SITE_ACTION_PARTS = (
    r"(?:download|get|install) (?:the|our) (?:\w+ ){0,2}apps?\b|with the (?:\w+ ){1,3}app\b|app herunterladen",
    r"(?:nuestro|nuestra|tenemos|tenemos un) canal de (?:youtube|telegram|whatsapp)|our (?:youtube|telegram|whatsapp) channel",
    r"unseren? (?:youtube|telegram|whatsapp)[- ]?kanal",
    r"already (?:a )?subscriber|bereits abonnent\w*|ya eres suscriptor|déjà abonné",
    r"support(?:ing)? our (?:work|journalism)|unterstütz\w* (?:unsere|unseren) (?:arbeit|journalismus)",
    r"letters? to the editor|leserbrief\w*",
    r"e-?mail-?adresse ein|enter your e-?mail",
    r"werden sie mitglied|werde mitglied|jetzt mitglied",
    r"besuchen sie unser\w*|visit our (?:shop|store)",
    r"(?:nächste[rn]?|vorherige[rn]?) (?:artikel|beitrag)|(?:next|previous) (?:article|post)\b",
    r"article (?:suivant|précédent)|(?:siguiente|anterior) (?:artículo|nota)",
    r"(?:quellen|text|details?) (?:ausblenden|einblenden)|(?:mehr|weniger) anzeigen|show (?:more|less)\b",
    r"entdeck(?:e|en sie) (?:jetzt|weitere|mehr)",
    r"to (?:view|read|continue reading) the (?:full|whole|rest of the) (?:story|article)|please subscribe",
    r"follow (?:us|\w+(?: \w+)?) on (?:twitter|facebook|instagram|x)\b",
    r"zapraszamy (?:też |również )?do (?:subskrypcji|obserwowania)|mit diesem button",
    r"hinterlasse (?:einfach |gerne )?einen kommentar|leave a comment|deja (?:un|tu) comentario",
    r"laissez un commentaire|zostaw komentarz|klick(?:e|t)? (?:dich|euch) durch",
    r"(?:teilen sie|teil) uns .{0,40}mit\b",
    r"^\W*(?:externer inhalt|external content|contenido externo|contenu externe)\W*$",
)
# its parts (the lines above), each behind its own bit of the gate: a line has a match of
# _SITE_ACTION when it has one of a part, and most lines the gate lets through have one of the
# parts' common strings ("teil", "letter", "app", "with"), whose part alone is searched, a fraction
# of the whole pattern's cost (re tries each position against every alternative)
_SITE_ACTION_PARTS = tuple(re.compile(r"\b(?:%s)" % part) for part in _SITE_ACTION_PARTS)


def looks_like_call_to_action(text: str, words: int | None = None) -> bool:
    """A short line asking the reader to share, rate, print, subscribe, log in or comment."""
    n = len(text.split()) if words is None else words
    return n <= MAX_ACTION_WORDS and _ACTION.search(text.lower()) is not None


# the words that announce links to other pages ("More on this topic", "Lesen Sie auch")
_RELATED = re.compile(
    r"^\W*(?:more on|more from|more about|read more|read also|see also|related\w*|you (?:may|might) also like|"
    r"recommended|mehr zum thema|mehr zu|mehr von|mehr aus|lesen sie (?:auch|mehr)|lies auch|auch interessant|"
    r"das könnte (?:sie|dich|euch) auch interessieren|weitere (?:artikel|beiträge|themen|news|nachrichten)|"
    r"weitere informationen\w*|weitere \w*tipps|mehr \w+ (?:auf|bei) |"
    # the titles of the boxes about the author, the series, the press office
    r"über (?:den|die) autor\w*|über diese (?:reihe|serie)|about the authors?|about this series|"
    r"sobre (?:el|la) autora?|à propos de l'auteur|o autorze|pressekontakt|press contact|media contact|"
    r"pressesprecher\w*|"
    r"(?:ähnliche|verwandte) (?:artikel|beiträge|themen)|vous aimerez aussi|à lire aussi|lire aussi|voir aussi|sur le même sujet|"
    r"veja também|leia também|leia mais|contenido relacionado|noticias relacionadas|te puede interesar|"
    r"lee también|leer más|czytaj (?:także|też|więcej)|zobacz (?:też|także)|polecane|"
    r"notas relacionadas|artículos relacionados|artigos relacionados|meistgelesen\w*|meistdiskutiert\w*|"
    r"meistgeklickt\w*|most read|most popular|editor'?s picks|die redaktion empfiehlt|unsere empfehlung\w*|"
    r"verwandte themen\w*|zobacz również|lire la suite|weiterlesen|continue reading|seguir leyendo|"
    r"continuar lendo|czytaj dalej)\b")
MAX_RELATED_WORDS = 8


# a line that is only the label over an advertisement
_AD_LABEL = re.compile(r"^\W*(?:anzeige|werbung|reklama|advertisement|advertising|publicidad|publicité|publicidade|"
                       r"sponsored|gesponsert|pubblicità)(?:\W*$|\s*[-–—|:]\s)")
# a line declaring the text's links or products paid for ("Anzeige, enthält Affiliate Links",
# "Dieser Beitrag enthält Werbung", "Für Links auf dieser Seite erhält X eine Provision")
_AD_DISCLOSURE = re.compile(r"\b(?:(?:enthält|contains?|contiene|contient) (?:\w+ )?(?:affiliate|werbe|sponsored|referral|"
                            r"partner|afiliad\w*|affiliés?)[- ]?(?:links?|enlaces|liens)|"
                            r"enthält (?:unbezahlte |bezahlte )?werbung|contains (?:paid )?advertising|"
                            r"(?:erhält|erhalten) (?:\w+ ){0,2}(?:ggf\. |gegebenenfalls |eventuell )?eine provision|"
                            r"(?:earn|receive) (?:a )?(?:small )?(?:affiliate )?(?:commission|compensation)|"
                            r"affiliate[- ]?links?|enlaces de afiliados?|liens affiliés|"
                            r"(?:one or more of )?our advertisers|advertiser disclosure|"
                            r"advertisers do not influence)\b")
# a template's unrendered markup ("{{^topArticle}}", "{{ title }}")
_UNRENDERED = re.compile(r"\{\{[#^/!]?\s*[\w.]+\s*\}\}")
# the placeholder of an embedded post or video that waits for the reader's consent
_CONSENT = re.compile(r"\b(?:(?:wir respektieren|we respect) (?:deine |ihre |your )?(?:privatsphäre|privacy)|"
                      r"ohne (?:dein|ihr) einverständnis keine verbindung|"
                      r"(?:durch|mit) (?:dem|einem) klick auf .{0,40}(?:inhalt|video|beitrag).{0,40}"
                      r"(?:einverstanden|zustimmen|stimmen sie zu)|"
                      r"by (?:clicking|loading) .{0,40}(?:content|video|post).{0,60}(?:you )?(?:agree|accept|consent)|"
                      r"(?:ich bin|i agree|i accept|ich stimme) .{0,80}(?:datenschutz|privacy)|"
                      r"(?:werden|wird) ihre (?:angaben|daten) .{0,120}(?:gespeichert|verarbeitet)|"
                      # medical and legal disclaimers
                      r"(?:does|do|is|are) not (?:offer|provide|constitute|a substitute for) (?:\w+ )?(?:medical|legal|"
                      r"financial|professional) advice|ersetzt? (?:keine|nicht die) (?:ärztliche|medizinische) beratung|"
                      r"entspricht den vorgaben der (?:ärztlichen )?fachliteratur|medically reviewed)",
                      re.DOTALL)
# a copyright notice in words
_RIGHTS = re.compile(r"\b(?:all rights reserved|alle rechte vorbehalten|todos los derechos reservados|"
                     r"tous droits réservés|wszelkie prawa zastrzeżone|chroniony prawem autorskim|"
                     r"todos os direitos reservados|urheberrechtlich geschützt|"
                     # licences, disclaimers, citation lines
                     r"cc[- ]by(?:[- ](?:sa|nc|nd))*|(?:licensed|published) under (?:a |the )?(?:cc|creative commons|licen[cs]e)|"
                     r"unter der lizenz|"
                     r"gibt (?:nur )?die meinung de[sr] autor\w* wieder|(?:reflects?|represents?) (?:only )?the "
                     r"(?:views?|opinions?) of the author|the views expressed|las opiniones expresadas|"
                     r"les opinions exprimées|ohne gewähr|suggested citation|zitiervorschlag|how to cite)\b")


# picture agencies and stock libraries named in a caption's credit ("Berlin / Shutterstock");
# not names that are also words or other bodies ("apa" is Indonesian, EPA an agency in the news)


def looks_like_rights_line(low: str, gate: int = -1) -> bool:
    """A short line (lower-cased) with a copyright, licence or disclaimer notice in words or "(c)"
    (the gate's G_MARKS is set whenever the line has a "(c)")."""
    return len(low) < 200 and (bool(gate & G_MARKS) and "(c)" in low
                               or bool(gate & G_RIGHTS) and _RIGHTS.search(low) is not None)


_AGENCY = re.compile(r"\b(?:shutterstock|getty ?images|getty|istock\w*|adobe ?stock|imago|picture[ -]alliance|"
                     r"unsplash|pixabay|pexels|123rf|fotolia|dpa|afp|reuters|ap photo)\b")
MAX_AGENCY_WORDS = 8
# an agency credit in parentheses at a caption's end ("(REUTERS/Denis Balibouse)")
_AGENCY_PAREN = re.compile(r"\((?:[^()]*/\s*)?(?:reuters|afp|dpa|efe|getty images|ap photo|epa|ansa|imago|"
                           r"picture[ -]alliance|shutterstock)\b[^()]*\)\s*$")
MIN_UI_REPEATS = 3          # the same short line three times on a page: a control's label
MAX_UI_WORDS = 5


def notice(low: str, gate: int = -1) -> str | None:
    """The reason a paragraph (lower-cased) is a notice of the site's (advertising disclosure,
    consent placeholder), or None."""
    if gate & G_AD_DISCLOSURE and _AD_DISCLOSURE.search(low):
        return "boilerplate:ad"
    if gate & G_CONSENT and _CONSENT.search(low):
        return "boilerplate:consent"
    return None


def _site_action(text: str, gate: int = -1) -> bool:
    """Whether ``text`` has a match of :data:`_SITE_ACTION`: a search of each of its parts the gate
    lets through."""
    bits = gate & G_SITE_ACTION
    while bits:
        bit = bits & -bits          # (the lowest bit set)
        if _SITE_ACTION_BY_BIT[bit].search(text) is not None:
            return True
        bits ^= bit
    return False


def _template_reason(text: str, heading: bool, keep_meta: bool, low: str | None,
                     gate: int = -1) -> tuple[str | None, bool]:
    """The reason a short line belongs to the page's template, or None, and whether the line
    is short enough to be a control's label when its page repeats it (``low``: the text
    lower-cased, when the caller has it)."""
    # the patterns match lower-case text (several times faster than IGNORECASE), with one
    # space between words (no-break spaces between the words of a phrase)
    text = " ".join((text.lower() if low is None else low).split())
    found = notice(text, gate)
    if found:
        return found, False
    if "{{" in text and _UNRENDERED.search(text):
        return "boilerplate:template", False
    if gate & G_SITE_ACTION and _site_action(text, gate):
        return "boilerplate:action", False
    words = text.count(" ") + 1 if text else 0     # (one space between words)
    if words > MAX_ACTION_WORDS:
        return None, False
    if gate & G_ACTION and _ACTION.search(text):
        return "boilerplate:action", False
    if words <= MAX_RELATED_WORDS and gate & G_RELATED and _RELATED.search(text):
        return "boilerplate:related", False
    if gate & G_AD_LABEL and _AD_LABEL.match(text) and (words <= 3 or not text.rstrip().endswith(".")):
        return "boilerplate:ad", False
    if not (keep_meta or heading) and words <= MAX_AGENCY_WORDS and gate & G_AGENCY and _AGENCY.search(text):
        # (a heading naming an agency is news about it)
        return "boilerplate:credit", False
    return None, words <= MAX_UI_WORDS


@lru_cache(maxsize=1 << 16)
def line_verdict(text: str, heading: bool, keep_meta: bool) -> tuple[bool, bool, str | None, bool]:
    """What a paragraph's text alone says of it, in the order justext-plus asks:
    (a rights line, a dateline or post line, the reason it is a credit or template line or None,
    short enough to be a control's label when repeated on its page).

    Cached: a site writes the same lines on every page, so a crawl asks about the same
    texts again and again (a quarter of the short lines of the development pages, from
    many sites, are on more than one page).

    The line is lower-cased once and the gate's mask passed to every check: this runs for every
    paragraph of every page, and repeated lower-casing and splitting cost as much as the searches."""
    if len(text) >= 400:
        # no check but the copyright sign's looks at so long a line
        return _RIGHTS_VERDICT if "\xa9" in text or "&copy" in text else _NO_VERDICT
    low = text.lower()
    return lowered_verdict(text, low, GATE.mask(low), heading, keep_meta)


def lowered_verdict(text: str, low: str, gate: int, heading: bool,
                    keep_meta: bool) -> tuple[bool, bool, str | None, bool]:
    """:func:`line_verdict` of a line under 400 characters, not remembered, given ``low``
    (``text.lower()``) and ``gate`` (:data:`GATE`'s mask of ``low``): the compiled feature
    matrix has both already and remembers its own answers."""
    length = len(text)
    if not gate & G_CHECKS:
        # (most lines) no keyword pattern can match and there is no mark ("(c)", "\xa9", "&copy",
        # "{{": G_MARKS): only a date can fire, on a short line with a digit that is no heading
        # (split at most MAX_UI_WORDS times: a further piece means more words than that)
        label = length < 200 and len(text.split(None, MAX_UI_WORDS)) <= MAX_UI_WORDS
        if heading or length > 80 or _DIGIT(text) is None or not _date_line(text, low, gate):
            return _LABEL_ONLY if label else _NO_VERDICT
        return False, True, None, label
    # (G_MARKS is set whenever the line has a mark: the gate looks for them too; the lower-cased
    # line may be longer than the line, "\u0130" is two characters lower-cased, and the rights and
    # post lines' limits are on it)
    if gate & G_MARKS and ("\xa9" in text or "&copy" in text) or looks_like_rights_line(low, gate):
        return _RIGHTS_VERDICT
    dated = not heading and (length <= 80 and _DIGIT(text) is not None and _date_line(text, low, gate)
                             or looks_like_post_line(low, gate))
    if length >= 200:
        return False, dated, notice(low, gate), False
    if not heading and not keep_meta and looks_like_credit_line(text, low, gate):
        return False, dated, "boilerplate:credit", False
    found, label = _template_reason(text, heading, keep_meta, low, gate)
    return False, dated, found, label


def looks_like_related_heading(text: str, words: int | None = None) -> bool:
    """A short line announcing links to other pages: the title of a related-articles box."""
    n = len(text.split()) if words is None else words
    return n <= MAX_RELATED_WORDS and _RELATED.search(text.lower()) is not None


# the line a blog engine writes under a post ("This entry was posted in News. Bookmark the permalink.")
_POSTED = re.compile(r"\W*(?:this (?:entry|post) was (?:posted|published)|bookmark the permalink|"
                     r"(?:dieser eintrag|der beitrag|dieser beitrag|dieser artikel) wurde .{0,60}?(?:veröffentlicht|erstellt|gepostet)|"
                     r"lesezeichen .{0,20}permalink|cette entrée a été publiée|esta entrada fue publicada)\b", re.DOTALL)


# "Label: value" lines; a date under a publishing label is the page's dateline, under any
# other label it is a fact of the text (an event's date, a deadline)
_FIELD_LABEL = re.compile(r"^\W*(\w+(?:[ -]\w+)?)\s?:\s")
_PUBLISHING_LABELS = frozenset("""veröffentlicht aktualisiert stand erstellt datum geändert zuletzt publiziert
eingestellt published updated posted date modified created publicado actualizado fecha publié publie
opublikowano zaktualizowano data von by por par autor author""".split()) | {
    "zuletzt aktualisiert", "zuletzt geändert", "last updated", "last modified", "letzte änderung", "mis à jour",
    "publicado el", "posted on", "published on", "veröffentlicht am", "erstellt am", "stand vom"}


def looks_like_post_line(low: str, gate: int = -1) -> bool:
    """A blog engine's line under a post (lower-cased, under 400 characters)."""
    return len(low) < 400 and bool(gate & G_POSTED) and _POSTED.match(low) is not None


def looks_like_date_line(text: str) -> bool:
    """A short line made of a date (and maybe a name or "posted on"): dateline or byline."""
    if len(text) > 80:
        return False
    if _DIGIT(text) is None:
        return False      # every date below has a digit (\d, or a word of ASCII digits)
    return _date_line(text, text.lower())


def _date_line(text: str, low: str, gate: int = -1) -> bool:
    """:func:`looks_like_date_line` of a line of at most 80 characters with a digit
    (``low``: the text lower-cased; ``gate``: :data:`GATE`'s mask of it)."""
    if text.rstrip().endswith((".", "!", "?")) and len(text.split()) >= 6:
        return False      # a sentence that mentions a date ("Her last day is April 1.")
    if ":" in text:       # (every label has its colon: most lines are settled without the pattern)
        label = _FIELD_LABEL.match(text)
        if label and label.group(1).lower() not in _PUBLISHING_LABELS:
            return False      # a field of the text: "Termin: 29.02.2020, 19 Uhr", "Deadline: 3 May 2021"
    if _DATE_HINT.search(text) is not None and _DATE.search(text) is not None:
        return True
    # a month's name and a number, as words of ASCII letters and digits (the number first: cheaper)
    return bool(gate & G_MONTH) and _NUMBER_WORD.search(low) is not None and _MONTH_WORD.search(low) is not None


# -- which patterns can match a line: one pass instead of a search per pattern ----------------
# Every match of a keyword pattern contains one of a few literal strings (a word every
# alternative begins with, say): one pass over the line finds which of them occur (a compiled
# scan, or an Aho-Corasick automaton), and a pattern whose strings are all absent cannot match,
# so its search is skipped.
# The strings are read from the patterns themselves (their parse trees), so a pattern edited
# or added stays exact; a pattern with no such strings is always searched.
try:
    from re import _constants as _sre, _parser as _sre_parse   # Python 3.11+
except ImportError:   # pragma: no cover - Python 3.10
    import sre_constants as _sre
    import sre_parse as _sre_parse


def required_strings(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Strings one of which every match of ``pattern`` contains, or None when the parse tree
    shows none (a case-insensitive pattern, a class of many characters at every step ...)."""
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        found = _required(list(_sre_parse.parse(pattern.pattern, pattern.flags)))
    except Exception:   # noqa: BLE001 - a parse tree this reader does not know: no gate, never a wrong one
        return None
    return frozenset(found) if found else None


def _required(items: list) -> set[str] | None:
    """For a sequence: the most selective set that one of its required items gives (longest
    shortest string, then fewest strings)."""
    best: set[str] | None = None
    run: list[str] = []

    def consider(found: set[str] | None) -> None:
        nonlocal best
        if found and all(found) and (best is None or (min(map(len, found)), -len(found))
                                     > (min(map(len, best)), -len(best))):
            best = found

    def close_run() -> None:
        # a run of literal characters: each of its whitespace-free pieces is required
        # (the line's whitespace is not the pattern's: the gate looks at no spaces)
        if run:
            pieces = "".join(run).split()
            if pieces:
                consider({max(pieces, key=len)})
            run.clear()

    for op, av in items:
        if op is _sre.LITERAL:
            run.append(chr(av))
            continue
        close_run()
        if op is _sre.SUBPATTERN:
            add_flags = av[1]
            if not add_flags & re.IGNORECASE:
                consider(_required(list(av[-1])))
        elif op is _sre.BRANCH:
            sets = [_required(list(branch)) for branch in av[1]]
            if all(sets):
                consider(set().union(*sets))
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) and av[0] >= 1:
            consider(_required(list(av[2])))
        elif op is _sre.IN and 0 < len(av) <= 8 and all(o is _sre.LITERAL for o, _ in av):
            consider({chr(c) for _, c in av if not chr(c).isspace()} if not any(chr(c).isspace() for _, c in av)
                     else None)
    close_run()
    return best


class KeywordGate:
    """Which of some patterns can match a line: ``mask(line)`` has bit i set unless pattern i
    surely does not match (its required strings are all absent from the line).

    ``mask`` is the compiled scan of ``corpustool/native/text_scan.pyx`` when it is built and the
    bits fit its C ``long`` (a loop over the line's character pairs and quads, ~4x cheaper than
    iterating pyahocorasick's matches in Python), else :meth:`mask_automaton`; both give the
    same answer."""

    def __init__(self, patterns: list[re.Pattern[str]]) -> None:
        import ahocorasick

        self.always = 0
        bits: dict[str, int] = {}
        for i, pattern in enumerate(patterns):
            found = required_strings(pattern)
            if found is None:
                self.always |= 1 << i
                continue
            for string in found:
                bits[string] = bits.get(string, 0) | 1 << i
        self.automaton = ahocorasick.Automaton()
        for string, mask in bits.items():
            self.automaton.add_word(string, mask)
        if bits:
            self.automaton.make_automaton()
        self.empty = not bits
        self.compiled = None
        if len(patterns) < 63:
            # (imported here: this module is a leaf the compiled decide imports)
            from ..native import backend
            LiteralGate = backend.text_scan.get("LiteralGate")
            if LiteralGate is not None:
                self.compiled = LiteralGate(bits, self.always)
                self.mask = self.compiled.mask   # type: ignore[method-assign]

    def mask(self, line: str) -> int:
        return self.mask_automaton(line)

    def mask_automaton(self, line: str) -> int:
        mask = self.always
        if not self.empty:
            for _, bits in self.automaton.iter(line):
                mask |= bits
        return mask


# the literal marks line_verdict looks for besides the patterns: a copyright "(c)", "\xa9" or "&copy"
# (the gate sees the lower-cased line: it lets through "&COPY" too, which line_verdict then looks
# for in the line itself), a template's "{{"
_MARKS = re.compile(r"\(c\)|\{\{|\xa9|&copy")
# the keyword patterns behind the gate, by bit (a pattern's checks above test its bit first)
_GATED = (_RIGHTS, _AD_DISCLOSURE, _CONSENT, _ACTION, _RELATED, _AGENCY, _CREDIT, _AGENCY_PAREN,
          _CAPTION_PLACE, _POSTED, _AD_LABEL, _FIGURE_CAPTION, _MARKS, _CAPTION_WORDS, _MONTH_WORD, *_SITE_ACTION_PARTS)
(G_RIGHTS, G_AD_DISCLOSURE, G_CONSENT, G_ACTION, G_RELATED, G_AGENCY, G_CREDIT, G_AGENCY_PAREN,
 G_CAPTION_PLACE, G_POSTED, G_AD_LABEL, G_FIGURE, G_MARKS, G_CAPTION_WORDS, G_MONTH) = (1 << i for i in range(15))
# _SITE_ACTION's parts by their bits, the bits after the others'
_SITE_ACTION_BY_BIT = {1 << (15 + i): part for i, part in enumerate(_SITE_ACTION_PARTS)}
G_SITE_ACTION = sum(_SITE_ACTION_BY_BIT)
# the bits that send a line past line_verdict's first answer (a month's name alone does not:
# it counts only in a short line with a digit, which goes to the date check anyway)
G_CHECKS = ((1 << len(_GATED)) - 1) & ~G_MONTH
GATE = KeywordGate(list(_GATED))
# line_verdict's answers for a line no check fires on: short enough to be a control's label, or not
_LABEL_ONLY = (False, False, None, True)
_NO_VERDICT = (False, False, None, False)
# and for a rights line
_RIGHTS_VERDICT = (True, False, None, False)
# what line_verdict's first answer reads, for the compiled feature matrix's copy of it
# (native/learned_features.pyx): the gate's mask, the bits that look further, the most words of a
# control's label, the two answers, and lowered_verdict for the lines it cannot answer itself
FIRST_ANSWER = (GATE.mask, G_CHECKS, MAX_UI_WORDS, _LABEL_ONLY, _NO_VERDICT, lowered_verdict)
