# Two commands for a new user (see README.md):
#   make demo   set up .venv and run a real CPU sweep, then export the winner
#   make test   set up .venv and run lint, type checks and the test suite
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
TORCH_VERSION ?= 2.13.0

.PHONY: venv demo test test-slow lint typecheck unit bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	# torch first and pinned, so nothing below pulls a multi-GB CUDA build
	$(PIP) install torch==$(TORCH_VERSION)
	$(PIP) install -e '.[dev,verl]'
	touch $@

venv: $(VENV)/.installed

demo: venv
	$(VENV)/bin/autotune run --space fsdp3d
	$(VENV)/bin/autotune export fsdp3d -o best.yaml --check

lint: venv
	$(VENV)/bin/ruff check
	$(VENV)/bin/ruff format --check

typecheck: venv
	$(VENV)/bin/mypy

unit: venv
	$(VENV)/bin/pytest -q

test: lint typecheck unit

test-slow: venv
	$(VENV)/bin/pytest -q -m slow

clean:
	rm -rf $(VENV) runs reports/*/ *.egg-info
