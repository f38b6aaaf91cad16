"""What the memory plan and the budget need to know about a model, independent of how it was read.

models/gguf/facts.py fills this from a GGUF header; tests build it by hand for families that can't
be loaded here. Per-layer lists have one entry per block (``n_layer`` entries).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class RecurrentState:
    """Per-layer recurrent state widths (elements), as llama_hparams::n_embd_r() and n_embd_s()."""
    conv_elems: int
    ssm_elems: int


@dataclass(frozen=True)
class WeightTensor:
    """One weight tensor of the file: its size, where its bytes are, and what a device pads it by."""
    name: str
    nbytes: int
    offset_bytes: int        # from the start of the file's tensor data
    row_elems: int           # ne[0]
    block_elems: int         # elements per quantization block (1: not quantized)
    block_bytes: int

    def row_bytes(self, n_elems: int) -> int:
        return n_elems // self.block_elems * self.block_bytes


@dataclass(frozen=True)
class TensorTable:
    """Every weight tensor, in file order: which device holds which bytes depends on the layer a tensor
    belongs to (engine/planning/offload.py). Kept out of ModelFacts: the model index caches facts for
    hundreds of files, and only an offload plan needs the table."""
    tensors: tuple[WeightTensor, ...]
    data_offset_bytes: int   # where tensor data starts in the file

    @property
    def total_bytes(self) -> int:
        return sum(t.nbytes for t in self.tensors)


@dataclass(frozen=True)
class ModelFacts:
    path: Path
    architecture: str
    name: str
    file_bytes: int
    tensor_bytes: int
    parameter_count: int
    quantization: str
    n_ctx_train: int
    n_vocab: int
    n_layer: int
    n_embd: int
    n_ff: int
    n_head: tuple[int, ...]
    n_head_kv: tuple[int, ...]
    key_length: int
    value_length: int
    key_length_swa: int = 0          # 0: same as key_length
    value_length_swa: int = 0
    sliding_window: int = 0          # n_swa; 0 = no sliding-window attention
    swa_layers: tuple[bool, ...] = ()
    is_mla: bool = False             # DeepSeek-style: K holds the compressed latent, no V cache
    recurrent_layers: tuple[bool, ...] = ()
    recurrent_state: RecurrentState | None = None
    has_chat_template: bool = False
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def uses_swa(self) -> bool:
        return self.sliding_window > 0 and any(self.swa_layers)

    @property
    def is_recurrent_or_hybrid(self) -> bool:
        return any(self.recurrent_layers)

    def layer_head_dims(self, il: int) -> tuple[int, int]:
        """(key, value) head size of layer ``il``: SWA layers may use their own (e.g. Gemma 3n)."""
        if self.swa_layers and self.swa_layers[il]:
            return (self.key_length_swa or self.key_length, self.value_length_swa or self.value_length)
        return self.key_length, self.value_length
