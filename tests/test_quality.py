"""Quality marks (corpustool/quality.py): measures, verdicts, --quality drop, vertical attributes."""
import json
import subprocess
import sys

from corpustool.document import Document, Paragraph
from corpustool.language.stoplists import stoplist
from corpustool.quality import ATTRIBUTES, QualityMarks, judge, measure, quality_attributes
from corpustool.writers.vertical import DOC_ATTRIBUTES, VerticalWriter

from tests.support.paths import REPO

ARTICLE = [
    "The council finally agreed to rebuild the old footbridge after years of debate.",
    "For the first time in almost forty years, people living on the east bank of the river can walk "
    "to the market in a few minutes instead of taking the long way round by the road bridge.",
    "The original bridge was closed in the winter of 1986, when engineers found that the timber "
    "supports had rotted and that the structure could no longer carry the weight of a crowd.",
    "Shop owners in the old town hope that the bridge will bring more visitors to the streets and "
    "squares on both sides of the water, and several of them have already extended their hours.",
    "Readers who want to share their memories of the old bridge are invited to write to the paper, "
    "and the best letters will be printed in a special edition at the end of the month.",
]
LIST_PAGE = ["Home", "News", "Sport", "Weather", "Contact us", "Privacy policy", "Terms of use",
             "Shop", "Jobs", "Archive 2023", "Archive 2022", "Log in", "Newsletter", "Sitemap",
             "Careers at Example", "Advertise with us"] * 3
SPAM = ["Buy cheap watches online best price cheap watches online buy now."] * 20
GERMAN = [
    "Drei Monate nach dem schweren Sturm im Februar sind fast alle Wanderwege im Bergwald wieder "
    "geöffnet, und die Besucher kehren langsam in die Gegend zurück.",
    "Am schlimmsten betroffen war der beliebte Höhenweg zwischen dem Aussichtsturm und der Hütte, "
    "wo die Helfer mehr als zweihundert umgestürzte Bäume aus dem Weg räumen mussten.",
    "Der Leiter des Forstamts bittet alle Besucher, die Sperrungen ernst zu nehmen, weil an einigen "
    "Stellen noch immer lose Äste in den Kronen hängen und jederzeit herunterfallen können.",
]
CZECH = [
    "Ochotnický divadelní spolek z Dolních Kounic oslavil třicáté výročí svého založení premiérou "
    "nové hry, na kterou přišlo více lidí, než se do sálu vešlo.",
    "Spolek založila v roce 1994 skupina přátel, kteří se scházeli v hospodě a jednoho večera se "
    "rozhodli, že si zkusí zahrát divadlo jen tak pro radost.",
    "Předsedkyně spolku říká, že největší radost jí dělá, když do souboru přicházejí mladí lidé, "
    "kteří by jinak na divadlo nikdy nepomysleli.",
]


def doc_of(paragraphs, lang="en", stoplist_lang=None, url="https://news.example.org/a"):
    d = Document(id="t", url=url, lang=lang, stoplist_lang=stoplist_lang or lang)
    d.paragraphs = [Paragraph(text=t, tag="p") for t in paragraphs]
    return d


def marks(paragraphs, lang="en", **kw):
    d = QualityMarks(**kw).process(doc_of(paragraphs, lang))
    return d, d.meta["quality"]


def test_a_normal_article_is_good():
    d, q = marks(ARTICLE)
    assert q["q"] == "good", q
    assert q["q_punct"] == 1.0 and q["q_short"] == 0.0 and q["q_stop"] > 0.3
    assert 3.5 < q["q_wordlen"] < 6 and q["q_nonalpha"] < 0.05


def test_a_boilerplate_list_page_is_low():
    d, q = marks(LIST_PAGE)
    assert q["q"] == "low"
    rules = q["q_rules"].split(",")
    assert "punct" in rules and "short-lines" in rules and "dup-lines" in rules
    assert q["q_punct"] == 0.0 and q["q_short"] == 1.0


def test_a_repetitive_spam_page_is_low():
    d, q = marks(SPAM)
    assert q["q"] == "low"
    rules = q["q_rules"].split(",")
    assert "dup-lines" in rules and "dup-ngram" in rules
    assert q["q_dup_lines"] == 0.95 and q["q_dup5"] > 0.9


def test_german_and_czech_are_judged_with_their_own_stoplists():
    for text, lang in ((GERMAN, "de"), (CZECH, "cs")):
        own = measure(doc_of(text, lang).paragraphs, lang, stoplist(lang))
        english = measure(doc_of(text, lang).paragraphs, lang, stoplist("en"))
        assert own["q_stop"] > 0.25, (lang, own)
        assert english["q_stop"] < 0.1, (lang, english)      # an English list would call them low
        assert judge(own, 80) == [], (lang, own)
        assert "stop-words" in judge(english, 80)
        d, q = marks(text, lang)
        assert "stop-words" not in q.get("q_rules", ""), (lang, q)
    # the stage takes the clean stage's stoplist language, not a fixed one
    stage = QualityMarks()
    assert stage.stopwords(doc_of(GERMAN, "de")) == stoplist("de")
    assert stage.stopwords(doc_of(CZECH, "cs", stoplist_lang="cs")) == stoplist("cs")


def test_short_document_and_language_without_spaces():
    d, q = marks(["Only a title and five words."])
    assert q["q"] == "low" and q["q_rules"].startswith("short")
    d, q = marks(["今天天气很好。我们去公园散步，看到了很多花。"], lang="zh")
    assert "q_wordlen" not in q and "q_top2" not in q and "q_stop" not in q


HINDI = [
    "दिल्ली विश्वविद्यालय के वैज्ञानिकों ने सौर मंडल के बाहर एक नए ग्रह की खोज की घोषणा की है। उनके अनुसार, "
    "यह ग्रह अपने तारे के रहने योग्य क्षेत्र में स्थित है। इसकी सतह पर तरल पानी हो सकता है।",
    "दल के प्रमुख प्रोफेसर शर्मा ने कहा कि यह खगोल विज्ञान के लिए एक बहुत महत्वपूर्ण खोज है। उन्होंने कहा कि "
    "अवलोकन तीन साल से अधिक समय तक चला और परिणामों की जांच अन्य देशों के स्वतंत्र शोधकर्ताओं ने की।",
    "अगला कदम नए दूरबीनों की मदद से ग्रह के वायुमंडल का अध्ययन करना होगा। अगर वहां ऑक्सीजन या मीथेन के "
    "निशान मिलते हैं, तो यह पृथ्वी के बाहर जीवन का पहला अप्रत्यक्ष संकेत हो सकता है।",
]
THAI = [
    "นักวิทยาศาสตร์ค้นพบดาวเคราะห์ดวงใหม่นอกระบบสุริยะ ตามที่พวกเขากล่าว ดาวเคราะห์ดวงนี้อยู่ในเขตที่อยู่อาศัยได้ของดาวฤกษ์",
    "การสังเกตการณ์ใช้เวลานานกว่าสามปี และผลลัพธ์ได้รับการตรวจสอบโดยนักวิจัยอิสระจากประเทศอื่น",
]


def test_vowel_signs_are_letters_of_their_word():
    """Devanagari's vowel signs and viramas are combining marks, not letters to Python: the words
    of a Hindi article were cut at them (mean length 1.4 letters, "word-length" fired, and the stop
    words "है", "की" were not found)."""
    d, q = marks(HINDI, lang="hi")
    assert q["q"] == "good", q
    assert 3.0 < q["q_wordlen"] < 6.0 and q["q_stop"] > 0.4
    assert marks(["सौर मंडल के बाहर"], lang="hi")[1]["q_wordlen"] == 13 / 4     # 3 + 4 + 2 + 4 code points


def test_languages_ending_sentences_without_a_mark_are_not_judged_by_punctuation():
    d, q = marks(THAI * 6, lang="th")
    assert "q_punct" not in q and "punct" not in q.get("q_rules", ""), q
    # the full stops of other scripts end a paragraph as "." does
    for lang, text in (("hy", "Սա թեստ է։"), ("am", "ይህ ፈተና ነው።"), ("km", "នេះជាការសាកល្បង។")):
        assert marks([text] * 3, lang=lang)[1]["q_punct"] == 1.0, lang
    # Greek asks with ";" (as its sentence splitter reads it); elsewhere ";" ends no paragraph
    assert marks(["Τι κάνεις σήμερα;"] * 3, lang="el")[1]["q_punct"] == 1.0
    assert marks(["What now;"] * 3, lang="en")[1]["q_punct"] == 0.0


def test_drop_mode_drops_with_the_rule_as_reason():
    stage = QualityMarks(mode="drop")
    dropped = []
    stage.on_drop = lambda doc, name: dropped.append((doc.drop_reason, name))
    docs = [doc_of(ARTICLE), doc_of(LIST_PAGE), doc_of(SPAM)]
    kept = list(stage.run(docs))
    assert len(kept) == 1 and kept[0].meta["quality"]["q"] == "good"
    assert [r for r, _ in dropped] == ["quality:punct", "quality:punct"] or \
        all(r.startswith("quality:") for r, _ in dropped)
    assert all(name == "quality" for _, name in dropped) and len(dropped) == 2
    assert sum(v for k, v in stage.stats.drops.items() if k.startswith("quality:")) == 2
    assert stage.stats.extra["low"] == 2 and stage.stats.extra["low:dup-lines"] == 2


def test_attributes_are_written_clean_for_both_targets(tmp_path):
    d, q = marks(LIST_PAGE)
    attrs = dict(quality_attributes(d))
    assert attrs["q"] == "low" and "q_rules" in attrs and attrs["q_punct"] == "0.000"
    assert set(ATTRIBUTES) <= set(DOC_ATTRIBUTES)
    for target in ("manatee", "cwb"):
        w = VerticalWriter(str(tmp_path / f"{target}.vert"), target=target)
        w.write(d)
        w.close()
        first = (tmp_path / f"{target}.vert").read_text(encoding="utf-8").splitlines()[0]
        assert f'q="low"' in first and f'q_rules="{attrs["q_rules"]}"' in first and 'q_punct="0.000"' in first
        assert {"q", "q_rules", "q_punct", "q_short", "q_dup5"} <= w.structures["doc"]


def _build(tmp_path, name, *extra):
    pages = tmp_path / "pages"
    if not pages.exists():
        pages.mkdir()
        body = "".join(f"<p>{t}</p>" for t in ARTICLE)
        (pages / "article.html").write_text(f"<html><body><article>{body}</article></body></html>", encoding="utf-8")
        spam = "".join(f"<p>{t}</p>" for t in SPAM)
        (pages / "spam.html").write_text(f"<html><body><article>{spam}</article></body></html>", encoding="utf-8")
    out = tmp_path / name
    subprocess.run([sys.executable, "-m", "corpustool", "build", str(pages), "-o", str(out), "--lang", "en",
                    "-q", "--no-dedup-para", "--no-dedup-near", *extra], check=True, cwd=REPO)
    return out


def test_build_marks_by_default_and_drop_counts_and_rejects(tmp_path):
    marked = _build(tmp_path, "marked.vert", "--target", "cwb")
    heads = [l for l in marked.read_text(encoding="utf-8").splitlines() if l.startswith("<doc ")]
    assert len(heads) == 2 and all(' q="' in h and " q_stop=" in h for h in heads)
    assert sum(' q="low"' in h for h in heads) == 1
    stats = tmp_path / "stats.json"
    rejects = tmp_path / "rejects.jsonl"
    kept = _build(tmp_path, "kept.vert", "--quality", "drop", "--stats", str(stats), "--rejects", str(rejects))
    heads = [l for l in kept.read_text(encoding="utf-8").splitlines() if l.startswith("<doc ")]
    assert len(heads) == 1 and ' q="good"' in heads[0]
    rec = [json.loads(l) for l in rejects.read_text(encoding="utf-8").splitlines()]
    assert len(rec) == 1 and rec[0]["stage"] == "quality" and rec[0]["reason"].startswith("quality:")
    s = json.loads(stats.read_text(encoding="utf-8"))
    stages = s["stages"] if isinstance(s, dict) and "stages" in s else s
    q = next(st for st in stages if isinstance(st, dict) and st.get("stage") == "quality")
    assert sum(q["drops"].values()) == 1 and next(iter(q["drops"])).startswith("quality:")
    # JSON Lines carries them in meta and text_types; off writes none
    j = _build(tmp_path, "c.jsonl")
    d = json.loads(j.read_text(encoding="utf-8").splitlines()[0])
    assert d["meta"]["quality"]["q"] in ("good", "low") and "q_punct" in d["text_types"]
    off = _build(tmp_path, "off.vert", "--quality", "off")
    assert " q=" not in off.read_text(encoding="utf-8")


def test_deterministic(tmp_path):
    a = _build(tmp_path, "a.vert")
    b = _build(tmp_path, "b.vert")
    assert a.read_bytes() == b.read_bytes()
    d1, q1 = marks(ARTICLE + SPAM)
    d2, q2 = marks(ARTICLE + SPAM)
    assert q1 == q2


# -- the measures equal their counting definitions --------------------------------------------

def _reference_word_measures(paragraphs, lang, stopwords):
    """The word measures by their definitions: regular expressions over the whole text and
    Counters of word tuples (how quality.py computed them before it counted with numpy)."""
    import re
    from collections import Counter

    texts = [t for t in (p.text.strip() for p in paragraphs) if t]
    text = "\n".join(texts)
    lower = text.lower()
    nw = len(text.split()) or 1
    from corpustool.text.tokenizer import MARKS
    runs = re.findall(rf"(?:[^\W\d_]|[{MARKS}])+", lower)        # combining marks are letters
    out = {"q_nonalpha": len(re.findall(r"(?<!\S)(?:[^\w\s]|[\d_])+(?!\S)", text)) / nw}
    if runs and lang not in ("zh", "ja", "th", "lo", "km", "my"):
        out["q_wordlen"] = sum(map(len, runs)) / len(runs)
    if stopwords is not None and runs:
        out["q_stop"] = sum(r in stopwords for r in runs) / len(runs)
    if lang in ("zh", "ja", "th", "lo", "km", "my"):
        return out
    words = lower.split()
    total = sum(map(len, words))
    count = 2
    for n in (2, 3, 4):
        value = 0.0
        if count > 1 and len(words) >= n:
            gram, count = Counter(zip(*(words[i:] for i in range(n)))).most_common(1)[0]
            if count > 1:
                value = min(1.0, count * sum(map(len, gram)) / total)
        else:
            count = 1
        out[f"q_top{n}"] = value
    dup5 = 0.0
    if count > 1 and len(words) >= 10:
        grams = list(zip(*(words[i:] for i in range(5))))
        repeated = {g for g, c in Counter(grams).items() if c > 1}
        covered = [False] * len(words)
        for i, g in enumerate(grams):
            if g in repeated:
                covered[i:i + 5] = [True] * 5
        dup5 = sum(len(w) for w, c in zip(words, covered) if c) / total
    out["q_dup5"] = dup5
    return out


def test_word_measures_equal_their_counting_definitions():
    import random

    vocab = ["the", "The", "cat", "sat", "on", "mat", "word,", "(so", "end.", "l'homme", "e-mail",
             "3.5", "42", "—", "|", "x²", "İstanbul", "ΣΟΦΙΑ", "naïve", "und", "der", "die", "#tag",
             "https://example.org/a", "...", "«quote»", "a_b", "日本語", "😀", "½", "Ⅻ", "है", "नमस्ते",
             "cafe\u0301", "\u0301x"]
    stop = frozenset(("the", "on", "und", "der", "die", "l", "so", "है"))
    rng = random.Random(32)
    for trial in range(300):
        k = rng.choice((1, 2, 3, 8, 40))
        words = [rng.choice(vocab[:rng.randint(2, len(vocab))]) for _ in range(rng.randint(1, 400))]
        paras = [" ".join(words[i::k]) for i in range(k)]
        if rng.random() < 0.3:
            paras += paras[:2]                       # repeated paragraphs
        lang = rng.choice(("en", "de", "ja"))
        for stopwords in (stop, None):
            got = measure([Paragraph(text=t, tag="p") for t in paras], lang, stopwords)
            want = _reference_word_measures([Paragraph(text=t) for t in paras], lang, stopwords)
            for key, value in want.items():
                assert got.get(key) == value, (trial, key, got.get(key), value, paras)
            assert set(want) == {k for k in got if k in want or k in (
                "q_wordlen", "q_stop", "q_top2", "q_top3", "q_top4", "q_dup5", "q_nonalpha")}, (trial, got)
