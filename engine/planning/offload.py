"""Where llama.cpp puts a model when N layers go to the GPU, and what each memory pool then holds.

Read in llama.cpp 0c1e57098 (vendored by llama-cpp-python 0.3.36):
- Which layers (src/llama-model.cpp, load_tensors): ``i_gpu_start = max(n_layer + 1 - N, 0)``; layer il is
  offloaded when il >= i_gpu_start, the output layer (index n_layer) as soon as N >= 1. So N counts the output
  layer first, then repeating layers from the last one down: SmolLM2's "offloaded 10/31 layers" is its output
  and layers 21..29 (the Vulkan log: 9 layers' KV on Vulkan0, 21 in RAM). The input layer (token embeddings)
  always stays on the CPU. Several GPUs share the offloaded layers in proportion to their free memory.
- Which tensors are a layer's (src/llama-arch.cpp, LLM_TENSOR_INFOS): blk.N.* are layer N's; token_embd,
  pos_embd, token_types and per_layer_token_embd are the input layer's; output, output_norm and the other
  tensors outside blocks are the output layer's; rope_freqs / rope_factors_* are duplicated on every device
  that holds a layer; token_embd_norm goes with layer 0. Without output.weight (tied embeddings) the output
  layer's device gets its own copy of token_embd.
- A device's weight buffer (ggml-alloc.c, ggml_backend_alloc_ctx_tensors_from_buft): each tensor's allocation
  size padded to the buffer type's alignment; CUDA's allocation size pads quantized rows to 512 elements
  (ggml-cuda.cu, MATRIX_ROW_PADDING). Host weights stay memory-mapped: CPU_Mapped is the file's span from the
  first host tensor to the end of the last (``mapped_bytes``), the RAM they occupy is their own bytes.
- KV cache (src/llama-kv-cache.cpp): layer il's K and V live in layer il's device's buffer.
- Compute buffers (src/llama-context.cpp, sched_reserve; ggml-backend.cpp's scheduler): with a GPU in the
  build, prompt processing runs the graph on the first GPU, also the layers whose weights stay on the CPU
  (op offload, batches of 32 tokens or more, whatever N is), stage by stage: the output (logits), each
  layer's attention (KQ) and its feed-forward. A device's compute buffer is its largest stage: the output's
  peak plus a copy of the output matrix when that matrix stays in RAM; attention's KQ, Q, the merged heads and
  a copy of the KQ mask, plus one layer's K and V when a layer's cache stays in RAM; the feed-forward's gate,
  up and product. A stage whose largest tensor the device refuses (Device.max_tensor_bytes; ggml-vulkan's
  supports_op rejects a tensor past maxStorageBufferRange: 128 MiB on lavapipe, so Qwen2.5's 297 MiB logits
  and SmolLM2's 144 MiB KQ at n_ctx 8192) runs on the CPU instead, as does the product with a weight the
  device refused (kept in RAM at load, weight_buft_supported: Qwen2.5-0.5B's 138 MiB output.weight).
  The CPU's compute buffer (in the GPU's pinned host memory: "Vulkan_Host", "CUDA_Host") holds the graph's
  inputs: token ids, the embeddings input and the token-embedding lookup (2 x n_embd x n_ubatch F32),
  positions, the KQ mask per cache (n_kv x n_ubatch, F32, F16 with flash attention), output ids and the KV
  write indices (one per V element without flash attention, which stores V transposed); for SmolLM2 at n_ctx
  2048 that sums to 7.01 MiB, the "Vulkan_Host compute buffer size" llama.cpp printed on the Vulkan build
  here. To those it adds the largest stage left to the CPU (with a copy of a GPU layer's K and V for its
  attention). Measured against llama.cpp's allocation on lavapipe: docs/memory.md.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache

from precis.engine.planning.memory_plan import (
    RUNTIME_OVERHEAD_BYTES,
    SAFE_FRACTION,
    compute_buffer_bytes,
    compute_peaks,
    layer_kv,
    output_buffer_bytes,
    saved_states_bytes,
    swa_cells,
)
from precis.engine.planning.model_facts import ModelFacts, TensorTable, WeightTensor
from precis.engine.runtime.devices import Device
from precis.engine.runtime.settings import RuntimeSettings, pad_ctx

HOST = "RAM"
HOST_ALIGNMENT = 32                   # ggml's TENSOR_ALIGNMENT: the CPU buffer type's alignment
# Per backend: (buffer alignment in bytes, quantized rows padded to this many elements; 0: none).
# CUDA (and HIP, named ROCm) 128 and 512: ggml-cuda.cu; Metal 32; Vulkan minStorageBufferOffsetAlignment,
# a device limit (16 on most desktop drivers, at most 256 by the Vulkan spec).
BUFFER_RULES = {"CUDA": (128, 512), "ROCm": (128, 512), "MTL": (32, 0), "Metal": (32, 0), "Vulkan": (16, 0)}
DEFAULT_RULE = (32, 0)
# A device keeps this much free: llama.cpp's own fit leaves 1 GiB per device (common.h, fit_params_target:
# the driver's own allocations, the desktop, a browser's share of VRAM), or a quarter of a smaller device.
DEVICE_MARGIN_BYTES = 1 << 30
DEVICE_MARGIN_FRACTION = 0.25
INPUT_TENSORS = ("token_embd.", "pos_embd.", "token_types.", "per_layer_token_embd.")
SHARED_TENSORS = ("rope_freqs.", "rope_factors_long.", "rope_factors_short.")


@dataclass(frozen=True)
class PoolPlan:
    """What one memory pool holds: the RAM, or one GPU's VRAM."""
    name: str                # "RAM", or llama.cpp's device name ("Vulkan0", "CUDA0")
    description: str
    weights_bytes: int
    kv_bytes: int
    compute_bytes: int
    other_bytes: int         # RAM: the output buffer, the runtime, the saved prompt states (and a unified GPU's
                             # share); device: 0
    available_bytes: int     # free now
    margin_bytes: int        # kept free for everything else: the verdict's "fits" line
    layers: int = 0          # repeating layers whose weights are here
    holds_output: bool = False

    @property
    def total_bytes(self) -> int:
        return self.weights_bytes + self.kv_bytes + self.compute_bytes + self.other_bytes

    @property
    def verdict(self) -> str:
        if self.total_bytes <= self.available_bytes - self.margin_bytes:
            return "fits"
        if self.total_bytes <= self.available_bytes:
            return "tight"
        return "won't fit"

    def as_dict(self) -> dict:
        return {"name": self.name, "description": self.description, "weights_bytes": self.weights_bytes,
                "kv_bytes": self.kv_bytes, "compute_bytes": self.compute_bytes, "other_bytes": self.other_bytes,
                "total_bytes": self.total_bytes, "available_bytes": self.available_bytes,
                "margin_bytes": self.margin_bytes, "free_after_bytes": self.available_bytes - self.total_bytes,
                "verdict": self.verdict, "layers": self.layers, "holds_output": self.holds_output}


@dataclass(frozen=True)
class OffloadPlan:
    settings: RuntimeSettings          # n_gpu_layers included
    n_layer: int
    pools: tuple[PoolPlan, ...]        # RAM first, then each GPU in llama.cpp's order
    mapped_bytes: int                  # the host's CPU_Mapped span of the file
    weights_exact: bool                # False: no tensor table, weights spread evenly over the layers
    # what a device refused for its size and so stays with the CPU, said for a person: "the logits (296.8 MiB):
    # Vulkan0 takes tensors up to 128.0 MiB"
    left_to_cpu: tuple[str, ...] = ()

    @property
    def ram(self) -> PoolPlan:
        return self.pools[0]

    @property
    def devices(self) -> tuple[PoolPlan, ...]:
        return self.pools[1:]

    @property
    def gpu_layers(self) -> int:
        return min(self.settings.n_gpu_layers, self.n_layer + 1) if self.devices else 0

    @property
    def max_gpu_layers(self) -> int:
        return self.n_layer + 1

    @property
    def verdict(self) -> str:
        order = ("fits", "tight", "won't fit")
        return max((p.verdict for p in self.pools), key=order.index)

    @property
    def short_pools(self) -> list[PoolPlan]:
        return [p for p in self.pools if p.verdict == "won't fit"]

    def as_dict(self) -> dict:
        return {"gpu_layers": self.gpu_layers, "max_gpu_layers": self.max_gpu_layers, "n_ctx": self.settings.n_ctx,
                "verdict": self.verdict, "mapped_bytes": self.mapped_bytes, "weights_exact": self.weights_exact,
                "left_to_cpu": list(self.left_to_cpu), "pools": [p.as_dict() for p in self.pools]}


def device_margin_bytes(device: Device) -> int:
    return int(min(DEVICE_MARGIN_BYTES, DEVICE_MARGIN_FRACTION * device.total_bytes))


def buffer_rule(device: Device) -> tuple[int, int]:
    for prefix, rule in BUFFER_RULES.items():
        if device.backend == prefix or device.name.startswith(prefix):
            return rule
    return DEFAULT_RULE


def layer_placement(n_layer: int, n_gpu_layers: int, free_bytes: list[int]) -> tuple[list[int], int]:
    """(device index of each repeating layer, of the output layer); -1 is the CPU. As load_tensors does it."""
    if not free_bytes or n_gpu_layers <= 0:
        return [-1] * n_layer, -1
    total = sum(free_bytes)
    shares = [f / total for f in free_bytes] if total else [1 / len(free_bytes)] * len(free_bytes)
    splits, acc = [], 0.0
    for share in shares:
        acc += share
        splits.append(acc)
    i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0)
    act = min(n_gpu_layers, n_layer + 1)

    def device_of(il: int) -> int:
        if il < i_gpu_start or il - i_gpu_start >= act:
            return -1
        return min(bisect_right(splits, (il - i_gpu_start) / act), len(splits) - 1)

    return [device_of(il) for il in range(n_layer)], device_of(n_layer)


@dataclass(frozen=True)
class _Weights:
    """Weight bytes by where they go, under one buffer rule and one device's largest tensor."""
    per_layer: tuple[int, ...]
    input_bytes: int
    output_bytes: int        # the output layer's own tensors (output_norm, output.weight when not tied)
    shared_bytes: int        # duplicated on every pool that holds a layer
    tied_output_bytes: int   # the copy of token_embd a tied output needs off the CPU (0 when not tied)
    output_matrix_bytes: int = 0     # output.weight, or token_embd when tied: what the logits multiply by
    # tensors larger than the device takes (Device.max_tensor_bytes) stay in RAM even in an offloaded layer:
    # their bytes as the host holds them, by layer and for the output layer; and their names
    spilled_per_layer: tuple[int, ...] = ()
    spilled_output_bytes: int = 0
    spilled: frozenset[str] = frozenset()


def _alloc_bytes(t: WeightTensor, alignment: int, row_pad: int) -> int:
    size = t.nbytes
    if row_pad and t.block_elems > 1 and t.row_elems % row_pad:
        size += t.row_bytes(row_pad - t.row_elems % row_pad)
    return -(-size // alignment) * alignment


def layer_of(name: str) -> int | str:
    """A tensor's layer: its block number, or "input", "output", "shared"."""
    if name.startswith("blk."):
        number = name.split(".", 2)[1]
        if number.isdigit():
            return int(number)
    if name.startswith(INPUT_TENSORS):
        return "input"
    if name.startswith(SHARED_TENSORS):
        return "shared"
    if name.startswith("token_embd_norm."):
        return 0
    return "output"


@lru_cache(maxsize=64)
def _weights(table: TensorTable, n_layer: int, alignment: int, row_pad: int, padded: bool,
             max_tensor_bytes: int = 0) -> _Weights:
    per_layer = [0] * n_layer
    spilled_layer = [0] * n_layer
    inp = out = shared = tied = matrix = spilled_out = 0
    spilled = set()
    has_output = any(t.name == "output.weight" for t in table.tensors)
    for t in table.tensors:
        size = _alloc_bytes(t, alignment, row_pad) if padded else t.nbytes
        where = layer_of(t.name)
        too_big = bool(max_tensor_bytes) and where != "input" and size > max_tensor_bytes
        if t.name == "output.weight" or (t.name == "token_embd.weight" and not has_output):
            matrix = size
        if where == "input":
            inp += size
            if t.name == "token_embd.weight" and not has_output and not (max_tensor_bytes
                                                                         and size > max_tensor_bytes):
                tied = size
        elif too_big:
            # llama.cpp asks the device whether it takes the tensor's op (weight_buft_supported) and keeps it
            # in the CPU's mapped buffer when not (a 138 MiB output.weight on a 128 MiB-binding Vulkan device)
            spilled.add(t.name)
            if isinstance(where, int) and 0 <= where < n_layer:
                spilled_layer[where] += t.nbytes
            elif where != "shared":
                spilled_out += t.nbytes
        elif where == "output":
            out += size
        elif where == "shared":
            shared += size
        elif 0 <= where < n_layer:
            per_layer[where] += size
        else:                       # a block number past block_count (an MTP layer): llama.cpp's output side
            out += size
    return _Weights(tuple(per_layer), inp, out, shared, tied, matrix, tuple(spilled_layer), spilled_out,
                    frozenset(spilled))


def _even_weights(facts: ModelFacts) -> _Weights:
    """No tensor table (facts built by hand): the weights spread evenly over the layers."""
    each = facts.tensor_bytes // max(1, facts.n_layer)
    rest = facts.tensor_bytes - each * facts.n_layer
    return _Weights((each,) * facts.n_layer, 0, rest, 0, 0, rest, (0,) * facts.n_layer)


def host_compute_bytes(facts: ModelFacts, s: RuntimeSettings) -> int:
    """The CPU's compute buffer when a GPU runs the graph: its inputs (see the module docstring)."""
    n_ub = min(s.n_ubatch, pad_ctx(s.n_ctx))
    if facts.recurrent_layers and all(facts.recurrent_layers):
        caches = []
    elif facts.uses_swa:
        caches = [swa_cells(facts, s)] + ([] if all(facts.swa_layers) else [pad_ctx(s.n_ctx)])
    else:
        caches = [pad_ctx(s.n_ctx)]
    n_embd_v = max((facts.n_head_kv[il] * facts.layer_head_dims(il)[1] for il in range(facts.n_layer)), default=0)
    mask_elem_bytes = 2 if s.flash_attn else 4
    v_indices = n_ub if s.flash_attn else n_ub * n_embd_v
    # token ids, embeddings input, the lookup's result, positions, output ids
    inputs = 4 * n_ub + 2 * 4 * facts.n_embd * n_ub + 4 * n_ub + 4 * n_ub
    # per cache: the KQ mask, and the K and V write indices (I64)
    return inputs + sum(mask_elem_bytes * cells * n_ub + 8 * n_ub + 8 * v_indices for cells in caches)


def _fits(nbytes: int, device: Device) -> bool:
    """Whether ``device`` takes an op with a tensor of ``nbytes`` (ggml-vulkan refuses one past the device's
    maxStorageBufferRange or its largest buffer: engine.runtime.devices, ``max_tensor_bytes``)."""
    return not device.max_tensor_bytes or nbytes <= device.max_tensor_bytes


@dataclass(frozen=True)
class _Stages:
    """The graph's stages whose peaks set a compute buffer, in bytes (see the module docstring)."""
    output: int              # logits and the final norm's input and output
    logits: int              # the largest tensor of the output stage
    attention: int           # KQ, Q, the merged heads and the KQ mask's copy (0 with flash attention)
    kq: int                  # the largest tensor of the attention stage
    mask: int                # the KQ mask: a graph input the CPU holds anyway, copied to a GPU that uses it
    ffn: int                 # gate, up and their product, and the embeddings in and out
    ffn_largest: int


def _stages(facts: ModelFacts, s: RuntimeSettings) -> _Stages:
    n_ub = min(s.n_ubatch, pad_ctx(s.n_ctx))
    output_peak, _ = compute_peaks(facts, s)
    logits = 4 * n_ub * facts.n_vocab
    kq = attention = mask = 0
    if not s.flash_attn:
        n_kv = swa_cells(facts, s) if facts.uses_swa and all(facts.swa_layers) else pad_ctx(s.n_ctx)
        n_head = max(facts.n_head) if facts.n_head else 0
        kq = 4 * n_kv * n_ub * n_head
        mask = 4 * n_kv * n_ub
        attention = kq + mask + 3 * 4 * n_ub * facts.n_embd
    ffn = 4 * n_ub * (3 * facts.n_ff + 3 * facts.n_embd)
    return _Stages(output_peak, logits, attention, kq, mask, ffn, 4 * n_ub * facts.n_ff)


def plan_offload(facts: ModelFacts, table: TensorTable | None, s: RuntimeSettings, devices: list[Device],
                 available_ram_bytes: int) -> OffloadPlan:
    """The bytes each pool holds with ``s.n_gpu_layers`` layers on ``devices`` (llama.cpp's offload targets,
    in order; none: everything in RAM, exactly as the CPU memory plan)."""
    n_layer = facts.n_layer
    placement, output_dev = layer_placement(n_layer, s.n_gpu_layers, [d.free_bytes for d in devices])
    kv = layer_kv(facts, s)

    def weights(rule: tuple[int, int] | None, max_tensor_bytes: int = 0) -> _Weights:
        if table is None or not table.tensors:
            return _even_weights(facts)
        alignment, row_pad = rule or (HOST_ALIGNMENT, 0)
        return _weights(table, n_layer, alignment, row_pad, rule is not None, max_tensor_bytes)

    if not devices:
        return _cpu_only(facts, s, weights(None), kv, available_ram_bytes, table)
    host_w = weights(None)
    host_layers = [il for il in range(n_layer) if placement[il] == -1]
    ram_weights = host_w.input_bytes + sum(host_w.per_layer[il] for il in host_layers) \
        + (host_w.output_bytes if output_dev == -1 else 0) + (host_w.shared_bytes if host_layers else 0)
    ram_kv = sum(k + v for il, (k, v) in enumerate(kv) if placement[il] == -1)
    stages = _stages(facts, s)
    # a layer's K and V are copied to the pool that computes its attention when they live in another one
    kv_copy_host = max((k + v for il, (k, v) in enumerate(kv) if placement[il] == -1), default=0)
    kv_copy_dev = max((k + v for il, (k, v) in enumerate(kv) if placement[il] != -1), default=0)
    host_stages = [0]
    left: list[str] = []
    pools = []
    unified = 0
    spilled_names: set[str] = set()
    for d_index, device in enumerate(devices):
        alignment, _pad = rule = buffer_rule(device)
        w = weights(rule, device.max_tensor_bytes)
        mine = [il for il in range(n_layer) if placement[il] == d_index]
        holds_output = output_dev == d_index
        dev_weights = sum(w.per_layer[il] for il in mine) + (w.shared_bytes if mine else 0)
        ram_weights += sum(w.spilled_per_layer[il] for il in mine)
        if holds_output:
            dev_weights += w.output_bytes + w.tied_output_bytes
            ram_weights += w.spilled_output_bytes
        spilled_here = {n for n in w.spilled if (layer_of(n) in mine) or (holds_output and (
            layer_of(n) == "output" or isinstance(layer_of(n), int) and layer_of(n) >= n_layer))}
        spilled_names |= spilled_here
        refused = [f"{t.name} ({_mib(t.nbytes)})" for t in (table.tensors if table else ())
                   if t.name in spilled_here][:3]
        dev_kv = sum(_pad_to(k, alignment) + _pad_to(v, alignment) for il, (k, v) in enumerate(kv)
                     if placement[il] == d_index)
        # Prompt batches run on the first GPU even for the layers left on the CPU (op offload), each stage
        # where the device takes its largest tensor; a stage it does not take runs on the CPU.
        works_for_cpu = d_index == 0 and (bool(host_layers) or output_dev == -1)
        computes_layers = bool(mine) or works_for_cpu
        output_here = holds_output or (d_index == 0 and output_dev == -1)
        compute = 0
        if output_here:
            if _fits(stages.logits, device) and _fits(w.output_matrix_bytes, device):
                # an output matrix left in RAM is copied into the compute buffer to multiply by
                compute = stages.output + (0 if holds_output else w.output_matrix_bytes)
            else:
                host_stages.append(stages.output)
                refused.append(f"the logits ({_mib(stages.logits)})" if not _fits(stages.logits, device)
                               else "the output's product with its matrix")
        if computes_layers and stages.attention:
            if _fits(stages.kq, device):
                compute = max(compute, stages.attention + (kv_copy_host if works_for_cpu else 0))
            else:
                host_stages.append(stages.attention - stages.mask + (kv_copy_dev if mine else 0))
                refused.append(f"attention (KQ {_mib(stages.kq)} per layer)")
        if computes_layers:
            if _fits(stages.ffn_largest, device):
                compute = max(compute, stages.ffn)
            else:
                host_stages.append(stages.ffn)
                refused.append(f"the feed-forward ({_mib(stages.ffn_largest)})")
        if refused:
            left.append(f"{', '.join(refused)}: {device.name} takes tensors up to {_mib(device.max_tensor_bytes)}")
        pool = PoolPlan(device.name, device.description, dev_weights, dev_kv, compute, 0, device.free_bytes,
                        device_margin_bytes(device), len(mine), holds_output)
        if device.shares_ram:
            unified += pool.total_bytes
        pools.append(pool)
    # the CPU's compute buffer holds the graph's inputs, and the largest stage left to it
    ram = PoolPlan(HOST, "system memory", ram_weights, ram_kv, host_compute_bytes(facts, s) + max(host_stages),
                   output_buffer_bytes(facts) + RUNTIME_OVERHEAD_BYTES + _states_bytes(facts, s, kv) + unified,
                   available_ram_bytes,
                   int((1 - SAFE_FRACTION) * available_ram_bytes), len(host_layers), output_dev == -1)
    return OffloadPlan(s, n_layer, (ram, *pools),
                       _mapped_span(table, n_layer, placement, output_dev, frozenset(spilled_names)),
                       table is not None and bool(table.tensors), tuple(left))


def _states_bytes(facts: ModelFacts, s: RuntimeSettings, kv: list[tuple[int, int]]) -> int:
    """The saved prompt states' bound (engine.runtime.prompt_states): copies of the cache's cells in RAM, wherever
    the layers' cells are."""
    return saved_states_bytes(facts, s, sum(k + v for k, v in kv))


def _mib(nbytes: int) -> str:
    return f"{nbytes / 2**20:,.1f} MiB"


def _cpu_only(facts: ModelFacts, s: RuntimeSettings, w: _Weights, kv, available_ram_bytes: int,
              table: TensorTable | None) -> OffloadPlan:
    """No offload device: everything in RAM, exactly as the CPU memory plan."""
    ram = PoolPlan(HOST, "system memory", w.input_bytes + sum(w.per_layer) + w.output_bytes + w.shared_bytes,
                   sum(k + v for k, v in kv), compute_buffer_bytes(facts, s),
                   output_buffer_bytes(facts) + RUNTIME_OVERHEAD_BYTES + _states_bytes(facts, s, kv),
                   available_ram_bytes, int((1 - SAFE_FRACTION) * available_ram_bytes), facts.n_layer, True)
    return OffloadPlan(s, facts.n_layer, (ram,), _mapped_span(table, facts.n_layer, [-1] * facts.n_layer, -1),
                       table is not None and bool(table.tensors))


def _pad_to(nbytes: int, alignment: int) -> int:
    return -(-nbytes // alignment) * alignment


def _mapped_span(table: TensorTable | None, n_layer: int, placement: list[int], output_dev: int,
                 spilled: frozenset[str] = frozenset()) -> int:
    """CPU_Mapped's size: from the first host tensor's bytes in the file to the end of the last one's (a tensor
    too large for its layer's device, in ``spilled``, is a host tensor)."""
    if table is None or not table.tensors:
        return 0
    first, last = None, 0
    for t in table.tensors:
        where = layer_of(t.name)
        if where == "input" or t.name in spilled:
            on_host = True
        elif where == "shared":
            on_host = -1 in placement
        elif where == "output" or where >= n_layer:
            on_host = output_dev == -1
        else:
            on_host = placement[where] == -1
        if on_host:
            first = t.offset_bytes if first is None else min(first, t.offset_bytes)
            last = max(last, t.offset_bytes + t.nbytes)
    return 0 if first is None else last - first
