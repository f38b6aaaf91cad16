"""The offload plan: which layers llama.cpp puts on the GPU for N, and the bytes each pool then holds.

Placement and buffers as read in llama.cpp 0c1e57098 (engine/planning/offload.py's docstring); the bundled
SmolLM2's figures are what llama.cpp printed on this machine's Vulkan build (lavapipe). Tiny
GGUFs from tests/gguf_builder.py give exact, hand-checkable tensor tables.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from precis.engine.planning.memory_plan import MIB, layer_kv, plan_memory
from precis.engine.planning.offload import host_compute_bytes, layer_of, layer_placement, plan_offload
from precis.engine.runtime.devices import Device
from precis.engine.runtime.settings import RuntimeSettings
from precis.models.gguf.facts import read_model_layout
from tests.gguf_builder import llama_like, write_gguf

GIB = 2**30


def vulkan(free_mib: float, total_mib: float | None = None, name: str = "Vulkan0", max_tensor_mib: float = 0) -> Device:
    return Device(name, "a test GPU", "gpu", int(free_mib * MIB), int((total_mib or free_mib) * MIB), "Vulkan",
                  int(max_tensor_mib * MIB))


def tiny_model(tmp_path: Path, *, n_layer=4, n_embd=256, ff=512, tensor_type=1, output=False):
    md, tensors = llama_like(n_layer=n_layer, n_embd=n_embd, ff=ff, n_vocab=1000, tensor_type=tensor_type)
    if output:
        tensors += [("output_norm.weight", (n_embd,), 0), ("output.weight", (n_embd, 1000), tensor_type)]
    return read_model_layout(write_gguf(tmp_path / "tiny.gguf", md, tensors))


@pytest.mark.parametrize("n_gpu_layers, on_gpu, output_on_gpu", [
    (0, [], False),
    (1, [], True),                 # N counts the output layer first
    (2, [3], True),                # then repeating layers from the last one down
    (4, [1, 2, 3], True),
    (5, [0, 1, 2, 3], True),       # n_layer + 1: everything
    (99, [0, 1, 2, 3], True),
])
def test_layers_are_offloaded_as_llama_cpp_counts_them(n_gpu_layers, on_gpu, output_on_gpu):
    layers, output = layer_placement(4, n_gpu_layers, [8 * GIB])
    assert [il for il, d in enumerate(layers) if d == 0] == on_gpu
    assert [il for il, d in enumerate(layers) if d == -1] == [il for il in range(4) if il not in on_gpu]
    assert (output == 0) == output_on_gpu


def test_two_gpus_share_the_layers_by_free_memory():
    layers, output = layer_placement(4, 5, [3 * GIB, 1 * GIB])
    assert layers == [0, 0, 0, 0] and output == 1      # 4 of 5 positions below the 0.75 split point
    layers, output = layer_placement(4, 5, [1 * GIB, 1 * GIB])
    assert layers == [0, 0, 0, 1] and output == 1


def test_tensor_names_map_to_their_layers():
    assert layer_of("blk.12.attn_q.weight") == 12
    assert layer_of("token_embd.weight") == "input"
    assert layer_of("output.weight") == "output" and layer_of("output_norm.weight") == "output"
    assert layer_of("rope_freqs.weight") == "shared"
    assert layer_of("token_embd_norm.weight") == 0


def test_each_layers_weights_go_where_the_layer_goes(tmp_path):
    facts, table = tiny_model(tmp_path, output=True)
    per_layer = 256 * 256 * 2 + 256 * 512 * 2          # attn_q and ffn_up, f16
    embd, output = 256 * 1000 * 2, 256 * 4 + 256 * 1000 * 2
    gpu = [vulkan(4096)]
    for n, layers_on_gpu in ((0, 0), (1, 0), (3, 2), (5, 4)):
        plan = plan_offload(facts, table, RuntimeSettings(n_ctx=2048, n_gpu_layers=n), gpu, 16 * GIB)
        ram, dev = plan.ram, plan.devices[0]
        out_on_gpu = n >= 1
        assert dev.weights_bytes == layers_on_gpu * per_layer + (output if out_on_gpu else 0)
        assert ram.weights_bytes == embd + (4 - layers_on_gpu) * per_layer + (0 if out_on_gpu else output)
        assert dev.layers == layers_on_gpu and dev.holds_output == out_on_gpu
        assert ram.weights_bytes + dev.weights_bytes == table.total_bytes


def test_a_tied_output_gets_its_own_copy_of_the_embeddings_on_the_gpu(tmp_path):
    facts, table = tiny_model(tmp_path)                # no output.weight: the output reuses token_embd
    embd = 256 * 1000 * 2
    plan = plan_offload(facts, table, RuntimeSettings(n_ctx=2048, n_gpu_layers=5), [vulkan(4096)], 16 * GIB)
    assert plan.ram.weights_bytes == embd                         # the input layer stays on the CPU
    assert plan.devices[0].weights_bytes == table.total_bytes      # all layers + the copy of token_embd
    assert plan.mapped_bytes == embd                               # CPU_Mapped spans only token_embd now


def test_cuda_pads_quantized_rows_and_aligns_every_tensor(tmp_path):
    facts, table = tiny_model(tmp_path, tensor_type=2)            # q4_0, rows of 256 elements
    q_bytes, up_bytes = 256 * 256 // 32 * 18, 256 * 512 // 32 * 18
    pad_row = 256 // 32 * 18                   # one row of 512 - 256 elements more at each tensor's end
    cuda = Device("CUDA0", "a test GPU", "gpu", 8 * GIB, 8 * GIB, "CUDA")
    plan = plan_offload(facts, table, RuntimeSettings(n_ctx=2048, n_gpu_layers=2), [cuda], 16 * GIB)

    def aligned(n: int) -> int:
        return -(-n // 128) * 128
    copy = aligned(256 * 1000 // 32 * 18 + pad_row)                # the tied output's token_embd, padded once
    assert plan.devices[0].weights_bytes == aligned(q_bytes + pad_row) + aligned(up_bytes + pad_row) + copy
    vk = plan_offload(facts, table, RuntimeSettings(n_ctx=2048, n_gpu_layers=2), [vulkan(8192)], 16 * GIB)
    assert vk.devices[0].weights_bytes == q_bytes + up_bytes + 256 * 1000 // 32 * 18     # no row padding


def test_a_weight_larger_than_the_device_takes_stays_in_ram(tmp_path):
    facts, table = tiny_model(tmp_path, output=True)              # output.weight: 256 x 1000 f16, 500 KiB
    output_weight = 256 * 1000 * 2
    s = RuntimeSettings(n_ctx=2048, n_gpu_layers=5)
    whole = plan_offload(facts, table, s, [vulkan(4096)], 16 * GIB)
    small = plan_offload(facts, table, s, [vulkan(4096, max_tensor_mib=0.25)], 16 * GIB)
    assert small.devices[0].weights_bytes == whole.devices[0].weights_bytes - output_weight
    assert small.ram.weights_bytes == whole.ram.weights_bytes + output_weight
    assert small.mapped_bytes > whole.mapped_bytes                  # CPU_Mapped now reaches output.weight


def test_a_stage_whose_tensor_the_device_refuses_is_computed_on_the_cpu(tmp_path):
    facts, table = tiny_model(tmp_path, output=True)
    s = RuntimeSettings(n_ctx=2048, n_gpu_layers=5)
    inputs = host_compute_bytes(facts, s)
    logits = 4 * 512 * facts.n_vocab
    roomy = plan_offload(facts, table, s, [vulkan(4096)], 16 * GIB)
    assert roomy.ram.compute_bytes == inputs                        # every stage on the GPU
    # a device that takes no tensor as large as the logits leaves the output stage to the CPU
    narrow = plan_offload(facts, table, s, [vulkan(4096, max_tensor_mib=(logits - 4) / MIB)], 16 * GIB)
    assert narrow.ram.compute_bytes >= inputs + logits
    assert narrow.devices[0].compute_bytes < roomy.devices[0].compute_bytes
    assert roomy.left_to_cpu == () and "the logits" in narrow.left_to_cpu[0]     # and `precis plan` says why
    # and one that takes no KQ (n_kv x n_ubatch x n_head F32) leaves the attention to the CPU as well
    kq = 4 * 2048 * 512 * max(facts.n_head)
    tiny = plan_offload(facts, table, s, [vulkan(4096, max_tensor_mib=(kq - 4) / MIB)], 16 * GIB)
    assert tiny.ram.compute_bytes >= inputs + kq


def test_the_kv_cache_splits_by_layer_and_sums_to_the_cpu_plan(tmp_path):
    facts, table = tiny_model(tmp_path)
    s = RuntimeSettings(n_ctx=4096, n_gpu_layers=3)
    plan = plan_offload(facts, table, s, [vulkan(4096)], 16 * GIB)
    per_layer = sum(layer_kv(facts, s)[0])
    assert plan.devices[0].kv_bytes == 2 * per_layer and plan.ram.kv_bytes == 2 * per_layer
    assert plan.devices[0].kv_bytes + plan.ram.kv_bytes == plan_memory(facts, s, 16 * GIB).kv_bytes


def test_without_a_gpu_the_plan_is_the_cpu_plan(tmp_path):
    facts, table = tiny_model(tmp_path)
    s = RuntimeSettings(n_ctx=4096)
    plan, cpu = plan_offload(facts, table, s, [], 8 * GIB), plan_memory(facts, s, 8 * GIB)
    assert plan.devices == () and plan.ram.total_bytes == cpu.total_bytes and plan.verdict == cpu.verdict
    assert plan.ram.compute_bytes == cpu.compute_bytes


def test_with_a_gpu_the_cpu_only_computes_the_inputs(tmp_path):
    facts, table = tiny_model(tmp_path)
    s = RuntimeSettings(n_ctx=2048)
    plan = plan_offload(facts, table, s, [vulkan(4096)], 16 * GIB)
    # the GPU computes the prompt even with no layers (op offload): the CPU plan's worst case moves there
    assert plan.devices[0].compute_bytes >= plan_memory(facts, s, 16 * GIB).compute_bytes
    assert plan.ram.compute_bytes == host_compute_bytes(facts, s) < plan.devices[0].compute_bytes


def test_verdicts_keep_each_devices_margin(tmp_path):
    facts, table = tiny_model(tmp_path)
    s = RuntimeSettings(n_ctx=2048, n_gpu_layers=5)
    need = plan_offload(facts, table, s, [vulkan(64 * 1024)], 16 * GIB).devices[0].total_bytes / MIB
    # a device of 4x the need keeps its quarter: fits; just the need: tight; less: won't fit
    assert plan_offload(facts, table, s, [vulkan(4 * need + 1)], 16 * GIB).devices[0].verdict == "fits"
    assert plan_offload(facts, table, s, [vulkan(need + 0.5)], 16 * GIB).devices[0].verdict == "tight"
    assert plan_offload(facts, table, s, [vulkan(need - 0.5)], 16 * GIB).devices[0].verdict == "won't fit"
    big = plan_offload(facts, table, s, [vulkan(24 * 1024)], 16 * GIB).devices[0]
    assert big.margin_bytes == GIB                                     # llama.cpp's fit margin on a big card


# ----- the bundled SmolLM2 against what llama.cpp allocated on Vulkan (lavapipe), n_ctx 2048 -------------
LLAMA_CPP_VULKAN = {   # n_gpu_layers: CPU_Mapped model, Vulkan0 model, CPU KV, Vulkan0 KV, Vulkan0 compute
    10: (92.10, 47.71, 31.50, 13.50, 97.12),
    31: (28.69, 92.10, 0.0, 45.00, 98.25),
}


@pytest.mark.parametrize("n_gpu_layers", sorted(LLAMA_CPP_VULKAN))
def test_smollm2_split_matches_llama_cpps_own_vulkan_allocation(smollm2_path, n_gpu_layers):
    facts, table = read_model_layout(smollm2_path)      # the header only: no model is loaded
    plan = plan_offload(facts, table, RuntimeSettings(n_ctx=2048, n_gpu_layers=n_gpu_layers),
                        [vulkan(2048)], 16 * GIB)
    mapped, dev_model, ram_kv, dev_kv, dev_compute = LLAMA_CPP_VULKAN[n_gpu_layers]
    dev = plan.devices[0]
    assert plan.mapped_bytes / MIB == pytest.approx(mapped, abs=0.005)          # llama.cpp prints 2 decimals
    assert dev.weights_bytes / MIB == pytest.approx(dev_model, abs=0.005)
    assert plan.ram.kv_bytes / MIB == pytest.approx(ram_kv, abs=0.005)
    assert dev.kv_bytes / MIB == pytest.approx(dev_kv, abs=0.005)
    assert dev.compute_bytes / MIB == pytest.approx(dev_compute, rel=0.10)
    assert plan.ram.compute_bytes / MIB == pytest.approx(7.01, abs=0.005)       # "Vulkan_Host compute buffer"


# n_ctx 8192 on the same device, which takes no tensor past 128 MiB (maxStorageBufferRange, as the device
# answered engine.runtime.devices' question): the 144 MiB KQ of each layer's attention is computed on the CPU
LAVAPIPE_MAX_TENSOR_MIB = 128
LLAMA_CPP_VULKAN_8192 = {   # n_gpu_layers: Vulkan0 compute, Vulkan_Host compute (MiB, bench/results/gpu-offload.json)
    0: (126.34, 163.76),
    15: (97.12, 169.01),
    31: (97.12, 169.01),
}


@pytest.mark.parametrize("n_gpu_layers", sorted(LLAMA_CPP_VULKAN_8192))
def test_smollm2_at_8192_computes_attention_where_llama_cpp_did(smollm2_path, n_gpu_layers):
    facts, table = read_model_layout(smollm2_path)
    plan = plan_offload(facts, table, RuntimeSettings(n_ctx=8192, n_gpu_layers=n_gpu_layers),
                        [vulkan(2048, max_tensor_mib=LAVAPIPE_MAX_TENSOR_MIB)], 16 * GIB)
    dev_compute, host_compute = LLAMA_CPP_VULKAN_8192[n_gpu_layers]
    assert plan.devices[0].compute_bytes / MIB == pytest.approx(dev_compute, rel=0.10)
    assert plan.ram.compute_bytes / MIB == pytest.approx(host_compute, rel=0.10)
