# The two commands of the README:  make run  and  make test.
# Each creates the virtual environment it needs (.venv) on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= demo-out

.PHONY: run test venv lint clean pi-install net-tools

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

# the tests also teach (lab.teach), which needs the train extra (torch CPU, onnx)
$(BIN)/.installed-train: $(BIN)/.installed
	$(BIN)/pip install --quiet -e '.[dev,train,web]'
	touch $@

# the network tests start Mosquitto and drive Chromium (Debian's packages): installed when
# missing and apt-get can be used (waiting for another apt to finish); otherwise those tests
# fail saying what to install
net-tools:
	@PATH="$$PATH:/usr/sbin"; command -v mosquitto >/dev/null && command -v chromium >/dev/null \
	  && command -v chromedriver >/dev/null || { \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get -o DPkg::Lock::Timeout=600 update -qq || true; \
	    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
	      mosquitto chromium chromium-driver; \
	  else echo "make test: install mosquitto, chromium and chromium-driver (apt-get)" >&2; fi; }

venv: $(BIN)/.installed

# The main job: a whole game on the simulated tray (or the camera, if one is attached to a Pi),
# every throw read by the real vision pipeline; journal and screenshots land in $(OUT)/.
run: $(BIN)/.installed
	$(BIN)/dicetray demo --out $(OUT)

# lint first (fail fast), then the tests
test: lint $(BIN)/.installed-train net-tools
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(BIN)/python -m pytest -n 2

# the rule set is pyproject.toml's [tool.ruff.lint]; `make test` runs this first
lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# On the Raspberry Pi (Bookworm or Trixie, 64-bit): apt packages, a venv that sees apt's
# picamera2 and numpy, the user service. ARGS="--dry-run" prints the steps and runs none.
pi-install:
	bash hardware/install-pi.sh $(ARGS)

clean:
	rm -rf $(VENV) $(OUT)
