# The two commands of the README:  make run  and  make test.
# Each creates the virtual environment it needs (.venv) on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= demo-out

.PHONY: run test venv lint clean pi-install

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

venv: $(BIN)/.installed

# The main job: a whole game on the simulated tray (or the camera, if one is attached to a Pi),
# every throw read by the real vision pipeline; journal and screenshots land in $(OUT)/.
run: $(BIN)/.installed
	$(BIN)/dicetray demo --out $(OUT)

test: $(BIN)/.installed
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(BIN)/python -m pytest -n 2

lint: $(BIN)/.installed
	$(BIN)/ruff check tray vision hardware lab tests

# On the Raspberry Pi (Bookworm or Trixie, 64-bit): apt packages, a venv that sees apt's
# picamera2 and numpy, the user service. ARGS="--dry-run" prints the steps and runs none.
pi-install:
	bash hardware/install-pi.sh $(ARGS)

clean:
	rm -rf $(VENV) $(OUT)
