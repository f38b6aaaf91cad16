"""The memory plan against llama.cpp's formulas, for families that can't be loaded here.

Sources (llama.cpp 0c1e57098): src/llama-kv-cache.cpp (K/V tensors per layer: n_embd_k_gqa x kv_size,
``has_v = !is_mla``), src/llama-kv-cache-iswa.cpp (size_swa = GGML_PAD(min(size_base, n_swa*n_seq +
n_ubatch), 256), or size_base with swa_full), src/llama-memory-recurrent.cpp with
src/llama-hparams.cpp (n_embd_r = (d_conv-1)*(d_inner + 2*n_group*d_state), n_embd_s = d_state*d_inner,
F32, one cell per sequence).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from precis.engine.planning.memory_plan import (
    GIB,
    MIB,
    SAFE_FRACTION,
    kv_groups,
    kv_row_bytes,
    largest_fitting_n_ctx,
    plan_memory,
    verdict_for,
)
from precis.engine.planning.model_facts import ModelFacts, RecurrentState
from precis.engine.runtime.settings import RuntimeSettings


def facts(**kw) -> ModelFacts:
    base = dict(path=Path("x.gguf"), architecture="llama", name="x", file_bytes=0, tensor_bytes=500 * MIB,
                parameter_count=0, quantization="Q4_K_M", n_ctx_train=32768, n_vocab=32000, n_layer=4,
                n_embd=1024, n_ff=4096, n_head=(16,) * 4, n_head_kv=(4,) * 4, key_length=64, value_length=64)
    base.update(kw)
    return ModelFacts(**base)


def test_standard_kv_matches_the_per_layer_formula():
    f = facts()
    g, = kv_groups(f, RuntimeSettings(n_ctx=4096))
    assert g.k_bytes == 4096 * 4 * (4 * 64 * 2) and g.v_bytes == g.k_bytes


def test_per_layer_head_counts_and_layers_without_attention():
    f = facts(n_head_kv=(8, 0, 2, 4))
    g, = kv_groups(f, RuntimeSettings(n_ctx=1024))
    assert g.layers == 3
    assert g.k_bytes == 1024 * (8 + 2 + 4) * 64 * 2


def test_quantized_rows():
    assert kv_row_bytes("q8_0", 256) == 8 * 34
    assert kv_row_bytes("q4_0", 256) == 8 * 18
    g, = kv_groups(facts(), RuntimeSettings.for_kv_type("q8_0", n_ctx=2048))
    assert g.k_bytes == 2048 * 4 * (256 // 32 * 34)


def test_quantized_v_switches_flash_attention_on():
    assert RuntimeSettings.for_kv_type("q4_0").flash_attn
    assert not RuntimeSettings.for_kv_type("f16").flash_attn


def test_sliding_window_cells_with_and_without_swa_full():
    f = facts(sliding_window=1024, swa_layers=(True, True, True, False))
    small = {g.kind: g for g in kv_groups(f, RuntimeSettings(n_ctx=32768, swa_full=False))}
    assert small["swa"].cells == 1536  # pad256(1024 + 512)
    assert small["standard"].cells == 32768 and small["swa"].layers == 3
    full = {g.kind: g for g in kv_groups(f, RuntimeSettings(n_ctx=32768, swa_full=True))}
    assert full["swa"].cells == 32768
    tiny = {g.kind: g for g in kv_groups(f, RuntimeSettings(n_ctx=1024, swa_full=False))}
    assert tiny["swa"].cells == 1024  # never more than n_ctx


def test_swa_layers_with_their_own_head_size():
    f = facts(sliding_window=512, swa_layers=(True, False, True, False), key_length=256, value_length=256,
              key_length_swa=128, value_length_swa=128, n_head_kv=(1,) * 4)
    groups = {g.kind: g for g in kv_groups(f, RuntimeSettings(n_ctx=4096))}
    assert groups["swa"].k_bytes == 1024 * 2 * 128 * 2
    assert groups["standard"].k_bytes == 4096 * 2 * 256 * 2


def test_mla_stores_only_the_latent_k():
    f = facts(architecture="deepseek2", n_head_kv=(1,) * 4, key_length=576, value_length=512, is_mla=True)
    g, = kv_groups(f, RuntimeSettings(n_ctx=4096))
    assert g.v_bytes == 0 and g.k_bytes == 4096 * 4 * 576 * 2


def test_hybrid_model_recurrent_state_does_not_grow_with_context():
    f = facts(architecture="granitehybrid", n_head_kv=(0, 0, 0, 8),
              recurrent_layers=(True, True, True, False), recurrent_state=RecurrentState(2304, 65536))
    for n_ctx in (2048, 65536):
        groups = {g.kind: g for g in kv_groups(f, RuntimeSettings(n_ctx=n_ctx))}
        assert groups["recurrent"].total_bytes == 3 * (2304 + 65536) * 4
        assert groups["standard"].layers == 1 and groups["standard"].cells == n_ctx


def test_verdicts():
    assert verdict_for(int(SAFE_FRACTION * 10 * GIB), 10 * GIB) == "fits"
    assert verdict_for(9 * GIB, 10 * GIB) == "tight"
    assert verdict_for(11 * GIB, 10 * GIB) == "won't fit"


def test_largest_fitting_context_is_the_boundary():
    f = facts(tensor_bytes=2 * GIB)
    s = RuntimeSettings()
    available = 4 * GIB
    best = largest_fitting_n_ctx(f, s, available)
    assert best % 256 == 0 and 0 < best < f.n_ctx_train
    assert plan_memory(f, s.with_n_ctx(best), available).verdict == "fits"
    assert plan_memory(f, s.with_n_ctx(best + 256), available).verdict != "fits"


def test_nothing_fits_gives_zero():
    assert largest_fitting_n_ctx(facts(tensor_bytes=64 * GIB), RuntimeSettings(), 8 * GIB) == 0


def test_plan_json_keys_are_stable():
    d = plan_memory(facts(), RuntimeSettings(), 16 * GIB).as_dict()
    for key in ("weights_bytes", "kv_bytes", "compute_bytes", "total_bytes", "available_bytes", "verdict",
                "max_n_ctx", "n_ctx", "n_batch", "n_ubatch", "type_k", "type_v", "flash_attn", "swa_full"):
        assert key in d


@pytest.mark.parametrize("bad", [1000, 0, -256])
def test_context_must_be_a_multiple_of_256(bad):
    with pytest.raises(ValueError, match="multiple of 256"):
        RuntimeSettings(n_ctx=bad)
