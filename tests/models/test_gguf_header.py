"""The header reader: real files, synthetic families, and every kind of bad file."""
from __future__ import annotations

import struct

import pytest

from precis.models.gguf.facts import read_model_facts
from precis.models.gguf.header import GGUFError, SkippedArray, read_gguf_header
from tests.gguf_builder import build_header, llama_like, write_gguf


def test_bundled_smollm2_facts(smollm2_path):
    facts = read_model_facts(smollm2_path)
    assert (facts.architecture, facts.n_layer, facts.n_embd, facts.n_ctx_train) == ("llama", 30, 576, 8192)
    assert set(facts.n_head_kv) == {3} and facts.key_length == 64 and facts.value_length == 64
    assert facts.n_vocab == 49152 and facts.quantization == "Q4_1" and facts.has_chat_template
    assert 130e6 < facts.parameter_count < 140e6
    assert not facts.uses_swa and not facts.is_mla and not facts.is_recurrent_or_hybrid


def test_tensor_table_accounts_for_every_byte_of_the_file(smollm2_path, gemma3_path):
    for path in (smollm2_path, gemma3_path):
        header = read_gguf_header(path)
        assert header.data_offset_bytes + header.tensor_bytes == header.file_bytes


def test_gemma3_sliding_window_layout(gemma3_path):
    facts = read_model_facts(gemma3_path)
    assert facts.architecture == "gemma3" and facts.sliding_window == 512
    # Gemma 3: every 6th layer is global, the other five slide (il % 6 < 5).
    assert facts.swa_layers == tuple(il % 6 < 5 for il in range(18))
    assert facts.n_vocab == 262144 and facts.key_length == 256


def test_tokenizer_arrays_are_skipped_not_parsed(smollm2_path):
    md = read_gguf_header(smollm2_path).metadata
    assert md["tokenizer.ggml.tokens"] == SkippedArray(item_type=8, count=49152)


def test_per_layer_head_counts_and_swa_pattern_arrays(tmp_path):
    kv = [4, 0, 2, 2]  # a layer without attention (0) as in hybrid or pruned models
    md, tensors = llama_like("llama", n_layer=4, n_head_kv=kv, extra={
        "llama.attention.sliding_window": 128, "llama.attention.sliding_window_pattern": [True, False, True, False]})
    facts = read_model_facts(write_gguf(tmp_path / "m.gguf", md, tensors))
    assert facts.n_head_kv == (4, 0, 2, 2)
    assert facts.swa_layers == (True, False, True, False)


def test_mla_and_hybrid_markers(tmp_path):
    md, tensors = llama_like("deepseek2", n_head_kv=1, extra={
        "deepseek2.attention.key_length": 576, "deepseek2.attention.value_length": 512,
        "deepseek2.attention.key_length_mla": 192, "deepseek2.attention.value_length_mla": 128})
    assert read_model_facts(write_gguf(tmp_path / "mla.gguf", md, tensors)).is_mla
    md, tensors = llama_like("granitehybrid", n_layer=4, n_head_kv=[0, 0, 0, 8], extra={
        "granitehybrid.ssm.conv_kernel": 4, "granitehybrid.ssm.inner_size": 512,
        "granitehybrid.ssm.state_size": 128, "granitehybrid.ssm.group_count": 1})
    facts = read_model_facts(write_gguf(tmp_path / "hybrid.gguf", md, tensors))
    assert facts.recurrent_layers == (True, True, True, False)
    assert facts.recurrent_state.conv_elems == 3 * (512 + 2 * 128)
    assert facts.recurrent_state.ssm_elems == 128 * 512


# ---- bad files: each gets its own message ------------------------------------------------------

def _expect(path, *fragments):
    with pytest.raises(GGUFError) as err:
        read_model_facts(path)
    for fragment in fragments:
        assert fragment in str(err.value), str(err.value)
    assert path.name in str(err.value)


def test_not_a_gguf(tmp_path):
    p = tmp_path / "weights.gguf"
    p.write_bytes(b"PK\x03\x04" + b"\0" * 100)
    _expect(p, "not a GGUF", "safetensors")


def test_empty_file(tmp_path):
    p = tmp_path / "empty.gguf"
    p.write_bytes(b"")
    _expect(p, "empty or truncated")


def test_unknown_version(tmp_path):
    p = tmp_path / "v9.gguf"
    p.write_bytes(b"GGUF" + struct.pack("<IQQ", 9, 0, 0))
    _expect(p, "version 9")


def test_absurd_counts(tmp_path):
    p = tmp_path / "absurd.gguf"
    p.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 2**40, 2**40))
    _expect(p, "no real model has")


def test_header_cut_short(tmp_path):
    md, tensors = llama_like()
    header, _ = build_header(md, tensors)
    p = tmp_path / "cut.gguf"
    p.write_bytes(header[: len(header) // 2])
    _expect(p, "ends inside its header", "truncated")


def test_weights_cut_short(tmp_path):
    md, tensors = llama_like()
    p = write_gguf(tmp_path / "partial.gguf", md, tensors, truncate_data_bytes=4096)
    _expect(p, "weights are incomplete", "download it again")


def test_string_length_beyond_the_file(tmp_path):
    p = tmp_path / "hostile.gguf"
    p.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 2**62) + b"abc")
    _expect(p, "ends inside its header")


def test_unknown_value_type(tmp_path):
    p = tmp_path / "badtype.gguf"
    p.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1) + b"k" + struct.pack("<I", 99))
    _expect(p, "unknown value type 99")


def test_unknown_tensor_type(tmp_path):
    md, _ = llama_like()
    p = tmp_path / "newtype.gguf"
    header, _ = build_header(md, [])
    body = bytearray(header.rstrip(b"\0"))
    body[8:16] = struct.pack("<Q", 1)  # one tensor
    body += struct.pack("<Q", 1) + b"w" + struct.pack("<I", 1) + struct.pack("<Q", 32) + struct.pack("<IQ", 200, 0)
    p.write_bytes(bytes(body) + b"\0" * 64)
    _expect(p, "ggml type 200")


def test_no_architecture(tmp_path):
    p = write_gguf(tmp_path / "lora.gguf", {"general.type": "adapter"}, [])
    _expect(p, "no general.architecture")


def test_folder_is_refused(tmp_path):
    d = tmp_path / "model.gguf"
    d.mkdir()
    with pytest.raises(GGUFError, match="folder"):
        read_gguf_header(d)


def test_multi_gb_header_reads_without_touching_the_weights(tmp_path):
    md, tensors = llama_like(n_vocab=150_000, big_tensor_elems=8 * 2**30)  # ~4.5 GiB of q4_K, sparse
    p = write_gguf(tmp_path / "big.gguf", md, tensors)
    header = read_gguf_header(p)
    assert header.file_bytes > 4 * 2**30
    assert header.metadata["tokenizer.ggml.tokens"].count == 150_000
