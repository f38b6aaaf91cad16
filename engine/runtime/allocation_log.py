"""What llama.cpp really allocated, read from the log lines it prints while loading a model.

Lines parsed (llama.cpp 0c1e57098; each buffer line names its buffer: the device's "Vulkan0", "CUDA0",
"MTL0", the host's "CPU", "CPU_Mapped", or a GPU's pinned host memory "Vulkan_Host", "CUDA_Host"):
  llama_prepare_model_devices: using device Vulkan0 (llvmpipe (LLVM 15.0.6, 256 bits)) (unknown id) - 2048 MiB free
  load_tensors: offloaded 10/31 layers to GPU
  load_tensors:   CPU_Mapped model buffer size =    92.10 MiB        (src/llama-model.cpp, load_tensors)
  load_tensors:      Vulkan0 model buffer size =    47.71 MiB
  llama_kv_cache:        CPU KV buffer size =    31.50 MiB         (src/llama-kv-cache.cpp, one per buffer)
  llama_kv_cache: size =  180.00 MiB (  8192 cells,  30 layers,  1/1 seqs), K (f16):   90.00 MiB, V (f16):   90.00 MiB
  llama_memory_recurrent:        CPU RS buffer size =     0.12 MiB
  llama_memory_recurrent: size =    0.12 MiB (     1 cells,  24 layers,  1 seqs), R (f32): ..., S (f32): ...
  sched_reserve:      Vulkan0 compute buffer size =    97.12 MiB     (src/llama-context.cpp, sched_reserve)
  sched_reserve:  Vulkan_Host compute buffer size =     7.01 MiB
  llama_context:  Vulkan_Host  output buffer size =     0.19 MiB
llama.cpp prints MiB with two decimals, so every number here is known to +-0.005 MiB.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

MIB = 2**20

_MODEL_BUF = re.compile(r"load_tensors:\s+(\S+) model buffer size =\s+([\d.]+) MiB")
_KV_BUF = re.compile(r"(?:llama_kv_cache|llama_memory_recurrent):\s+(\S+) (?:KV|RS) buffer size =\s+([\d.]+) MiB")
_DEVICE = re.compile(r"using device (\S+) \((.*)\) \((.*?)\) - (\d+) MiB free")
_OFFLOADED = re.compile(r"offloaded (\d+)/(\d+) layers to GPU")
# A buffer that could not be allocated: ggml-alloc.c (weights, KV, compute), ggml-cuda.cu, ggml-metal.
_ALLOC_FAILED = re.compile(r"failed to allocate (\S+) buffer of size (\d+)|allocating ([\d.]+) MiB on device (\d+): "
                           r"cudaMalloc failed|failed to allocate buffer, size =\s+([\d.]+) MiB")
_KV = re.compile(r"llama_kv_cache: size =\s+([\d.]+) MiB \(\s*(\d+) cells,\s*(\d+) layers.*?"
                 r"K \((\w+)\):\s+([\d.]+) MiB, V \((\w+)\):\s+([\d.]+) MiB")
_RS = re.compile(r"llama_memory_recurrent: size =\s+([\d.]+) MiB \(\s*(\d+) cells,\s*(\d+) layers")
_COMPUTE = re.compile(r"(\S+) compute buffer size =\s+([\d.]+) MiB")
_OUTPUT = re.compile(r"(\S+)\s+output buffer size =\s+([\d.]+) MiB")


@dataclass(frozen=True)
class KVCacheLine:
    cells: int
    layers: int
    k_mib: float
    v_mib: float
    type_k: str
    type_v: str

    @property
    def total_mib(self) -> float:
        return self.k_mib + self.v_mib


@dataclass
class MeasuredAllocation:
    """The allocation llama.cpp reported, plus what the process measured around the load."""
    model_buffer_mib: float = 0.0
    kv_caches: list[KVCacheLine] = field(default_factory=list)
    recurrent_mib: float = 0.0
    compute_mib: float = 0.0
    output_mib: float = 0.0
    model_size_bytes: int = 0        # llama_model_size(): bytes of all weight tensors
    rss_before_bytes: int = 0
    rss_after_bytes: int = 0
    # per buffer name, MiB: where each part went ("CPU_Mapped", "Vulkan0", "Vulkan_Host", ...)
    model_buffers: dict[str, float] = field(default_factory=dict)
    kv_buffers: dict[str, float] = field(default_factory=dict)
    compute_buffers: dict[str, float] = field(default_factory=dict)
    output_buffers: dict[str, float] = field(default_factory=dict)
    devices: list[dict] = field(default_factory=list)     # the GPUs llama.cpp used: name, description, free MiB
    offloaded_layers: int = 0
    offloadable_layers: int = 0

    @property
    def kv_mib(self) -> float:
        return sum(c.total_mib for c in self.kv_caches) + self.recurrent_mib

    def as_dict(self) -> dict:
        return {
            "model_buffer_bytes": round(self.model_buffer_mib * MIB), "kv_bytes": round(self.kv_mib * MIB),
            "compute_bytes": round(self.compute_mib * MIB), "output_bytes": round(self.output_mib * MIB),
            "model_size_bytes": self.model_size_bytes, "rss_growth_bytes": self.rss_after_bytes - self.rss_before_bytes,
            "kv_caches": [vars(c) for c in self.kv_caches],
            "buffers_mib": {"model": self.model_buffers, "kv": self.kv_buffers, "compute": self.compute_buffers,
                            "output": self.output_buffers},
            "devices": self.devices, "offloaded_layers": self.offloaded_layers,
            "offloadable_layers": self.offloadable_layers,
        }

    def on(self, pool: str) -> dict[str, float]:
        """MiB of model, KV and compute buffers whose name is ``pool``'s: a device's own ("Vulkan0"), or the
        host's ("CPU", "CPU_Mapped", "CPU_REPACK" and a GPU's pinned "Vulkan_Host") for pool "RAM"."""
        def mine(name: str) -> bool:
            host = name.startswith("CPU") or name.endswith("_Host")
            return host if pool == "RAM" else name == pool
        return {kind: sum(v for k, v in buffers.items() if mine(k)) for kind, buffers in
                (("model", self.model_buffers), ("kv", self.kv_buffers), ("compute", self.compute_buffers),
                 ("output", self.output_buffers))}


def _by_name(pattern: re.Pattern, log_text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, mib in pattern.findall(log_text):
        out[name] = round(out.get(name, 0.0) + float(mib), 2)
    return out


def parse_allocation(log_text: str) -> MeasuredAllocation:
    m = MeasuredAllocation()
    m.model_buffers = _by_name(_MODEL_BUF, log_text)
    m.kv_buffers = _by_name(_KV_BUF, log_text)
    m.compute_buffers = _by_name(_COMPUTE, log_text)
    m.output_buffers = _by_name(_OUTPUT, log_text)
    m.devices = [{"name": n, "description": d, "free_mib": int(f)} for n, d, _id, f in _DEVICE.findall(log_text)]
    offloaded = _OFFLOADED.findall(log_text)
    if offloaded:
        m.offloaded_layers, m.offloadable_layers = int(offloaded[-1][0]), int(offloaded[-1][1])
    m.model_buffer_mib = sum(float(x[1]) for x in _MODEL_BUF.findall(log_text))
    for _total, cells, layers, tk, k, tv, v in _KV.findall(log_text):
        m.kv_caches.append(KVCacheLine(int(cells), int(layers), float(k), float(v), tk, tv))
    m.recurrent_mib = sum(float(x[0]) for x in _RS.findall(log_text))
    m.compute_mib = sum(float(x[1]) for x in _COMPUTE.findall(log_text))
    m.output_mib = sum(float(x[1]) for x in _OUTPUT.findall(log_text))
    return m


@dataclass(frozen=True)
class AllocationFailure:
    """What llama.cpp could not allocate while loading: which buffer, on which pool, how big."""
    pool: str            # "RAM" or the device's name ("Vulkan0", "CUDA0")
    buffer: str          # llama.cpp's buffer name ("Vulkan0", "CUDA_Host", "CPU")
    part: str            # "weights", "KV cache", "compute buffer", or "a buffer"
    mib: float
    line: str


def memory_failure(log_text: str) -> AllocationFailure | None:
    """The first allocation llama.cpp logged as failed, and what it was for (the error line that follows
    says: "unable to allocate X buffer" for weights, "... kv cache", "... compute ... buffers")."""
    lines = log_text.splitlines()
    for i, line in enumerate(lines):
        m = _ALLOC_FAILED.search(line)
        if not m:
            continue
        if m.group(1):
            buffer, mib = m.group(1), int(m.group(2)) / MIB
        elif m.group(3):
            buffer, mib = f"CUDA{m.group(4)}", float(m.group(3))
        else:
            buffer, mib = "MTL0", float(m.group(5))
        part = _failed_part(" ".join(lines[i:i + 8]).lower())
        host = buffer.startswith("CPU") or buffer.endswith("_Host")
        return AllocationFailure("RAM" if host else buffer, buffer, part, round(mib, 2), line.strip())
    return None


def _failed_part(following: str) -> str:
    """What the failed buffer was for, from the error lines llama.cpp logs after it."""
    if "kv cache" in following:
        return "KV cache"
    if "gallocr" in following or "compute" in following:
        return "compute buffer"
    if "unable to allocate" in following or "error loading model" in following:
        return "weights"
    return "a buffer"


def load_failure_reason(log_text: str) -> str:
    """The most telling error llama.cpp logged during a failed load, for the user-facing message."""
    interesting = [ln.strip() for ln in log_text.splitlines()
                   if re.search(r"error|failed|invalid|unknown|not enough|exceeds|cannot", ln, re.I)]
    return interesting[0] if interesting else ""
