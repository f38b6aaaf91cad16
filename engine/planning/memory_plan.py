"""What a context length costs in RAM: weights + KV cache + compute buffer, against what is free.

KV cache, following llama.cpp (commit 0c1e57098, vendored by llama-cpp-python 0.3.36):
- src/llama-kv-cache.cpp: per layer with KV heads, K = cells x row(type_k, n_head_kv[l] * n_embd_head_k)
  and V = cells x row(type_v, n_head_kv[l] * n_embd_head_v); MLA models have no V (``has_v = !is_mla``).
- src/llama-kv-cache-iswa.cpp: non-SWA layers get n_ctx cells; SWA layers get
  ``GGML_PAD(min(n_ctx, n_swa * n_seq + n_ubatch), 256)`` cells, or n_ctx with swa_full.
- src/llama-memory-recurrent.cpp: recurrent layers hold n_seq x (n_embd_r + n_embd_s) F32 values,
  independent of n_ctx.

Compute buffer: llama.cpp reserves the worst-case graph and has no closed formula. Its peak is the
larger of two moments, which reproduce the measured buffers (tests/models/test_memory_vs_llama.py):
- the output: logits ``4 * n_vocab * n_ubatch`` plus two n_embd x n_ubatch F32 activations;
- without flash attention, an attention layer: scores ``4 * n_kv * n_ubatch * n_head``, the F32 mask
  ``4 * n_kv * n_ubatch`` and the activations around it (``4 * n_ubatch * (n_ff + 3 * n_embd)``).
"""
from __future__ import annotations

from dataclasses import dataclass

from precis.engine.planning.model_facts import ModelFacts
from precis.engine.runtime.prompt_lookup import DRAFT_TOKENS
from precis.engine.runtime.prompt_states import prompt_states_bytes
from precis.engine.runtime.settings import CTX_PAD_TOKENS, RuntimeSettings, pad_ctx

MIB = 2**20
GIB = 2**30
# Row sizes of the KV cache types: (elements per block, bytes per block).
KV_TYPE_BLOCKS = {"f16": (1, 2), "q8_0": (32, 34), "q4_0": (32, 18), "f32": (1, 4)}
# Beyond weights, KV and compute: llama.cpp's own small buffers, the Python runtime, Qt, the
# documents. Measured RSS of a Precis process without a model is ~150 MiB; 256 MiB leaves slack.
RUNTIME_OVERHEAD_BYTES = 256 * MIB
# "Fits" leaves this share of the available RAM free (the OS, the page cache, other programs).
SAFE_FRACTION = 0.80


def kv_row_bytes(kv_type: str, n_elems: int) -> int:
    block_elems, block_bytes = KV_TYPE_BLOCKS[kv_type]
    if n_elems % block_elems:
        raise ValueError(f"a {kv_type} cache row needs a multiple of {block_elems} elements, got {n_elems}")
    return n_elems // block_elems * block_bytes


@dataclass(frozen=True)
class KVGroup:
    """Layers that share a cache size: 'standard', 'swa' (sliding window) or 'recurrent'."""
    kind: str
    layers: int
    cells: int
    k_bytes: int
    v_bytes: int

    @property
    def total_bytes(self) -> int:
        return self.k_bytes + self.v_bytes


def swa_cells(facts: ModelFacts, s: RuntimeSettings, n_seq: int = 1) -> int:
    n_ctx = pad_ctx(s.n_ctx)
    if s.swa_full:
        return n_ctx
    return pad_ctx(min(n_ctx, facts.sliding_window * n_seq + s.n_ubatch))


def kv_groups(facts: ModelFacts, s: RuntimeSettings, n_seq: int = 1) -> list[KVGroup]:
    n_ctx = pad_ctx(s.n_ctx)
    groups: dict[str, list[int]] = {"standard": [0, 0, 0], "swa": [0, 0, 0]}
    cells_of = {"standard": n_ctx, "swa": swa_cells(facts, s, n_seq) if facts.uses_swa else n_ctx}
    for il in range(facts.n_layer):
        if facts.recurrent_layers and facts.recurrent_layers[il]:
            continue
        n_kv = facts.n_head_kv[il]
        if n_kv == 0:
            continue
        kind = "swa" if facts.uses_swa and facts.swa_layers[il] else "standard"
        head_k, head_v = facts.layer_head_dims(il)
        k = kv_row_bytes(s.type_k, n_kv * head_k)
        v = 0 if facts.is_mla else kv_row_bytes(s.type_v, n_kv * head_v)
        acc = groups[kind]
        acc[0] += 1
        acc[1] += k
        acc[2] += v
    out = [KVGroup(kind, n, cells_of[kind], cells_of[kind] * k, cells_of[kind] * v)
           for kind, (n, k, v) in groups.items() if n]
    n_rec = sum(facts.recurrent_layers) if facts.recurrent_layers else 0
    if n_rec and facts.recurrent_state:
        st = facts.recurrent_state
        out.append(KVGroup("recurrent", n_rec, n_seq, n_rec * n_seq * st.conv_elems * 4,
                           n_rec * n_seq * st.ssm_elems * 4))
    return out


def layer_kv(facts: ModelFacts, s: RuntimeSettings, n_seq: int = 1) -> list[tuple[int, int]]:
    """(K bytes, V bytes) of each layer's cache, or (conv, ssm) of a recurrent layer's state; (0, 0) for a
    layer without either. Sums to kv_groups' totals; an offload plan places each layer's share on the
    layer's device (llama_kv_cache puts layer il's tensors in model.dev_layer(il)'s buffer)."""
    n_ctx = pad_ctx(s.n_ctx)
    swa = swa_cells(facts, s, n_seq) if facts.uses_swa else n_ctx
    out = []
    for il in range(facts.n_layer):
        if facts.recurrent_layers and facts.recurrent_layers[il]:
            st = facts.recurrent_state
            out.append((n_seq * st.conv_elems * 4, n_seq * st.ssm_elems * 4) if st else (0, 0))
            continue
        n_kv = facts.n_head_kv[il]
        if n_kv == 0:
            out.append((0, 0))
            continue
        cells = swa if facts.uses_swa and facts.swa_layers[il] else n_ctx
        head_k, head_v = facts.layer_head_dims(il)
        k = kv_row_bytes(s.type_k, n_kv * head_k)
        v = 0 if facts.is_mla else kv_row_bytes(s.type_v, n_kv * head_v)
        out.append((cells * k, cells * v))
    return out


def compute_peaks(facts: ModelFacts, s: RuntimeSettings) -> tuple[int, int]:
    """(output peak, attention peak) of the worst-case graph; attention is 0 with flash attention."""
    n_ub = s.n_ubatch
    output_peak = 4 * n_ub * (facts.n_vocab + 2 * facts.n_embd)
    if s.flash_attn:
        return output_peak, 0
    n_kv = pad_ctx(s.n_ctx)
    if facts.uses_swa and all(facts.swa_layers):
        n_kv = swa_cells(facts, s)
    n_head = max(facts.n_head) if facts.n_head else 0
    attention_peak = 4 * n_kv * n_ub * n_head + 4 * n_kv * n_ub + 4 * n_ub * (facts.n_ff + 3 * facts.n_embd)
    return output_peak, attention_peak


def compute_buffer_bytes(facts: ModelFacts, s: RuntimeSettings) -> int:
    return max(compute_peaks(facts, s))


@dataclass(frozen=True)
class MemoryPlan:
    settings: RuntimeSettings
    weights_bytes: int
    kv_groups: tuple[KVGroup, ...]
    compute_bytes: int
    output_bytes: int
    overhead_bytes: int
    available_bytes: int
    max_n_ctx: int
    # earlier prompts' cells, saved in RAM when a call of another kind would discard them (engine.runtime.
    # prompt_states): at most this many bytes
    prompt_states_bytes: int = 0

    @property
    def kv_bytes(self) -> int:
        return sum(g.total_bytes for g in self.kv_groups)

    @property
    def total_bytes(self) -> int:
        return (self.weights_bytes + self.kv_bytes + self.compute_bytes + self.output_bytes + self.overhead_bytes
                + self.prompt_states_bytes)

    @property
    def verdict(self) -> str:
        return verdict_for(self.total_bytes, self.available_bytes)

    def as_dict(self) -> dict:
        s = self.settings
        return {
            "weights_bytes": self.weights_bytes, "kv_bytes": self.kv_bytes, "compute_bytes": self.compute_bytes,
            "output_bytes": self.output_bytes, "overhead_bytes": self.overhead_bytes,
            "prompt_states_bytes": self.prompt_states_bytes,
            "total_bytes": self.total_bytes, "available_bytes": self.available_bytes,
            "verdict": self.verdict, "max_n_ctx": self.max_n_ctx,
            "kv_groups": [{"kind": g.kind, "layers": g.layers, "cells": g.cells, "k_bytes": g.k_bytes,
                           "v_bytes": g.v_bytes} for g in self.kv_groups],
            "n_ctx": s.n_ctx, "n_batch": s.n_batch, "n_ubatch": s.n_ubatch, "type_k": s.type_k,
            "type_v": s.type_v, "flash_attn": s.flash_attn, "swa_full": s.swa_full,
        }


def verdict_for(total_bytes: int, available_bytes: int) -> str:
    if total_bytes <= SAFE_FRACTION * available_bytes:
        return "fits"
    if total_bytes <= available_bytes:
        return "tight"
    return "won't fit"


def saved_states_bytes(facts: ModelFacts, s: RuntimeSettings, kv_bytes: int) -> int:
    """The most the runtime's saved prompt states hold for this load (engine.runtime.prompt_states): none where
    it keeps none, a reduced sliding-window cache (as engine.runtime.llama decides it) or a recurrent model."""
    reduced_window = facts.uses_swa and not s.swa_full and facts.sliding_window + s.n_ubatch < pad_ctx(s.n_ctx)
    if reduced_window or (facts.recurrent_layers and any(facts.recurrent_layers)):
        return 0
    return prompt_states_bytes(kv_bytes)


def _total_for(facts: ModelFacts, s: RuntimeSettings) -> int:
    kv = sum(g.total_bytes for g in kv_groups(facts, s))
    return (facts.tensor_bytes + kv + compute_buffer_bytes(facts, s) + output_buffer_bytes(facts)
            + RUNTIME_OVERHEAD_BYTES + saved_states_bytes(facts, s, kv))


def largest_fitting_n_ctx(facts: ModelFacts, s: RuntimeSettings, available_bytes: int) -> int:
    """The largest multiple of 256, up to the training context, whose total stays 'fits'; 0 if none."""
    limit = facts.n_ctx_train or 131072
    hi = limit // CTX_PAD_TOKENS
    lo, best = 1, 0
    while lo <= hi:  # memory grows monotonically with n_ctx, so bisect
        mid = (lo + hi) // 2
        if _total_for(facts, s.with_n_ctx(mid * CTX_PAD_TOKENS)) <= SAFE_FRACTION * available_bytes:
            best, lo = mid * CTX_PAD_TOKENS, mid + 1
        else:
            hi = mid - 1
    return best


def output_buffer_bytes(facts: ModelFacts) -> int:
    """llama.cpp's output buffer: a row of logits for each position a batch asks them of. A reply's batch of
    guesses asks them of the token sampled and every guess (engine.runtime.prompt_lookup); a prompt's batch, of
    its last position only."""
    return 4 * facts.n_vocab * (1 + DRAFT_TOKENS)


def plan_memory(facts: ModelFacts, s: RuntimeSettings, available_bytes: int) -> MemoryPlan:
    groups = tuple(kv_groups(facts, s))
    return MemoryPlan(
        settings=s, weights_bytes=facts.tensor_bytes, kv_groups=groups,
        compute_bytes=compute_buffer_bytes(facts, s), output_bytes=output_buffer_bytes(facts),
        overhead_bytes=RUNTIME_OVERHEAD_BYTES, available_bytes=available_bytes,
        max_n_ctx=largest_fitting_n_ctx(facts, s, available_bytes),
        prompt_states_bytes=saved_states_bytes(facts, s, sum(g.total_bytes for g in groups)))


def available_ram_bytes() -> int:
    import psutil  # imported here so pure planning code stays importable without it
    return int(psutil.virtual_memory().available)
