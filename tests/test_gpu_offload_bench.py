"""bench/gpu_offload.py's comparison, without loading anything: the plan for the bundled SmolLM2 (from its
header) against llama.cpp's load log printed with its own formats and the Vulkan build's numbers."""
from __future__ import annotations

import pytest

from bench.gpu_offload import compare, markdown, resolve_layers
from precis.engine.planning.offload import plan_offload
from precis.engine.runtime.allocation_log import parse_allocation
from precis.engine.runtime.devices import Device
from precis.engine.runtime.settings import RuntimeSettings
from precis.models.gguf.facts import read_model_layout
from tests.engine.test_allocation_log import VULKAN_LOAD, line

MIB = 2**20


def result_for(smollm2_path, log: str, n_gpu_layers: int = 10) -> dict:
    facts, table = read_model_layout(smollm2_path)
    device = Device("Vulkan0", "llvmpipe (LLVM 15.0.6, 256 bits)", "gpu", 2048 * MIB, 2048 * MIB, "Vulkan")
    plan = plan_offload(facts, table, RuntimeSettings(n_ctx=2048, n_gpu_layers=n_gpu_layers), [device], 16 << 30)
    return {"model": facts.name, "n_ctx": 2048, "gpu_layers": n_gpu_layers, "n_layer": facts.n_layer,
            "devices": [device.as_dict()], "plan": plan.as_dict(), "allocation": parse_allocation(log).as_dict(),
            "speeds": {"prompt_tps": 95.0, "generate_tps": 21.5}}


def test_the_plan_matches_llama_cpps_vulkan_allocation_pool_by_pool(smollm2_path):
    ram, vram = compare(result_for(smollm2_path, VULKAN_LOAD))
    assert (ram["pool"], vram["pool"]) == ("RAM", "Vulkan0")
    assert all(row[k] for row in (ram, vram) for k in ("weights_ok", "kv_ok", "compute_ok"))
    assert vram["weights_llama"] == 47.71 and ram["weights_llama"] == 92.10 and ram["kv_llama"] == 31.50
    assert vram["compute_error"] == pytest.approx((98.25 - 97.12) / 97.12, abs=0.001)    # +1.2%
    table = markdown([result_for(smollm2_path, VULKAN_LOAD)], [])
    assert "| Vulkan0 | 47.71 / 47.71 |" in table and "NO" not in table and "| 95.0 | 21.5 |" in table


def test_a_kv_cache_off_by_a_layer_is_flagged(smollm2_path):
    wrong = VULKAN_LOAD.replace("Vulkan0 KV buffer size =    13.50", "Vulkan0 KV buffer size =    15.00")
    _ram, vram = compare(result_for(smollm2_path, wrong))
    assert not vram["kv_ok"] and vram["weights_ok"]
    assert "NO" in markdown([result_for(smollm2_path, wrong)], [])


def test_repacked_host_weights_are_shown_not_held_against_the_plan(smollm2_path):
    log = VULKAN_LOAD + line("load_tensors", "%12s model buffer size = %8.2f MiB", "CPU_REPACK", 20.25)
    ram, _vram = compare(result_for(smollm2_path, log))
    assert not ram["weights_compared"] and ram["weights_ok"]
    assert "CPU_Mapped + CPU_REPACK, not compared" in markdown([result_for(smollm2_path, log)], [])


def test_layer_counts_as_llama_cpp_counts_them():
    assert [resolve_layers(s, 30) for s in ("0", "half", "all", "10", "99")] == [0, 15, 31, 10, 31]
