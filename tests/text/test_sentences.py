"""The sentence splitter (corpustool/text/sentences.py): authored cases per language, and the
Universal Dependencies benchmark's held-out half against sentencex and pysbd (skipped without
../shared/data/ud or the peers)."""
import importlib.util
import sys

import pytest

from corpustool.text.sentences import sentence_spans
from corpustool.text.tokenizer import tokenize

from tests.support.paths import REPO


def split(text, lang=None):
    tokens, glue = tokenize(text)
    out = []
    for start, end in sentence_spans(tokens, glue, lang):
        s = ""
        for i in range(start, end):
            s += ("" if i == start or glue[i] else " ") + tokens[i]
        out.append(s)
    return out


CASES = [
    # English: initials, abbreviations, quotes and brackets after the period, web text
    ("en", "J. R. R. Tolkien wrote it. It sold well.", ["J. R. R. Tolkien wrote it.", "It sold well."]),
    ("en", "Jennifer M. Anderson was nominated. Bush also nominated A. Noel Kramer.",
     ["Jennifer M. Anderson was nominated.", "Bush also nominated A. Noel Kramer."]),
    ("en", "Fruit, e. g. Granny Smith apples, i.e. Cox too. Good.",
     ["Fruit, e. g. Granny Smith apples, i.e. Cox too.", "Good."]),
    ("en", 'He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
    ("en", "(This is in brackets.) And this is not.", ["(This is in brackets.)", "And this is not."]),
    ("en", "where did you grow up? india? ok then.", ["where did you grow up?", "india?", "ok then."]),
    ("en", "i think they are cats. they look small.", ["i think they are cats.", "they look small."]),
    ("en", "Mr. Smith met Dr. Jones at St. Mary's. They talked.",
     ["Mr. Smith met Dr. Jones at St. Mary's.", "They talked."]),
    ("en", "See https://example.com/a.html. The page is new.",
     ["See https://example.com/a.html.", "The page is new."]),
    ("en", "Well... maybe not. Wait... What?", ["Well... maybe not.", "Wait...", "What?"]),
    ("en", "Apples, pears, etc. The rest is gone.", ["Apples, pears, etc.", "The rest is gone."]),
    ("en", "It is 3.5 m long. Done!", ["It is 3.5 m long.", "Done!"]),
    ("en", "Great food :-) Posted by Anna", ["Great food :-)", "Posted by Anna"]),
    ("en", "Great! :-) Next one is here.", ["Great! :-)", "Next one is here."]),
    ("en", "I love it <3 Really.", ["I love it <3", "Really."]),
    ("en", "Fine. ;) Then go.", ["Fine. ;)", "Then go."]),
    ("en", "1. Introduction", ["1. Introduction"]),
    # German: z. B., d. h., usw., ordinals, quotes
    ("de", "Obst, z. B. Äpfel und Birnen, ist gesund. Das weiß jeder.",
     ["Obst, z. B. Äpfel und Birnen, ist gesund.", "Das weiß jeder."]),
    ("de", "Er kam spät, d. h. Nach Mitternacht. Sie schlief.",
     ["Er kam spät, d. h. Nach Mitternacht.", "Sie schlief."]),
    ("de", "Am 3. Oktober ist Feiertag. Der 2. Weltkrieg endete 1945. Danach kam der Frieden.",
     ["Am 3. Oktober ist Feiertag.", "Der 2. Weltkrieg endete 1945.", "Danach kam der Frieden."]),
    ("de", "Gipsfassaden aus dem 18. Jahrhundert sind schön.", ["Gipsfassaden aus dem 18. Jahrhundert sind schön."]),
    ("de", "Hunde, Katzen usw. sind Haustiere. Vgl. Kapitel 2.", ["Hunde, Katzen usw. sind Haustiere.", "Vgl. Kapitel 2."]),
    ("de", "Er zahlte ca. 100 Mio. Euro bzw. Dollar. Gut.", ["Er zahlte ca. 100 Mio. Euro bzw. Dollar.", "Gut."]),
    ("de", "„Kommst du?“ Er nickte.", ["„Kommst du?“", "Er nickte."]),
    ("de", "„Kommst du?“, fragte er.", ["„Kommst du?“, fragte er."]),
    ("de", "Ludwig II. von Bayern baute Schlösser.", ["Ludwig II. von Bayern baute Schlösser."]),
    ("de", "1. Einleitung", ["1. Einleitung"]),
    # Czech and Slovak
    ("cs", "Přišel Dr. Novák, tj. Karel, a Ing. Svoboda. Pak odešli.",
     ["Přišel Dr. Novák, tj. Karel, a Ing. Svoboda.", "Pak odešli."]),
    ("cs", "Narodil se 21. března 1950 v Praze. Studoval tzv. Reálku atd. a pak odešel.",
     ["Narodil se 21. března 1950 v Praze.", "Studoval tzv. Reálku atd. a pak odešel."]),
    ("cs", "Karel IV. Lucemburský založil univerzitu. Bylo to r. 1348.",
     ["Karel IV. Lucemburský založil univerzitu.", "Bylo to r. 1348."]),
    ("cs", "Stálo to 5 tis. Kč, resp. Více. Konec.", ["Stálo to 5 tis. Kč, resp. Více.", "Konec."]),
    # "stol." and "Sb." often end a sentence; post-nominal degrees; dates written with numbers
    ("cs", "Kostel vznikl ve 13. stol. a přestavěn byl v 18. století. Tehdy tu stála jen věž.",
     ["Kostel vznikl ve 13. stol. a přestavěn byl v 18. století.", "Tehdy tu stála jen věž."]),
    ("cs", "Hrad pochází ze 13. stol. Tehdy tu stála jen věž.",
     ["Hrad pochází ze 13. stol.", "Tehdy tu stála jen věž."]),
    ("cs", "Postupuje se podle zákona č. 250/2016 Sb. Dále platí vyhláška obce.",
     ["Postupuje se podle zákona č. 250/2016 Sb.", "Dále platí vyhláška obce."]),
    ("cs", "Seminář vedl doc. Ing. Petr Malý, CSc. Diskuse se protáhla do večera.",
     ["Seminář vedl doc. Ing. Petr Malý, CSc.", "Diskuse se protáhla do večera."]),
    ("cs", "Ve středu 4. 6. jsme vyrazili na hory. Dne 9. 6. 2021 jsme se vrátili. Bylo nás 12. 3 z nás zůstali.",
     ["Ve středu 4. 6. jsme vyrazili na hory.", "Dne 9. 6. 2021 jsme se vrátili.", "Bylo nás 12.",
      "3 z nás zůstali."]),
    ("de", "Am 4. 6. 2021 fuhren wir ab. Dann regnete es.", ["Am 4. 6. 2021 fuhren wir ab.", "Dann regnete es."]),
    # a free-standing straight quote closes the quotation it follows, glued to a word it opens one
    ("cs", 'Starosta řekl: " Most opravíme do zimy. " Pak odjel do Brna.',
     ['Starosta řekl: " Most opravíme do zimy. "', "Pak odjel do Brna."]),
    ("cs", '" Kdy začneme? " zeptal se. " Hned. Nejdřív ale uklidíme sklep. " Tak jsme začali.',
     ['" Kdy začneme? " zeptal se.', '" Hned.', 'Nejdřív ale uklidíme sklep. "', "Tak jsme začali."]),
    ("cs", 'Vyhráli jsme. " Kdo by to čekal? " Nikdo.',
     ["Vyhráli jsme.", '" Kdo by to čekal? "', "Nikdo."]),
    ("en", 'He asked: "Why?" We left. "Because it is late." Then we slept.',
     ['He asked: "Why?"', "We left.", '"Because it is late."', "Then we slept."]),
    ("sk", "Pozri napr. Kapitolu 5, príp. Prílohu. Potom pokračuj.",
     ["Pozri napr. Kapitolu 5, príp. Prílohu.", "Potom pokračuj."]),
    # French, Spanish, Italian, Polish, Dutch
    ("fr", "M. Dupont est arrivé. Il est parti.", ["M. Dupont est arrivé.", "Il est parti."]),
    ("fr", "« Viens ! » Il est parti.", ["« Viens ! »", "Il est parti."]),
    ("fr", "« Bonjour ! » dit-il.", ["« Bonjour ! » dit-il."]),
    ("es", "Vive en la Avda. Libertad con la Sra. López. ¿Vienes? ¡Claro!",
     ["Vive en la Avda. Libertad con la Sra. López.", "¿Vienes?", "¡Claro!"]),
    ("it", "Il Dott. Rossi è arrivato, cfr. Pag. 5. Poi è partito.",
     ["Il Dott. Rossi è arrivato, cfr. Pag. 5.", "Poi è partito."]),
    ("pl", "Mieszka przy ul. Długiej 5, tzw. Starówka. Potem wyjechał.",
     ["Mieszka przy ul. Długiej 5, tzw. Starówka.", "Potem wyjechał."]),
    ("nl", "Het is bijv. Jan die komt, d.w.z. Morgen. Daarna gaat hij.",
     ["Het is bijv. Jan die komt, d.w.z. Morgen.", "Daarna gaat hij."]),
    # no language: the union of the lists
    (None, "Obst, z. B. Äpfel. Mr. Smith came. Přišel Ing. Novák.",
     ["Obst, z. B. Äpfel.", "Mr. Smith came.", "Přišel Ing. Novák."]),
    # scripts with their own end punctuation
    ("zh", "我们是中国人。你好！", ["我们是中国人。", "你好！"]),
    ("ar", "مرحبا بالعالم. هل هذا اختبار؟ نعم!", ["مرحبا بالعالم.", "هل هذا اختبار؟", "نعم!"]),
    ("ur", "یہ ایک جملہ ہے۔ یہ دوسرا ہے۔", ["یہ ایک جملہ ہے۔", "یہ دوسرا ہے۔"]),
    ("hi", "यह एक परीक्षण है। ठीक है॥ अंत", ["यह एक परीक्षण है।", "ठीक है॥", "अंत"]),
    ("hy", "Բարեւ աշխարհ։ Սա թեստ է։", ["Բարեւ աշխարհ։", "Սա թեստ է։"]),
    ("am", "ሰላም ዓለም። ይህ ፈተና ነው።", ["ሰላም ዓለም።", "ይህ ፈተና ነው።"]),
    ("my", "ကောင်းပါတယ်။ ဟုတ်ကဲ့။", ["ကောင်းပါတယ်။", "ဟုတ်ကဲ့။"]),
    # Greek asks with ";" (U+037E, NFC ";"); elsewhere ";" ends no sentence
    ("el", "Τι κάνεις; Καλά. Πού πας\u037e Σπίτι.", ["Τι κάνεις;", "Καλά.", "Πού πας\u037e", "Σπίτι."]),
    ("en", "Eat apples; Pears are fine too.", ["Eat apples; Pears are fine too."]),
    # a URL without a scheme ends a sentence as one with a scheme does
    ("en", "Or visit www.example.com. Thanks for reading.", ["Or visit www.example.com.", "Thanks for reading."]),
]


@pytest.mark.parametrize("lang,text,expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_sentences(lang, text, expected):
    assert split(text, lang) == expected


def test_spans_cover_the_tokens_and_glue_is_optional():
    tokens, glue = tokenize("One. Two! Three? Four")
    spans = sentence_spans(tokens, glue, "en")
    assert spans == [(0, 2), (2, 4), (4, 6), (6, 7)]
    assert sentence_spans(tokens) == spans
    assert sentence_spans([], [], "en") == []


def test_tokenizer_module_exports_the_splitter():
    from corpustool.text import sentences, tokenizer
    assert tokenizer.sentence_spans is sentences.sentence_spans


def test_vertical_writer_splits_with_the_document_language():
    from corpustool.document import Document, Paragraph
    from corpustool.writers.vertical import VerticalWriter
    doc = Document(id="d1", url="http://example.com/", lang="de",
                   paragraphs=[Paragraph("Am 3. Oktober, z. B. Montag, ist Feiertag. Dann nicht.")])
    out = VerticalWriter("-", sentences=True).format(doc)
    assert out.count("<s>") == 2


def _bench():
    if "bench_sentences" in sys.modules:
        return sys.modules["bench_sentences"]
    spec = importlib.util.spec_from_file_location("bench_sentences", REPO / "scripts" / "bench" / "bench_sentences.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_sentences"] = mod      # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("lang", ["en", "de", "cs"])
def test_held_out_f1_ahead_of_sentencex_and_pysbd(lang):
    bench = _bench()
    if not bench.UD.is_dir():
        pytest.skip("../shared/data/ud is not present")
    pytest.importorskip("sentencex")
    if lang in bench.PYSBD_LANGS:
        pytest.importorskip("pysbd")
    texts = bench.read_conllu(bench.UD / bench.TREEBANKS[lang])
    scores = bench.sentence_scores(lang, texts)["held-out"]
    ours = scores.pop("ours").f
    assert scores, "no peer measured"
    for name, prf in scores.items():
        assert ours >= prf.f, (lang, name, ours, prf.f)


def test_bench_script_skips_without_data(tmp_path, monkeypatch, capsys):
    bench = _bench()
    monkeypatch.setattr(bench, "UD", tmp_path / "absent")
    assert bench.main([]) == 0
    assert "skipped" in capsys.readouterr().out


def test_bench_measures_a_fresh_held_out_file_without_shared_data(tmp_path, monkeypatch, capsys):
    """--extra LANG=PATH: a CoNLL-U file of comment lines only, all of it held out, measured even
    when ../shared is absent; a bad spec is refused."""
    bench = _bench()
    monkeypatch.setattr(bench, "UD", tmp_path / "absent")
    path = tmp_path / "cs.conllu"
    path.write_text("# newdoc id = a\n# newpar\n"
                    "# sent_id = a-p1s1\n# text = Přijel 3. září, tj. ve středu.\n\n"
                    "# sent_id = a-p1s2\n# text = Pak odjel do Brna atd. a vrátil se.\n\n"
                    "# sent_id = a-p1s3\n# text = Nikdo nevěděl proč.\n\n"
                    "# newdoc id = b\n# newpar\n# sent_id = b-p1s1\n# text = Jedna věta.\n\n", encoding="utf-8")
    assert bench.main(["--extra", f"cs={path}", "--langs", "cs"]) == 0
    out = capsys.readouterr().out
    assert "fresh held-out set cs.conllu (cs; 4 sentences, 2 boundaries" in out
    assert "ours          1.000 / 1.000 / 1.000" in out
    with pytest.raises(SystemExit):
        bench.main(["--extra", str(path)])


def test_bench_halves_never_share_a_document(tmp_path):
    """A treebank with documents but no paragraphs (Czech CAC) is cut into texts of CHUNK
    sentences, but every text of a document falls in the same half."""
    bench = _bench()
    lines = []
    for d in range(3):
        lines.append(f"# newdoc id = d{d}")
        for k in range(bench.CHUNK + 5):
            lines += [f"# sent_id = d{d}-s{k}", f"# text = Věta {k}.",
                      f"1\tVěta\tvěta\tNOUN\t_\t_\t0\troot\t_\t_",
                      f"2\t{k}\t{k}\tNUM\t_\t_\t1\tnummod\t_\tSpaceAfter=No",
                      "3\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_", ""]
    path = tmp_path / "x.conllu"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    texts = bench.read_conllu(path)
    assert len(texts) == 6                               # two texts per document
    by_doc = {}
    for t in texts:
        by_doc.setdefault(t.unit, []).append(len(t.sentences))
    assert by_doc == {0: [bench.CHUNK, 5], 1: [bench.CHUNK, 5], 2: [bench.CHUNK, 5]}


def test_many_free_standing_quotes_take_linear_time():
    """Each free-standing quote asks how many quotes precede it: counted once per paragraph,
    not from its start each time (that took over a minute on twice this paragraph)."""
    import time
    tokens, glue = tokenize('Ano. " Ne. " ' * 25000)
    t0 = time.process_time()
    spans = sentence_spans(tokens, glue, "cs")
    assert time.process_time() - t0 < 15
    assert len(spans) == 50000 and spans[1] == (2, 6)     # '" Ne. "' is one sentence
