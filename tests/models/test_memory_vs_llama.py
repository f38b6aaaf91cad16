"""The memory estimate against what llama.cpp really allocates, with the real models loaded."""
from __future__ import annotations

import pytest

from precis.engine.planning.memory_plan import MIB, plan_memory
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.settings import RuntimeSettings
from precis.models.gguf.facts import read_model_facts

pytestmark = pytest.mark.real_model

SMOLLM2_CASES = [(512, "f16", False), (2048, "f16", False), (8192, "f16", False), (8192, "f16", True),
                 (2048, "q8_0", True), (4096, "q4_0", True), (8192, "q8_0", True)]
GEMMA3_CASES = [(n_ctx, kv, swa_full) for n_ctx in (1024, 4096, 8192) for kv in ("f16", "q8_0")
                for swa_full in (True, False)]


def _check(path, settings):
    facts = read_model_facts(path)
    plan = plan_memory(facts, settings, available_bytes=16 * 2**30)
    with LlamaRuntime.load(path, settings) as rt:
        measured = rt.allocation
    # KV: every cache llama.cpp created matches one estimated group, to the 0.01 MiB it prints.
    assert len(measured.kv_caches) == len(plan.kv_groups)
    by_shape = {(g.cells, g.layers): g for g in plan.kv_groups}
    for line in measured.kv_caches:
        group = by_shape[(line.cells, line.layers)]
        assert (line.type_k, line.type_v) == (settings.type_k, settings.type_v)
        assert line.k_mib == pytest.approx(group.k_bytes / MIB, abs=0.005)
        assert line.v_mib == pytest.approx(group.v_bytes / MIB, abs=0.005)
    assert measured.kv_mib == pytest.approx(plan.kv_bytes / MIB, abs=0.005 * 2 * len(measured.kv_caches))
    # Weights: the tensor table of the header is exactly what llama.cpp maps.
    assert measured.model_size_bytes == plan.weights_bytes
    # Compute buffer: no closed formula in llama.cpp; the estimate must be within 10%.
    assert measured.compute_mib == pytest.approx(plan.compute_bytes / MIB, rel=0.10)
    return measured, plan


@pytest.mark.parametrize("n_ctx,kv_type,flash_attn", SMOLLM2_CASES)
def test_smollm2_estimate_equals_allocation(smollm2_path, n_ctx, kv_type, flash_attn):
    _check(smollm2_path, RuntimeSettings(n_ctx=n_ctx, type_k=kv_type, type_v=kv_type, flash_attn=flash_attn))


@pytest.mark.parametrize("n_ctx,kv_type,swa_full", GEMMA3_CASES)
def test_gemma3_sliding_window_estimate_equals_allocation(gemma3_path, n_ctx, kv_type, swa_full):
    measured, plan = _check(gemma3_path, RuntimeSettings.for_kv_type(kv_type, n_ctx=n_ctx, swa_full=swa_full))
    swa = next(g for g in plan.kv_groups if g.kind == "swa")
    assert swa.cells == (n_ctx if swa_full else min(n_ctx, 1024))


def test_process_memory_grows_by_about_the_plan(smollm2_path):
    """RSS after load is bounded by the plan: mapped weights are touched lazily, buffers are not all
    written at load, so growth stays under the estimate of weights + KV + compute."""
    settings = RuntimeSettings(n_ctx=2048)
    plan = plan_memory(read_model_facts(smollm2_path), settings, 16 * 2**30)
    with LlamaRuntime.load(smollm2_path, settings) as rt:
        growth = rt.allocation.rss_after_bytes - rt.allocation.rss_before_bytes
    assert 0 < growth <= plan.weights_bytes + plan.kv_bytes + plan.compute_bytes + 64 * MIB


@pytest.mark.parametrize("n_gpu_layers", [0, 31])
def test_the_pool_plan_equals_the_cpu_builds_allocation_buffer_by_buffer(smollm2_path, n_gpu_layers):
    """With no GPU the offload plan is the RAM plan, whatever layers are asked (llama.cpp has nowhere to put
    them): CPU_Mapped is the header's mapped span to the 0.01 MiB printed, the CPU KV buffer exact."""
    from precis.engine.planning.offload import plan_offload
    from precis.models.gguf.facts import read_model_layout
    facts, table = read_model_layout(smollm2_path)
    settings = RuntimeSettings(n_ctx=2048, n_gpu_layers=n_gpu_layers)
    plan = plan_offload(facts, table, settings, [], 16 * 2**30)
    with LlamaRuntime.load(smollm2_path, settings) as rt:
        measured = rt.allocation
    assert measured.devices == [] and measured.offloaded_layers == 0
    assert measured.model_buffers == {"CPU_Mapped": pytest.approx(plan.mapped_bytes / MIB, abs=0.005)}
    assert measured.on("RAM")["kv"] == pytest.approx(plan.ram.kv_bytes / MIB, abs=0.005)
    assert measured.on("RAM")["compute"] == pytest.approx(plan.ram.compute_bytes / MIB, rel=0.10)
