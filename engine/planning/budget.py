"""The token budget of one round, from n_ctx (every size in tokens of the loaded model, counted with its
own tokenizer):

    n_ctx >= static_prompt_tokens + summary_in_cap + chunk_budget + summary_out_cap + margin

static_prompt_tokens is the round prompt rendered with the model's chat template and counted with
its tokenizer (engine.prompts). The summary caps default to a fifth of the context each (at least
256, at most 2048 tokens: a summary longer than that is compacted, not grown); the margin absorbs
the few tokens that can change where labels meet content. What is left is the largest chunk the
context allows; the chunk actually read is the smaller of that and the size models of this size
write best at (measured by bench/quality.py, kept in resources/model_profiles.json).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from precis.engine.errors import BadInput
from precis.engine.runtime.settings import CTX_PAD_TOKENS as CTX_STEP

# Below this a round sees too little new text to summarize well, and rounds multiply.
MIN_CHUNK_TOKENS = 256


class ContextTooSmall(BadInput):
    def __init__(self, message: str, suggested_n_ctx: int) -> None:
        super().__init__(message)
        self.suggested_n_ctx = suggested_n_ctx


@dataclass(frozen=True)
class Budget:
    n_ctx: int
    static_prompt_tokens: int
    summary_in_cap: int
    summary_out_cap: int
    margin: int
    chunk_budget: int               # the chunk each round reads: the smaller of the two below
    overlap_tokens: int = 0
    context_chunk_budget: int = 0   # the largest chunk the context allows (0: the same as chunk_budget)
    effective_chunk_tokens: int = 0 # the size models of this size write best at (0: no cap), docs/quality-history.md

    @property
    def worst_case_tokens(self) -> int:
        return self.static_prompt_tokens + self.summary_in_cap + self.chunk_budget + self.summary_out_cap + self.margin

    def as_dict(self) -> dict:
        return asdict(self)


def default_summary_cap(n_ctx: int) -> int:
    return max(256, min(2048, n_ctx // 5))


def default_margin(n_ctx: int) -> int:
    return 16 + n_ctx // 128


def plan_budget(n_ctx: int, static_prompt_tokens: int, *, summary_out_cap: int | None = None,
                summary_in_cap: int | None = None, margin: int | None = None, overlap_tokens: int = 0,
                max_chunk_tokens: int | None = None) -> Budget:
    """The budget for ``n_ctx``; ContextTooSmall (with the n_ctx that would work) if no useful chunk is left."""
    out_cap = summary_out_cap if summary_out_cap is not None else default_summary_cap(n_ctx)
    # The summary a round receives is the previous round's reply: it can never be longer than out_cap.
    in_cap = summary_in_cap if summary_in_cap is not None else out_cap
    if in_cap < out_cap:
        raise BadInput(f"The summary input cap ({in_cap}) must be at least the output cap ({out_cap}): each round's "
                       "reply is the next round's input.")
    margin = margin if margin is not None else default_margin(n_ctx)
    if min(out_cap, margin, overlap_tokens) < 0:
        raise BadInput("Summary caps, margin and overlap cannot be negative.")
    chunk = n_ctx - static_prompt_tokens - in_cap - out_cap - margin
    if chunk < MIN_CHUNK_TOKENS + overlap_tokens:
        need = suggest_n_ctx(static_prompt_tokens, summary_out_cap, summary_in_cap, margin, overlap_tokens)
        raise ContextTooSmall(
            f"A context of {n_ctx:,} tokens leaves {max(chunk, 0):,} tokens for each chunk after the prompt "
            f"({static_prompt_tokens:,}), the summary in ({in_cap:,}) and out ({out_cap:,}) and the margin "
            f"({margin:,}); "
            f"at least {MIN_CHUNK_TOKENS + overlap_tokens:,} are needed. Use a context of {need:,} tokens or more"
            + (", or lower the summary caps." if summary_out_cap is not None else "."), need)
    effective = max(MIN_CHUNK_TOKENS + overlap_tokens, max_chunk_tokens) if max_chunk_tokens else 0
    used = min(chunk, effective) if effective else chunk
    return Budget(n_ctx, static_prompt_tokens, in_cap, out_cap, margin, used, overlap_tokens, chunk, effective)


def suggest_n_ctx(static_prompt_tokens: int, summary_out_cap=None, summary_in_cap=None, margin=None,
                  overlap_tokens: int = 0) -> int:
    """The smallest n_ctx (a multiple of 256) whose budget leaves a useful chunk with the same overrides."""
    n_ctx = CTX_STEP
    while n_ctx < 1 << 22:
        out_cap = summary_out_cap if summary_out_cap is not None else default_summary_cap(n_ctx)
        in_cap = summary_in_cap if summary_in_cap is not None else out_cap
        m = margin if margin is not None else default_margin(n_ctx)
        if n_ctx - static_prompt_tokens - in_cap - out_cap - m >= MIN_CHUNK_TOKENS + overlap_tokens:
            return n_ctx
        n_ctx += CTX_STEP
    return n_ctx
