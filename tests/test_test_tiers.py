"""`make check` runs every test not marked real_model; the guard in conftest.py keeps that mark honest."""
from __future__ import annotations

import subprocess
import sys

import pytest

from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.settings import RuntimeSettings


def test_an_unmarked_test_that_loads_a_model_fails_before_the_weights_load(smollm2_path):
    with pytest.raises(RuntimeError, match="mark it real_model"):
        LlamaRuntime.load(smollm2_path, RuntimeSettings(n_ctx=256))


def test_an_unmarked_test_may_read_a_models_tokenizer(smollm2_path):
    runtime = LlamaRuntime.load(smollm2_path, RuntimeSettings(n_ctx=256), vocab_only=True)
    try:
        assert len(runtime.tokenize("The summary of a long day.")) > 3
    finally:
        runtime.close()


def test_an_unmarked_test_that_starts_a_model_server_fails_before_it_starts(smollm2_path):
    with pytest.raises(RuntimeError, match="starts a model server: mark it real_model"):
        subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path)])
    # any other child process starts as before
    assert subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True).stdout == "42\n"
