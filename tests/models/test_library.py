"""Discovery in real folder layouts of other tools, built in a temporary home."""
from __future__ import annotations

import hashlib
import json
import os

import pytest

from precis.models.library.discovery import discover
from tests.gguf_builder import llama_like, write_gguf
from tests.hub_server import HubServer


@pytest.fixture
def tool_home(tmp_path, monkeypatch):
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("PRECIS_TOOL_HOME", str(home))
    for var in ("HF_HUB_CACHE", "HF_HOME", "OLLAMA_MODELS"):
        monkeypatch.delenv(var, raising=False)
    return home


def gguf(path, arch="llama", **kw):
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_gguf(path, *llama_like(arch, **kw))


def test_finds_each_tool_layout_with_the_right_names(tool_home, tmp_path, monkeypatch, precis_home):
    # Hugging Face cache, made by huggingface-hub itself (downloaded from a local Hub server).
    source = gguf(tmp_path / "src" / "tiny-q4_k_m.gguf", "qwen2")
    with HubServer() as hub:
        hub.state.repos["acme/Tiny-GGUF"] = {"downloads": 1, "files": {"tiny-q4_k_m.gguf": source.read_bytes()}}
        from huggingface_hub import hf_hub_download
        hf_hub_download("acme/Tiny-GGUF", "tiny-q4_k_m.gguf", cache_dir=tool_home / ".cache" / "huggingface" / "hub",
                        endpoint=hub.url)
    # LM Studio: publisher/repo/file.
    gguf(tool_home / ".lmstudio" / "models" / "lmstudio-community" / "Phi-GGUF" / "phi-Q8_0.gguf", "phi3")
    # Ollama: a manifest naming the GGUF blob, plus a manifest whose blob is gone.
    blob_src = gguf(tmp_path / "blob.gguf", "llama")
    digest = hashlib.sha256(blob_src.read_bytes()).hexdigest()
    ollama = tool_home / ".ollama" / "models"
    (ollama / "blobs").mkdir(parents=True)
    os.replace(blob_src, ollama / "blobs" / f"sha256-{digest}")
    manifest = {"schemaVersion": 2, "layers": [
        {"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{digest}", "size": 1},
        {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "0" * 64, "size": 1}]}
    for ns, model, tag in (("library", "llama3", "8b"), ("bartowski", "phi", "latest")):
        m = ollama / "manifests" / "registry.ollama.ai" / ns / model / tag
        m.parent.mkdir(parents=True)
        m.write_text(json.dumps(manifest), encoding="utf-8")
    gone = ollama / "manifests" / "registry.ollama.ai" / "library" / "gone" / "1b"
    gone.parent.mkdir(parents=True)
    gone.write_text(json.dumps({"layers": [{"mediaType": "application/vnd.ollama.image.model",
                                            "digest": "sha256:" + "f" * 64}]}), encoding="utf-8")
    # GPT4All, and a folder the user added.
    gguf(tool_home / ".local" / "share" / "nomic.ai" / "GPT4All" / "orca-mini-3b.Q4_0.gguf")
    extra = tmp_path / "my-models"
    gguf(extra / "mine.gguf", "gemma3")

    lib = discover([str(extra)], include_bundled=False)
    found = {(m.source, m.name) for m in lib.models}
    assert found == {
        ("huggingface", "acme/Tiny-GGUF/tiny-q4_k_m.gguf"),
        ("lmstudio", "lmstudio-community/Phi-GGUF/phi-Q8_0.gguf"),
        ("ollama", "llama3:8b"),                      # the same blob under two names is listed once
        ("gpt4all", "orca-mini-3b.Q4_0.gguf"),
        ("folder", "mine.gguf"),
    }
    assert next(m for m in lib.models if m.source == "ollama").aliases == ["bartowski/phi:latest"]
    arch = {m.name: m.facts.architecture for m in lib.models}
    assert arch["acme/Tiny-GGUF/tiny-q4_k_m.gguf"] == "qwen2" and arch["mine.gguf"] == "gemma3"
    assert all(m.verdict == "fits" for m in lib.models)
    assert any("gone:1b" in reason and "blob is missing" in reason for _, reason in lib.skipped)


def test_split_partial_and_foreign_files(tool_home, tmp_path):
    folder = tmp_path / "models"
    for i in (1, 2):
        gguf(folder / f"big-00{i:03d}-of-00002.gguf")
    gguf(folder / "lonely-00001-of-00003.gguf")
    gguf(folder / "half.gguf")
    (folder / "half.gguf").write_bytes((folder / "half.gguf").read_bytes()[:-1000])    # interrupted download
    (folder / "model.gguf.part").write_bytes(b"GGUF partial")
    (folder / "not-a-model.gguf").write_bytes(b"PK\x03\x04 a zip with the wrong name")
    hidden = folder / ".cache" / "huggingface" / "download"
    hidden.mkdir(parents=True)
    (hidden / "x.gguf.incomplete").write_bytes(b"GGUF")
    lib = discover([str(folder)], include_bundled=False)
    assert [(m.name, m.shards) for m in lib.models] == [("big-00001-of-00002.gguf", 2)]
    assert lib.models[0].file_bytes == sum((folder / f"big-0000{i}-of-00002.gguf").stat().st_size for i in (1, 2))
    reasons = dict(lib.skipped)
    assert "missing lonely-00002-of-00003.gguf" in reasons[str(folder / "lonely-00001-of-00003.gguf")]
    assert "incomplete" in reasons[str(folder / "half.gguf")] or "cut short" in reasons[str(folder / "half.gguf")]
    assert "not a GGUF" in reasons[str(folder / "not-a-model.gguf")]


def test_second_scan_reads_no_headers_until_a_file_changes(tool_home, tmp_path):
    folder = tmp_path / "many"
    for i in range(50):   # multi-GB files with synthetic headers: sparse, no disk used for weights
        gguf(folder / f"model-{i:02d}.gguf", n_embd=4096, n_vocab=32000, big_tensor_elems=2**31)
    first = discover([str(folder)], include_bundled=False)
    assert len(first.models) == 50 and first.headers_read == 50
    assert all(m.file_bytes > 2**30 for m in first.models)
    second = discover([str(folder)], include_bundled=False)
    assert second.headers_read == 0 and [m.name for m in second.models] == [m.name for m in first.models]
    gguf(folder / "model-07.gguf", n_embd=2048)                        # replaced by another model
    third = discover([str(folder)], include_bundled=False)
    assert third.headers_read == 1
    assert next(m for m in third.models if m.name == "model-07.gguf").facts.n_embd == 2048
