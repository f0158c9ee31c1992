# Every target installs what it needs into .venv, so a fresh checkout works.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test demo bench eval clean

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

bench: $(STAMP)
	@for s in scripts/bench_*.py; do echo "== $$s"; $(PY) $$s || exit 1; done

clean:
	rm -rf demo-out .pytest_cache build *.egg-info
