"""`precis models inspect` and `precis plan`, through the real command-line entry point."""
from __future__ import annotations

import json

from gui.launcher import main
from tests.gguf_builder import llama_like, write_gguf


def test_inspect_default_json(capsys):
    assert main(["models", "inspect", "default", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["architecture"] == "llama" and out["n_ctx_train"] == 8192 and out["n_head_kv"] == [3] * 30


def test_inspect_human_readable(capsys):
    assert main(["models", "inspect", "default"]) == 0
    text = capsys.readouterr().out
    assert "30 layers" in text and "8,192 tokens" in text and "Q4_1" in text


def test_plan_json_has_the_documented_keys(capsys, gemma3_path):
    assert main(["plan", "--model", str(gemma3_path), "--n-ctx", "8192", "--kv-type", "q8_0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["type_k"] == out["type_v"] == "q8_0" and out["flash_attn"] is True and out["swa_full"] is False
    assert out["total_bytes"] == (out["weights_bytes"] + out["kv_bytes"] + out["compute_bytes"]
                                  + out["output_bytes"] + out["overhead_bytes"])
    assert out["verdict"] in ("fits", "tight", "won't fit") and out["max_n_ctx"] % 256 == 0
    assert [g["kind"] for g in out["kv_groups"]] == ["standard", "swa"]


def test_plan_human_readable(capsys):
    assert main(["plan", "--n-ctx", "4096"]) == 0
    text = capsys.readouterr().out
    assert "KV standard" in text and "largest context that fits" in text


def test_bad_model_file_exits_with_the_model_error_code(tmp_path, capsys):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"not a model at all, just text")
    assert main(["models", "inspect", str(bad)]) == 3
    assert "broken.gguf: not a GGUF model" in capsys.readouterr().err


def test_truncated_download_is_explained(tmp_path, capsys):
    md, tensors = llama_like()
    path = write_gguf(tmp_path / "half.gguf", md, tensors, truncate_data_bytes=10_000)
    assert main(["plan", "--model", str(path)]) == 3
    assert "download it again" in capsys.readouterr().err


def test_missing_file_and_bad_context_are_bad_input(tmp_path, capsys):
    assert main(["plan", "--model", str(tmp_path / "nope.gguf")]) == 2
    assert main(["plan", "--n-ctx", "1000"]) == 2
    err = capsys.readouterr().err
    assert "No model file" in err and "multiple of 256" in err


def test_plan_measure_puts_llama_cpp_allocation_next_to_the_estimate(capsys):
    assert main(["plan", "--n-ctx", "1024", "--measure", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    measured = out["measured"]
    assert measured["model_size_bytes"] == out["weights_bytes"]
    assert abs(measured["kv_bytes"] - out["kv_bytes"]) <= 0.01 * 2**20  # llama.cpp prints MiB to 0.01
    assert measured["kv_caches"][0]["cells"] == 1024
    assert measured["rss_growth_bytes"] > 0
