# The two commands users need: `make test` and `make demo`. Both create .venv when absent.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
PY := $(VENV)/bin/python
# pip's own output (no -q): a fresh install takes minutes and shows what it is doing; each step is announced
PIP := $(PY) -m pip --disable-pip-version-check
# the tested versions (constraints.txt): new upstream releases cannot change the demo data or the suite's results
LOCK := -c constraints.txt

.PHONY: test demo demo-data saferel-generated lint docs install clean lmms-eval-check bench lock

$(VENV)/.installed: pyproject.toml Makefile constraints.txt
	@echo "==> install 1/4: virtual environment $(VENV) ($(PYTHON))"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "==> install 2/4: pip itself"
	$(PIP) install --upgrade pip
	@echo "==> install 3/4: torch 2.13.0, the CPU build (a plain torch requirement would pull a multi-GB CUDA build)"
	$(PIP) install torch==2.13.0  # the CPU build first, or pip pulls a multi-GB CUDA torch (tests use tiny models)
	@echo "==> install 4/4: hazardkit with its extras [dev,builder,models,ray,publish] at the tested versions, then bddl"
	$(PIP) install $(LOCK) -e ".[dev,builder,models,ray,publish]"
	$(PIP) install $(LOCK) --no-deps "bddl==3.6.0"  # SafeRelBench's BDDL parser; --no-deps skips nltk/jupytext/pytest
	touch $@
	@echo "==> installed: $(VENV) (activate with . $(VENV)/bin/activate)"

install: $(VENV)/.installed

lint: install
	$(VENV)/bin/ruff check .

test: install lint
	$(PY) -m pytest -q

# the documentation site (MkDocs + Material, from docs/ and the docstrings) into site/. `make test` builds it
# too (tests/test_docs_site.py: `mkdocs build --strict`), so a broken link, a page missing from the nav or an
# API object that no longer exists fails CI
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site
	@echo "docs: open site/index.html, or serve it with $(VENV)/bin/mkdocs serve"

demo: install
	$(VENV)/bin/hazardkit demo

# movsafebench/data/demo/ (git-ignored): the HazardForge pipeline (compositor + heuristic check) on synthetic
# scenes, cached resumably in out/demo/forge/; then load_dataset("movsafebench", "demo") works from the repo root;
# likewise load_dataset("bd_hazardvlm", "demo"|"demo_annotations"); SafeRelBench's demo Parquet is committed (a
# fresh clone's load_dataset("saferelbench", ...) needs every config the card lists) and rewritten byte for byte here
demo-data: install
	$(VENV)/bin/hazardkit publish movsafebench --config demo --version 0.1.0 --date 2026-11-30 \
		--notes "demo config: HazardForge on synthetic scenes"
	$(VENV)/bin/hazardkit reconstruct bd-hazardvlm --demo  # local config demo: bd_hazardvlm/data/demo/ (images)
	$(VENV)/bin/hazardkit publish bd-hazardvlm --config demo_annotations --version 0.1.0 --date 2026-11-30 \
		--notes "demo_annotations config: the 20 demo records and their image manifest"
	$(VENV)/bin/hazardkit publish saferelbench --config demo --version 0.1.0 --date 2026-11-30 \
		--notes "demo config: the matched pairs saferel generate makes from manifests/saferelbench/demo.json"

# SafeRelBench's `generated` config (saferelbench/data/generated/, committed: load_dataset("saferelbench",
# "generated") works from a clone): every pair the committed recipe manifests/saferelbench/generated.json
# describes, regenerated deterministically and refused when its digest differs; published beside `demo` (the card
# lists it with its statistics; commit the card `make demo-data` then writes, as a fresh clone's `make demo` does).
saferel-generated: install
	$(VENV)/bin/hazardkit publish saferelbench --config generated --input manifests/saferelbench/generated.json \
		--version 0.1.0 --date 2026-11-30 \
		--notes "generated config: all pairs saferel generate makes from BEHAVIOR-1K (manifests/saferelbench/generated.json)"

# lmms-eval 0.7.3 itself on the exported tasks (its `dummy` model, offline), compared with `hazardkit score
# --from-lmms-eval`; lmms-eval goes into a separate throwaway venv (.lmms-venv/, its requirements pull a CUDA
# torch), never into .venv. Not part of `make test`.
lmms-eval-check: install
	$(PY) benchmarks/lmms_eval_check.py

# every benchmarks/*.py at full size, one after the other, into one table (benchmarks/results/bench.md); takes
# tens of minutes. CI runs the same scripts with --quick through tests/test_benchmarks_quick.py.
bench: install
	$(PY) benchmarks/run_all.py

# constraints.txt anew: the newest versions pyproject.toml allows, resolved in a throwaway venv (.lock-venv/)
# with no constraints, then frozen (torch and the project itself left out). Review the diff and run `make test`:
# a release that changes the demo data fails tests/test_publish_card.py and tests/test_demo.py until the
# committed demo outputs are regenerated.
lock:
	rm -rf .lock-venv
	$(MAKE) install VENV=.lock-venv LOCK=  # the install recipe above, without the constraints
	{ sed -n '/^#/p' constraints.txt; .lock-venv/bin/python -m pip freeze --exclude-editable --exclude torch; } \
		> constraints.txt.new && mv constraints.txt.new constraints.txt
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
