"""The settings a model is loaded with. The memory plan assumes exactly these, and the runtime
passes exactly these to llama.cpp, so the estimate and the allocation describe the same thing."""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace

KV_TYPES = ("f16", "q8_0", "q4_0")
CTX_PAD_TOKENS = 256  # llama.cpp pads n_ctx up to a multiple of 256; Precis only offers multiples


def pad_ctx(n_ctx: int) -> int:
    return -(-n_ctx // CTX_PAD_TOKENS) * CTX_PAD_TOKENS


@dataclass(frozen=True)
class RuntimeSettings:
    n_ctx: int = 4096
    n_batch: int = 512
    n_ubatch: int = 512
    type_k: str = "f16"
    type_v: str = "f16"
    # Off by default: on the CPUs Precis was measured on, flash attention made prompt processing
    # slower. It is switched on automatically when the V cache is quantized (llama.cpp requires it).
    flash_attn: bool = False
    # Sliding-window layers keep only window + n_ubatch cells (much less memory). The runtime
    # guards prefix reuse against cells the window evicted; see docs/memory.md for the measurement.
    swa_full: bool = False
    n_threads: int | None = None
    # Layers on the GPU, as llama.cpp counts them (llama_model_base::load_tensors): the output layer
    # first, then repeating layers from the last one down; n_layer + 1 puts all of them there. 0: none.
    n_gpu_layers: int = 0

    def __post_init__(self) -> None:
        for name in ("type_k", "type_v"):
            if getattr(self, name) not in KV_TYPES:
                raise ValueError(f"{name} must be one of {', '.join(KV_TYPES)}, not {getattr(self, name)!r}")
        if self.n_ctx <= 0 or self.n_ctx % CTX_PAD_TOKENS:
            raise ValueError(f"n_ctx must be a positive multiple of {CTX_PAD_TOKENS}, not {self.n_ctx}")
        if self.n_ubatch > self.n_batch:
            raise ValueError("n_ubatch cannot exceed n_batch")
        if self.n_gpu_layers < 0:
            raise ValueError(f"n_gpu_layers must be 0 or more, not {self.n_gpu_layers}")

    @classmethod
    def for_kv_type(cls, kv_type: str, **kw) -> "RuntimeSettings":
        """Both caches of one type; a quantized V cache needs flash attention in llama.cpp."""
        return cls(type_k=kv_type, type_v=kv_type, flash_attn=kw.pop("flash_attn", kv_type != "f16"), **kw)

    def with_n_ctx(self, n_ctx: int) -> "RuntimeSettings":
        return replace(self, n_ctx=n_ctx)

    def with_gpu_layers(self, n_gpu_layers: int) -> "RuntimeSettings":
        return replace(self, n_gpu_layers=n_gpu_layers)

    def as_dict(self) -> dict:
        return asdict(self)
