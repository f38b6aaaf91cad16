"""Tokens guessed from the prompt and checked in one batch: prompt-lookup drafting.

A reply that repeats its prompt's words (a refine loop's summary carried into the next round, a rewording that
keeps most of its sentence, a refused answer that hands the sentence back) is generated one token at a time,
though a batch of a few tokens costs less than that many tokens one by one (here a batch of 4 costs 1.78
tokens' time; on a GPU about one, not measured here). Where the reply's
last ``NGRAM_TOKENS`` (or, failing that, ``MIN_NGRAM_TOKENS``) tokens were seen earlier in the context, the
``DRAFT_TOKENS`` that followed them there are guessed as the next ones (``PromptLookup``), evaluated with the
token just sampled in one batch, and each position is then sampled as it would have been: the guess stands
while it is what the sampler draws, and the first token drawn otherwise is the reply's next token (llama-cpp-
python's ``Llama.generate`` does this for a ``draft_model``). The sampler draws from each position's own logits
and accepts the same tokens, so the reply is the one sampled without guesses (greedy or seeded alike), up to
the arithmetic of a batch of another shape: llama.cpp's logits for a position move slightly with the batch it
was evaluated in (up to 0.8 of a logit on one SmolLM2 prompt), which tips a near tie as prefix reuse and
restored prompt states can.

``Llama.generate`` asks for every position's logits only through ``logits_all``, which also keeps a copy of
them for the whole context (8,192 × 151,936 floats for Qwen2.5 at its default context: 5 GB). The runtime's
``eval`` (engine.runtime.llama) asks llama.cpp for the logits of each position of a batch of guesses instead,
and keeps no copy: the sampler reads them from llama.cpp's own output rows.
"""
from __future__ import annotations

import numpy as np

NGRAM_TOKENS = 3          # the reply's last tokens looked up in the context
MIN_NGRAM_TOKENS = 2      # a single token ("the", ",") repeats everywhere: a guess from it is mostly wrong
# Guessed at once. Qwen2.5-1.5B on this machine's 2 cores evaluates a batch of 2, 3, 4, 5 and 9 tokens in 1.57,
# 1.91, 1.78, 2.28 and 3.43 times one token's time (a batch of 4 is quicker than one of 3 here). Replayed on the
# replies of two notes runs (their tokens, each batch at its measured cost), 3 guesses took 0.81 and 0.93 of the
# time one token at a time takes; a guess growing from 2 to 8 while it held, 0.90 and 1.01; 3 guesses from
# three tokens seen only, 0.84 and 0.93 (docs/memory.md, "Guessing a reply's next tokens from its prompt").
DRAFT_TOKENS = 3


class PromptLookup:
    """The draft ``Llama.generate`` takes as its ``draft_model``: called with the context's tokens so far (the
    prompt, the reply, the token just sampled), it returns the tokens that followed the latest earlier
    occurrence of their last n-gram, at most ``draft_tokens``; none where the n-gram was not seen."""

    def __init__(self, draft_tokens: int = DRAFT_TOKENS, ngram_tokens: int = NGRAM_TOKENS,
                 min_ngram_tokens: int = MIN_NGRAM_TOKENS) -> None:
        self.draft_tokens = draft_tokens
        self.ngram_tokens = ngram_tokens
        self.min_ngram_tokens = min_ngram_tokens
        self.drafts = 0               # guesses made (one per batch of guesses evaluated)
        self.drafted_tokens = 0       # tokens guessed in all
        self.held_tokens = 0          # of them, those the sampler drew (counted at the next call)
        self._last: tuple[int, np.ndarray] | None = None  # (where the last guess went, the guess)

    def _count_held(self, ids: np.ndarray) -> None:
        """How much of the last guess held, read from the context it left."""
        if self._last is None:
            return
        at, draft = self._last
        self._last = None
        seen = ids[at:at + len(draft)]
        same = seen == draft[:len(seen)]
        self.held_tokens += len(seen) if same.all() else int(np.argmin(same))

    def __call__(self, input_ids, /, **_) -> np.ndarray:
        ids = np.asarray(input_ids)
        self._count_held(ids)
        for size in range(self.ngram_tokens, self.min_ngram_tokens - 1, -1):
            if len(ids) <= size:
                continue
            tail = ids[-size:]
            # windows ending before the last token: the tail itself is no earlier occurrence
            windows = np.lib.stride_tricks.sliding_window_view(ids[:-1], size)
            hits = np.flatnonzero((windows == tail).all(axis=1))
            if len(hits):
                start = int(hits[-1]) + size
                draft = ids[start:start + self.draft_tokens].astype(np.intc)
                if len(draft):
                    self.drafts += 1
                    self.drafted_tokens += len(draft)
                    self._last = (len(ids), draft)
                    return draft
        return np.empty(0, dtype=np.intc)
