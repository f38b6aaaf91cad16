"""`precis models inspect` and `precis plan`, through the real command-line entry point."""
from __future__ import annotations

import json

import pytest

from precis.gui.launcher import main
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
                                  + out["output_bytes"] + out["overhead_bytes"] + out["prompt_states_bytes"])
    assert out["prompt_states_bytes"] == 0        # a reduced sliding-window cache: the runtime saves no states
    assert main(["plan", "--model", str(gemma3_path), "--n-ctx", "8192", "--swa-full", "--json"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert 0 < full["prompt_states_bytes"] <= full["kv_bytes"] // 2
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


@pytest.mark.real_model      # --measure loads the bundled model to read what llama.cpp allocates
def test_plan_measure_puts_llama_cpp_allocation_next_to_the_estimate(capsys):
    assert main(["plan", "--n-ctx", "1024", "--measure", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    measured = out["measured"]
    assert measured["model_size_bytes"] == out["weights_bytes"]
    assert abs(measured["kv_bytes"] - out["kv_bytes"]) <= 0.01 * 2**20  # llama.cpp prints MiB to 0.01
    assert measured["kv_caches"][0]["cells"] == 1024
    assert measured["rss_growth_bytes"] > 0


def test_plan_files_json_lists_every_chunk_and_the_budget(capsys, sample_document, tmp_path):
    binary = tmp_path / "photo.txt"
    binary.write_bytes(bytes(range(256)) * 8)
    assert main(["plan", str(sample_document), str(binary), "--n-ctx", "2048", "--json", "--date", "2026-11-27"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    text = sample_document.read_text(encoding="utf-8")
    assert out["document_chars"] == len(text) and out["document_tokens"] > len(text) / 6
    budget = out["budget"]
    assert set(budget) >= {"static_prompt_tokens", "summary_in_cap", "summary_out_cap", "chunk_budget", "margin"}
    assert budget["static_prompt_tokens"] + budget["summary_in_cap"] + budget["chunk_budget"] + \
        budget["summary_out_cap"] + budget["margin"] <= 2048
    chunks = out["chunks"]
    assert out["rounds"] == len(chunks) >= 10
    assert [c["index"] for c in chunks] == list(range(len(chunks)))
    assert chunks[0]["start_char"] == 0 and chunks[-1]["end_char"] == len(text)
    assert all(a["end_char"] == b["start_char"] for a, b in zip(chunks, chunks[1:]))
    assert all(c["tokens"] <= budget["chunk_budget"] and c["boundary"] for c in chunks)
    assert out["estimate"]["evaluated_tokens"] < out["estimate"]["prompt_tokens"]   # static prefix reused
    assert out["estimate"]["seconds"] is None          # no speed measured in this fresh home
    assert out["verdict"] == "fits" and out["weights_bytes"] > 0                   # the memory plan is there too
    assert [u["file"] for u in out["unreadable"]] == [str(binary)]
    assert "photo.txt looks like a binary file" in captured.err


@pytest.mark.real_model      # --measure loads the bundled model to read what llama.cpp allocates
def test_plan_human_readable_with_files_and_measured_speed(capsys, sample_document):
    assert main(["plan", str(sample_document), "--n-ctx", "2048", "--measure"]) == 0
    out = capsys.readouterr().out
    assert "measured speed: prompt" in out
    assert "Each round (context 2,048): prompt" in out
    assert "Time: about" in out          # the speed just measured is used for the estimate


def test_plan_too_small_context_says_what_works(capsys, sample_document):
    assert main(["plan", str(sample_document), "--n-ctx", "768"]) == 2
    err = capsys.readouterr().err
    assert "A context of 768 tokens leaves" in err and "Use a context of 1,280 tokens or more" in err


def test_plan_per_file_and_nothing_readable(capsys, tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nAlpha.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\nBeta.\n", encoding="utf-8")
    assert main(["plan", str(tmp_path), "--n-ctx", "2048", "--per-file", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [d["name"] for d in out["documents"]] == ["a.md", "b.md"] and out["rounds"] == 2
    (tmp_path / "a.md").write_bytes(b"")
    (tmp_path / "b.md").write_bytes(b"\x00\x01\x02" * 100)
    assert main(["plan", str(tmp_path / "a.md"), str(tmp_path / "b.md")]) == 2
    err = capsys.readouterr().err
    assert "a.md is empty" in err and "b.md looks like a binary file" in err and "None of the given files" in err


@pytest.mark.parametrize("argv", [["--help"], ["summarize", "--help"], ["plan", "--help"]])
def test_help_lists_every_exit_code_in_order(argv, capsys):
    """`precis --help` listed 0-4 and 130 but not 5 (model server); every code the command line can exit with
    is listed, with what it means."""
    import re

    from precis.engine.errors import ExitCode
    with pytest.raises(SystemExit):
        main(argv)
    text = " ".join(capsys.readouterr().out.split())
    listed = text[text.index("exit codes: "):]
    assert [int(n) for n in re.findall(r"(?:: |, )(\d+) [a-zA-Z]", listed)] == [code.value for code in ExitCode]
    assert "5 model server (--server) unreachable" in listed
