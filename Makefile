# The two commands of the README:  make run  and  make test.
# Each creates the virtual environment it needs (.venv) on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= demo-out

.PHONY: run test venv lint clean

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

clean:
	rm -rf $(VENV) $(OUT)
