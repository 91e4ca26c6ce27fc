# The two commands users need: `make test` and `make demo`. Both create .venv when absent.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
# torch for the tests (tiny random-weight models on CPU); this pair is on local disk (a CUDA build that runs on CPU)
TEST_TORCH ?= torch==2.14.1 torchvision==0.29.1

.PHONY: test demo lint install clean

$(VENV)/.installed: pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install -e ".[dev]"
	# Qwen2-VL-family processors need torchvision; PyPI torchvision does not load beside torch 2.13.0+cpu
	$(PIP) install $(TEST_TORCH)
	touch $@

install: $(VENV)/.installed

lint: install
	$(VENV)/bin/ruff check .

test: install lint
	$(PY) -m pytest -q

demo: install
	$(VENV)/bin/hazardkit demo

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
