# Every target installs what it needs into .venv, so a fresh checkout works.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test test-python demo bench eval model clean fuzz fuzz-build system-deps

# setup.py and the .pyx too: a changed compiled jusText walk is rebuilt
$(STAMP): pyproject.toml setup.py corpustool/native/justext_walk.pyx corpustool/native/sax_arena.pxi corpustool/native/revision.pxi \
		corpustool/native/paragraph_slots.pxi corpustool/native/justext_plus_decide.pyx corpustool/native/learned_features.pyx \
		corpustool/native/tree_scores.pyx \
		corpustool/native/text_scan.pyx corpustool/native/_onion.c
	@echo "make: installing corpustool and its Python dependencies into $(VENV) (a few minutes the first time)"
	$(PYTHON) -m venv $(VENV)
	@# pip's and setuptools' chatter goes to a log, shown only when the install fails
	@$(PY) -m pip install --disable-pip-version-check --upgrade pip > $(VENV)/install.log 2>&1 \
		&& $(PY) -m pip install --disable-pip-version-check -e '.[test,bench,spark]' >> $(VENV)/install.log 2>&1 \
		|| { tail -40 $(VENV)/install.log; echo "make: the install failed, see $(VENV)/install.log"; exit 1; }
	touch $(STAMP)
	@echo "make: installed; the command is $(VENV)/bin/corpustool (or: . $(VENV)/bin/activate)"

install: $(STAMP)

# the suite uses what the machine has: the browser, Spark and corpus-manager tests say why they
# skip (-rs) when Chromium, Java or the CWB/Manatee builds are missing; `make system-deps` adds them
test: $(STAMP)
	$(PY) -m pytest -rs

# the suite on the pure-Python backend (corpustool/native/backend.py): the same results without the extensions
test-python: $(STAMP)
	CORPUSTOOL_BACKEND=python $(PY) -m pytest -rs

# system packages, only when asked (root and apt-get): Chromium for the browser test, Java for
# Spark, and the two corpus managers built from ../shared/peers when it is there (CWB ~15 s,
# Manatee ~6.5 min once; their build scripts install their Debian build dependencies)
PEERS := ../shared/peers
system-deps:
	sh scripts/make/install_chromium.sh
	sh scripts/make/install_java.sh
	@if [ -x $(PEERS)/cwb/build-cwb.sh ]; then \
		$(PEERS)/cwb/build-cwb.sh $(PEERS)/cwb/cwb-3.4.33 "$${TMPDIR:-/tmp}/cwb-tools"; \
	else echo "system-deps: no $(PEERS)/cwb: the CWB tests will skip"; fi
	@if [ -x $(PEERS)/manatee/build-manatee.sh ]; then \
		$(PEERS)/manatee/build-manatee.sh $(PEERS)/manatee/manatee-open-2.225.8 "$${TMPDIR:-/tmp}/manatee-tools"; \
	else echo "system-deps: no $(PEERS)/manatee: the Manatee tests will skip"; fi

demo: $(STAMP)
	mkdir -p demo-out
	$(VENV)/bin/corpustool build data/demo/crawl.warc.gz -o demo-out/corpus.vert --lang en,de,cs \
		--stats demo-out/stats.json --rejects demo-out/rejects.jsonl

eval: $(STAMP)
	$(PY) scripts/make/run_eval.py

# justext-learned's model from ../shared/data/wcxb-dev (one thread, fixed seed: the same data give
# a byte-identical corpustool/models/justext_learned.json; tests/extractors/test_justext_learned.py checks it)
model: $(STAMP)
	$(PY) scripts/make/train_model.py

# the inputs README.md's examples name (crawl.warc.gz, pages/, page.html, sample.txt, the snippets
# gold set snippets/), made from the shipped demo data into examples/ (git-ignored)
.PHONY: examples
examples: $(STAMP)
	$(PY) scripts/make/make_examples.py examples

bench: $(STAMP)
	@for s in scripts/bench/bench_*.py; do echo "== $$s"; $(PY) $$s || exit 1; done

# the compiled modules under ASan+UBSan with libFuzzer's coverage in .venv-fuzz (never .venv), then an
# atheris campaign of FUZZ_TIME seconds (corpustool/native/README.md)
FUZZ_TIME ?= 600
FUZZ_WORK ?= .fuzz
FUZZ_LOG ?= $(FUZZ_WORK)/fuzz.log
FUZZ_STAMP := .venv-fuzz/.built
$(FUZZ_STAMP): setup.py pyproject.toml scripts/fuzz/fuzz_build.sh corpustool/native/justext_walk.pyx \
		corpustool/native/sax_arena.pxi corpustool/native/justext_plus_decide.pyx corpustool/native/text_scan.pyx \
		corpustool/native/tree_scores.pyx corpustool/native/learned_features.pyx corpustool/native/revision.pxi corpustool/native/paragraph_slots.pxi
	FUZZ_WORK=$(FUZZ_WORK) PYTHON=$(PYTHON) sh scripts/fuzz/fuzz_build.sh
	touch $(FUZZ_STAMP)

fuzz-build: $(FUZZ_STAMP)

fuzz: $(FUZZ_STAMP)
	mkdir -p $(FUZZ_WORK)
	FUZZ_WORK=$(FUZZ_WORK) FUZZ_TIME=$(FUZZ_TIME) FUZZ_LOG=$(FUZZ_LOG) sh scripts/fuzz/fuzz_campaign.sh

clean:
	rm -rf demo-out .pytest_cache build *.egg-info .fuzz
