"""llama.cpp's load log read per buffer and device, and a load that ran out of memory told by pool.

The lines are printed with llama.cpp 0c1e57098's own formats (the printf strings in src/llama.cpp,
llama-model.cpp, llama-kv-cache.cpp, llama-context.cpp, ggml-alloc.c, ggml-cuda.cu), the numbers those
llama.cpp printed for SmolLM2 with 10 layers on lavapipe at n_ctx 2048.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from precis.engine.runtime.allocation_log import memory_failure, parse_allocation
from precis.engine.runtime.llama import out_of_memory_message
from precis.engine.runtime.settings import RuntimeSettings


def line(func: str, fmt: str, *args) -> str:
    """A log line as llama.cpp's printf makes it (C's %zu / %u are Python's %d)."""
    return f"{func}: " + (fmt.replace("%zu", "%d").replace("%u", "%d").replace("%6u", "%6d").replace("%2u", "%2d")
                          % args) + "\n"


VULKAN_LOAD = "".join([
    line("llama_prepare_model_devices", "using device %s (%s) (%s) - %d MiB free", "Vulkan0",
         "llvmpipe (LLVM 15.0.6, 256 bits)", "unknown id", 2048),
    line("load_tensors", "offloading output layer to GPU"),
    line("load_tensors", "offloading %d repeating layers to GPU", 9),
    line("load_tensors", "offloaded %d/%d layers to GPU", 10, 31),
    line("load_tensors", "%12s model buffer size = %8.2f MiB", "CPU_Mapped", 92.10),
    line("load_tensors", "%12s model buffer size = %8.2f MiB", "Vulkan0", 47.71),
    line("llama_context", "%10s  output buffer size = %8.2f MiB", "Vulkan_Host", 0.19),
    line("llama_kv_cache", "%10s KV buffer size = %8.2f MiB", "CPU", 31.50),
    line("llama_kv_cache", "%10s KV buffer size = %8.2f MiB", "Vulkan0", 13.50),
    line("llama_kv_cache", "size = %7.2f MiB (%6u cells, %3d layers, %2u/%u seqs), K (%s): %7.2f MiB, V (%s): %7.2f MiB",
         45.00, 2048, 30, 1, 1, "f16", 22.50, "f16", 22.50),
    line("sched_reserve", "%10s compute buffer size = %8.2f MiB", "Vulkan0", 97.12),
    line("sched_reserve", "%10s compute buffer size = %8.2f MiB", "Vulkan_Host", 7.01),
])


def test_every_buffer_is_read_with_its_name():
    m = parse_allocation(VULKAN_LOAD)
    assert m.model_buffers == {"CPU_Mapped": 92.10, "Vulkan0": 47.71}
    assert m.kv_buffers == {"CPU": 31.50, "Vulkan0": 13.50}
    assert m.compute_buffers == {"Vulkan0": 97.12, "Vulkan_Host": 7.01}
    assert m.output_buffers == {"Vulkan_Host": 0.19}
    assert m.devices == [{"name": "Vulkan0", "description": "llvmpipe (LLVM 15.0.6, 256 bits)", "free_mib": 2048}]
    assert (m.offloaded_layers, m.offloadable_layers) == (10, 31)
    assert m.kv_mib == pytest.approx(45.00) and m.compute_mib == pytest.approx(104.13)   # totals as before


def test_pools_gather_the_host_buffers_apart_from_the_device():
    m = parse_allocation(VULKAN_LOAD)
    assert m.on("Vulkan0") == {"model": 47.71, "kv": 13.50, "compute": 97.12, "output": 0}
    ram = m.on("RAM")
    assert ram["model"] == 92.10 and ram["kv"] == 31.50 and ram["compute"] == 7.01 and ram["output"] == 0.19


def test_the_cpu_build_log_reads_as_before():
    cpu = "".join([line("load_tensors", "%12s model buffer size = %8.2f MiB", "CPU_Mapped", 92.10),
                   line("llama_kv_cache", "%10s KV buffer size = %8.2f MiB", "CPU", 180.00),
                   line("sched_reserve", "%10s compute buffer size = %8.2f MiB", "CPU", 166.38)])
    m = parse_allocation(cpu)
    assert m.devices == [] and m.offloaded_layers == 0
    assert m.model_buffer_mib == 92.10 and m.on("RAM")["compute"] == 166.38


@pytest.mark.parametrize("log, pool, part, mib", [
    (line("alloc_tensor_range", "failed to allocate %s buffer of size %zu", "Vulkan0", 1_500_000_000)
     + line("llama_model_load", "error loading model: %s", "unable to allocate Vulkan0 buffer"),
     "Vulkan0", "weights", 1430.51),
    (line("alloc_tensor_range", "failed to allocate %s buffer of size %zu", "CUDA0", 805_306_368)
     + line("llama_init_from_model", "failed to initialize the context: %s", "failed to allocate buffer for kv cache"),
     "CUDA0", "KV cache", 768.0),
    (line("ggml_gallocr_reserve_n_impl", "failed to allocate %s buffer of size %zu", "Vulkan0", 314_572_800)
     + line("graph_reserve", "failed to allocate compute buffers")
     + line("llama_init_from_model", "failed to initialize the context: %s", "failed to allocate compute pp buffers"),
     "Vulkan0", "compute buffer", 300.0),
    (line("ggml_backend_cuda_buffer_type_alloc_buffer", "allocating %.2f MiB on device %d: cudaMalloc failed: %s",
          2048.0, 0, "out of memory")
     + line("alloc_tensor_range", "failed to allocate %s buffer of size %zu", "CUDA0", 2 << 30)
     + line("llama_model_load", "error loading model: %s", "unable to allocate CUDA0 buffer"),
     "CUDA0", "weights", 2048.0),
    (line("ggml_gallocr_reserve_n_impl", "failed to allocate %s buffer of size %zu", "CPU", 1 << 30)
     + line("graph_reserve", "failed to allocate compute buffers"), "RAM", "compute buffer", 1024.0),
])
def test_a_failed_allocation_names_its_pool_and_part(log, pool, part, mib):
    failure = memory_failure("llama_model_loader: loaded meta data\n" + log)
    assert (failure.pool, failure.part) == (pool, part)
    assert failure.mib == pytest.approx(mib, abs=0.01)


def test_a_failure_that_is_not_memory_is_left_to_the_general_message():
    assert memory_failure(line("llama_model_load", "error loading model: %s", "unknown model architecture")) is None


def test_the_message_says_which_pool_and_what_to_lower():
    log = (line("alloc_tensor_range", "failed to allocate %s buffer of size %zu", "Vulkan0", 1 << 30)
           + line("llama_model_load", "error loading model: %s", "unable to allocate Vulkan0 buffer"))
    text = out_of_memory_message(Path("m.gguf"), RuntimeSettings(n_ctx=8192, n_gpu_layers=25), memory_failure(log))
    assert "the GPU Vulkan0" in text and "1,024.0 MiB for the weights" in text
    assert "fewer --gpu-layers (this load asked for 25)" in text and "nothing is lost" in text
    ram = memory_failure(line("ggml_gallocr_reserve_n_impl", "failed to allocate %s buffer of size %zu", "CPU", 1 << 30))
    text = out_of_memory_message(Path("m.gguf"), RuntimeSettings(n_ctx=8192, n_gpu_layers=10), ram)
    assert "in the RAM" in text and "more --gpu-layers" in text
