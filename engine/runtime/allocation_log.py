"""What llama.cpp really allocated, read from the log lines it prints while loading a model.

Lines parsed (llama.cpp 0c1e57098):
  load_tensors:   CPU_Mapped model buffer size =    92.10 MiB
  llama_kv_cache: size =  180.00 MiB (  8192 cells,  30 layers,  1/1 seqs), K (f16):   90.00 MiB, V (f16):   90.00 MiB
  llama_memory_recurrent: size =    0.12 MiB (     1 cells,  24 layers,  1 seqs), R (f32): ..., S (f32): ...
  sched_reserve:        CPU compute buffer size =   166.38 MiB
  llama_context:        CPU  output buffer size =     0.19 MiB
llama.cpp prints MiB with two decimals, so every number here is known to +-0.005 MiB.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

MIB = 2**20

_MODEL_BUF = re.compile(r"load_tensors:\s+(\S+) model buffer size =\s+([\d.]+) MiB")
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

    @property
    def kv_mib(self) -> float:
        return sum(c.total_mib for c in self.kv_caches) + self.recurrent_mib

    def as_dict(self) -> dict:
        return {
            "model_buffer_bytes": round(self.model_buffer_mib * MIB), "kv_bytes": round(self.kv_mib * MIB),
            "compute_bytes": round(self.compute_mib * MIB), "output_bytes": round(self.output_mib * MIB),
            "model_size_bytes": self.model_size_bytes, "rss_growth_bytes": self.rss_after_bytes - self.rss_before_bytes,
            "kv_caches": [vars(c) for c in self.kv_caches],
        }


def parse_allocation(log_text: str) -> MeasuredAllocation:
    m = MeasuredAllocation()
    m.model_buffer_mib = sum(float(x[1]) for x in _MODEL_BUF.findall(log_text))
    for _total, cells, layers, tk, k, tv, v in _KV.findall(log_text):
        m.kv_caches.append(KVCacheLine(int(cells), int(layers), float(k), float(v), tk, tv))
    m.recurrent_mib = sum(float(x[0]) for x in _RS.findall(log_text))
    m.compute_mib = sum(float(x[1]) for x in _COMPUTE.findall(log_text))
    m.output_mib = sum(float(x[1]) for x in _OUTPUT.findall(log_text))
    return m


def load_failure_reason(log_text: str) -> str:
    """The most telling error llama.cpp logged during a failed load, for the user-facing message."""
    interesting = [ln.strip() for ln in log_text.splitlines()
                   if re.search(r"error|failed|invalid|unknown|not enough|exceeds|cannot", ln, re.I)]
    return interesting[0] if interesting else ""
