"""Turn a GGUF header into ModelFacts: architecture, sizes, per-layer attention layout.

Key names and defaults follow llama.cpp's src/llama-arch.cpp (LLM_KV_*) and
src/llama-model.cpp (load_hparams). Where a key is absent llama.cpp derives a value the same way
done here (e.g. key_length = n_embd / n_head).
"""
from __future__ import annotations

from math import prod
from pathlib import Path

from precis.engine.planning.model_facts import ModelFacts, RecurrentState, TensorTable, WeightTensor
from precis.models.gguf.ggml_types import FILE_TYPE_NAMES, GGML_TYPES
from precis.models.gguf.header import GGUFError, GGUFHeader, SkippedArray, read_gguf_header

# Sliding-window layer pattern for families whose GGUF does not carry a per-layer array:
# layer il is SWA when il % p < p - 1 (llama_hparams::set_swa_pattern with dense_first=false).
SWA_PATTERN_BY_ARCH = {"gemma2": 2, "gemma3": 6, "gemma3n": 5, "cohere2": 4, "llama4": 4}
# Architectures whose every layer is recurrent (no KV cache at all).
PURE_RECURRENT_ARCHS = {"mamba", "mamba2", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7"}
# Hybrids: layers with head_count_kv == 0 hold recurrent state instead of KV cells.
HYBRID_ARCHS = {"jamba", "falcon-h1", "granitehybrid", "nemotron_h", "lfm2", "qwen3next", "plamo2"}


def read_model_facts(path: str | Path) -> ModelFacts:
    return facts_from_header(read_gguf_header(path))


def read_model_layout(path: str | Path) -> tuple[ModelFacts, TensorTable]:
    """The facts and the tensor table, from one header read (an offload plan needs both)."""
    header = read_gguf_header(path)
    return facts_from_header(header), tensor_table_from_header(header)


def tensor_table_from_header(h: GGUFHeader) -> TensorTable:
    tensors = []
    for t in h.tensors:
        gt = GGML_TYPES[t.ggml_type]
        tensors.append(WeightTensor(t.name, t.nbytes, t.offset_bytes, t.shape[0] if t.shape else 1,
                                    gt.block_elems, gt.block_bytes))
    return TensorTable(tuple(tensors), h.data_offset_bytes)


def _per_layer(value, n_layer: int, key: str, path: Path) -> tuple[int, ...]:
    if isinstance(value, list):
        if len(value) != n_layer:
            raise GGUFError(f"{path.name}: {key} has {len(value)} entries for {n_layer} layers; corrupt file.")
        return tuple(int(v) for v in value)
    if isinstance(value, SkippedArray):
        raise GGUFError(f"{path.name}: {key} has {value.count} entries, more than any real model has.")
    return (int(value),) * n_layer


def facts_from_header(h: GGUFHeader) -> ModelFacts:
    md = h.metadata
    arch = md.get("general.architecture")
    if not isinstance(arch, str) or not arch:
        raise GGUFError(f"{h.path.name}: no general.architecture in its metadata; not a llama.cpp model file "
                        "(maybe a LoRA adapter or a vocabulary-only file).")

    def get(key: str, default=None):
        return md.get(f"{arch}.{key}", default)

    n_layer = get("block_count")
    if not isinstance(n_layer, int) or not 0 < n_layer < 100_000:
        raise GGUFError(f"{h.path.name}: {arch}.block_count is {n_layer!r}; corrupt or unsupported file.")
    n_embd = int(get("embedding_length", 0))
    n_head = _per_layer(get("attention.head_count", 0), n_layer, "attention.head_count", h.path)
    n_head_kv = _per_layer(get("attention.head_count_kv", n_head if n_head else 0), n_layer,
                           "attention.head_count_kv", h.path)
    n_ff_raw = get("feed_forward_length", 0)
    n_ff = max(n_ff_raw) if isinstance(n_ff_raw, list) else int(n_ff_raw or 0)
    first_heads = next((x for x in n_head if x), 0)
    default_head_dim = n_embd // first_heads if first_heads else 0
    key_length = int(get("attention.key_length", default_head_dim))
    value_length = int(get("attention.value_length", default_head_dim))

    tokens = md.get("tokenizer.ggml.tokens")
    n_vocab = tokens.count if isinstance(tokens, SkippedArray) else len(tokens) if isinstance(tokens, list) \
        else int(get("vocab_size", 0))
    if not n_vocab:
        embd = next((t for t in h.tensors if t.name == "token_embd.weight"), None)
        n_vocab = embd.shape[1] if embd and len(embd.shape) > 1 else 0

    sliding_window = int(get("attention.sliding_window", 0) or 0)
    swa_layers = _swa_layers(arch, get("attention.sliding_window_pattern"), sliding_window, n_layer, h.path)

    recurrent_layers: tuple[bool, ...] = ()
    recurrent_state = None
    if arch in PURE_RECURRENT_ARCHS:
        recurrent_layers = (True,) * n_layer
    elif arch in HYBRID_ARCHS:
        recurrent_layers = tuple(kv == 0 for kv in n_head_kv)
    if any(recurrent_layers):
        recurrent_state = _recurrent_state(get, n_embd)

    is_mla = bool(get("attention.key_length_mla", 0)) and bool(get("attention.value_length_mla", 0))

    ftype = md.get("general.file_type")
    quant = FILE_TYPE_NAMES.get(ftype, f"type {ftype}") if isinstance(ftype, int) else "unknown"
    name = md.get("general.name") or h.path.stem
    return ModelFacts(
        path=h.path, architecture=arch, name=str(name), file_bytes=h.file_bytes,
        tensor_bytes=h.tensor_bytes, parameter_count=sum(prod(t.shape) for t in h.tensors),
        quantization=quant, n_ctx_train=int(get("context_length", 0) or 0), n_vocab=int(n_vocab),
        n_layer=n_layer, n_embd=n_embd, n_ff=n_ff, n_head=n_head, n_head_kv=n_head_kv,
        key_length=key_length, value_length=value_length,
        key_length_swa=int(get("attention.key_length_swa", 0) or 0),
        value_length_swa=int(get("attention.value_length_swa", 0) or 0),
        sliding_window=sliding_window, swa_layers=swa_layers, is_mla=is_mla,
        recurrent_layers=recurrent_layers, recurrent_state=recurrent_state,
        has_chat_template=isinstance(md.get("tokenizer.chat_template"), str),
    )


def _swa_layers(arch: str, pattern, n_swa: int, n_layer: int, path: Path) -> tuple[bool, ...]:
    if not n_swa:
        return ()
    if isinstance(pattern, list):  # per-layer booleans: True = sliding-window layer
        if len(pattern) != n_layer:
            raise GGUFError(f"{path.name}: sliding_window_pattern has {len(pattern)} entries for {n_layer} layers.")
        return tuple(bool(x) for x in pattern)
    period = int(pattern) if isinstance(pattern, int) and pattern > 0 else SWA_PATTERN_BY_ARCH.get(arch, 0)
    if period == 0:  # a window with no pattern: every layer slides (e.g. Mistral's original releases)
        return (True,) * n_layer
    return tuple(il % period < period - 1 for il in range(n_layer))


def _recurrent_state(get, n_embd: int) -> RecurrentState:
    # llama_hparams::n_embd_r() / n_embd_s() (src/llama-hparams.cpp)
    wkv_head_size = int(get("wkv.head_size", 0) or 0)
    if wkv_head_size:
        token_shift = int(get("token_shift_count", 2) or 2)
        return RecurrentState(conv_elems=token_shift * n_embd, ssm_elems=n_embd * wkv_head_size)
    l_cache = int(get("shortconv.l_cache", 0) or 0)
    if l_cache:
        return RecurrentState(conv_elems=n_embd * (l_cache - 1), ssm_elems=0)
    d_conv = int(get("ssm.conv_kernel", 0) or 0)
    d_inner = int(get("ssm.inner_size", 0) or 0)
    d_state = int(get("ssm.state_size", 0) or 0)
    n_group = int(get("ssm.group_count", 0) or 0)
    return RecurrentState(conv_elems=max(d_conv - 1, 0) * (d_inner + 2 * n_group * d_state),
                          ssm_elems=d_state * d_inner)
