# Every target installs what it needs into .venv, so a fresh checkout works.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test demo bench eval clean fuzz fuzz-build

# setup.py and the .pyx too: a changed compiled jusText walk is rebuilt
$(STAMP): pyproject.toml setup.py corpustool/native/justext_walk.pyx corpustool/native/sax_arena.pxi \
		corpustool/native/justext_plus_decide.pyx \
		corpustool/native/text_scan.pyx corpustool/native/_onion.c
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,bench,spark]'
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	-@sh scripts/install_chromium.sh   # for the browser tests; they skip when it cannot be installed
	-@sh scripts/install_java.sh       # for the Spark tests; they skip without Java
	$(PY) -m pytest

demo: $(STAMP)
	$(VENV)/bin/corpustool build data/demo/crawl.warc.gz -o demo-out/corpus.vert --lang en,de,cs \
		--stats demo-out/stats.json --rejects demo-out/rejects.jsonl

eval: $(STAMP)
	$(PY) scripts/run_eval.py

# the inputs README.md's examples name (crawl.warc.gz, pages/, page.html, sample.txt, the snippets
# gold set snippets/), made from the shipped demo data into examples/ (git-ignored)
.PHONY: examples
examples: $(STAMP)
	$(PY) scripts/make_examples.py examples

bench: $(STAMP)
	@for s in scripts/bench_*.py; do echo "== $$s"; $(PY) $$s || exit 1; done

# the compiled modules under ASan+UBSan with libFuzzer's coverage in .venv-fuzz (never .venv), then an
# atheris campaign of FUZZ_TIME seconds (corpustool/native/README.md)
FUZZ_TIME ?= 600
FUZZ_WORK ?= .fuzz
FUZZ_LOG ?= $(FUZZ_WORK)/fuzz.log
FUZZ_STAMP := .venv-fuzz/.built
$(FUZZ_STAMP): setup.py pyproject.toml scripts/fuzz_build.sh corpustool/native/justext_walk.pyx \
		corpustool/native/sax_arena.pxi corpustool/native/justext_plus_decide.pyx corpustool/native/text_scan.pyx
	FUZZ_WORK=$(FUZZ_WORK) PYTHON=$(PYTHON) sh scripts/fuzz_build.sh
	touch $(FUZZ_STAMP)

fuzz-build: $(FUZZ_STAMP)

fuzz: $(FUZZ_STAMP)
	mkdir -p $(FUZZ_WORK)
	FUZZ_WORK=$(FUZZ_WORK) FUZZ_TIME=$(FUZZ_TIME) FUZZ_LOG=$(FUZZ_LOG) sh scripts/fuzz_campaign.sh

clean:
	rm -rf demo-out .pytest_cache build *.egg-info .fuzz
