# Two commands for a new user (see README.md):
#   make demo   set up .venv and run a real CPU sweep, then export the winner
#   make test   set up .venv and run lint, type checks and the test suite
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
TORCH_VERSION ?= 2.13.0
# where torch's CPU build comes from when PyPI would give the CUDA one (Linux x86-64): empty uses pip's own
# configuration; e.g. `make demo TORCH_INDEX=https://download.pytorch.org/whl/cpu`
TORCH_INDEX ?=

.PHONY: venv demo test test-slow lint typecheck unit browser postgres bench clean
SUDO := $(shell [ "$$(id -u)" = 0 ] || command -v sudo >/dev/null 2>&1 && [ "$$(id -u)" != 0 ] && echo sudo)

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip
	# torch first and pinned, so nothing below pulls another build of it
	$(PIP) install torch==$(TORCH_VERSION) $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX))
	$(PIP) install -e '.[dev,verl,postgres]'
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

# two workers: most tests wait on real trainer processes, not on the CPU
unit: venv
	$(VENV)/bin/pytest -q -n 2 --dist loadgroup --durations=20

# the report's browser test needs a real Chromium (Debian package `chromium`)
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null) || \
	  (echo "could not install Chromium: install the Debian package 'chromium' for the report test" && exit 1)

# `--storage postgresql://` is tested against a real server (Debian package `postgresql`)
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
	  ($(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq postgresql >/dev/null) || \
	  (echo "could not install PostgreSQL: install the Debian package 'postgresql' for the storage test" && exit 1)

test: lint typecheck browser postgres unit

test-slow: venv
	$(VENV)/bin/pytest -q -m slow -p no:xdist

clean:
	rm -rf $(VENV) runs reports/*/ *.egg-info

bench: venv
	$(VENV)/bin/python benchmarks/rollout_tp.py
	$(VENV)/bin/python benchmarks/sweep_speedup.py
	$(VENV)/bin/python benchmarks/sim_calibration.py
