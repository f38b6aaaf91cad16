"""Grammar-held sampling that checks the grammar on the likeliest tokens only, with the same result.

llama-cpp-python samples a grammar-held reply through one llama.cpp sampler chain: repeat penalty, the grammar,
then top-k, typical, top-p, min-p, temperature and the seeded draw (or greedy), each applied to the whole
vocabulary. The grammar tests every token's text against the grammar's stacks: on Qwen2.5's 151,936 tokens
the notes strategy's grammar-held replies generated at 11.1 tokens/s here, 15.8 sampled as below
(bench/grammar_sampling.py; docs/memory.md, "Sampling a grammar-held reply").

Here the same samplers run in the same order, but the grammar is applied to the ``CANDIDATES`` tokens with the
highest (penalised) logits, and its answer is used only where it is provably the whole vocabulary's: no token
outside them has a higher logit than a token inside, so when at least top-k of them pass the grammar (one,
greedy) those are exactly the tokens top-k would keep of the whole vocabulary, in the same order, and the draw
from them is the same draw. Otherwise (a position the grammar forces, where few tokens pass) the grammar is
applied to the whole vocabulary, as before. tests/engine/test_grammar_sampling_real.py holds the replies equal token
for token.
"""
from __future__ import annotations

import ctypes

import numpy as np

CANDIDATES = 256             # tokens whose text the grammar checks first (top-k asks for 40)

_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)


class CandidatesFirstSampler:
    """Stands in for llama-cpp-python's ``LlamaSampler`` inside ``Llama.generate`` (it calls ``sample(ctx, idx)``)
    for a grammar-held reply, with the samplers ``Llama._init_sampler`` would chain."""

    def __init__(self, llm, *, top_k: int, top_p: float, min_p: float, typical_p: float, temp: float,
                 repeat_penalty: float, frequency_penalty: float, presence_penalty: float, grammar, **_) -> None:
        import llama_cpp
        from llama_cpp._internals import LlamaSampler
        self._llama_cpp = llama_cpp
        self.n_vocab = llm.n_vocab()
        self.penalties = LlamaSampler()
        self.penalties.add_penalties(n_vocab=self.n_vocab, penalty_last_n=llm.last_n_tokens_size,
                                     penalty_repeat=repeat_penalty, penalty_freq=frequency_penalty,
                                     penalty_present=presence_penalty)
        self.grammar = LlamaSampler()
        self.grammar.add_grammar(llm._model, grammar)
        self.rest = LlamaSampler()
        self.greedy = temp == 0.0
        if temp < 0.0:
            self.rest.add_dist(llm._seed)
        elif self.greedy:
            self.rest.add_greedy()
        else:   # as Llama._init_sampler chains them (mirostat is not used by Precis)
            self.rest.add_top_k(top_k)
            self.rest.add_typical(typical_p, 1)
            self.rest.add_top_p(top_p, 1)
            self.rest.add_min_p(min_p, 1)
            self.rest.add_temp(temp)
            self.rest.add_dist(llm._seed)
        # the fewest tokens passing the grammar among the candidates for their answer to be the vocabulary's
        self.needed = 1 if temp <= 0.0 else max(1, top_k)
        self._ids = np.arange(self.n_vocab, dtype=np.int32)
        self._all = np.zeros(self.n_vocab, dtype=_TOKEN_DATA)
        self.full_checks = 0              # tokens sampled with the grammar on the whole vocabulary
        self.candidate_checks = 0         # and on the candidates alone

    def _apply(self, sampler, data: np.ndarray) -> tuple[int, int]:
        """Apply ``sampler``'s chain to ``data`` in place (top-k sorts it and keeps its first entries): the index
        it selected (-1: none) and how many entries it kept."""
        llama_cpp = self._llama_cpp
        arr = llama_cpp.llama_token_data_array(
            data=data.ctypes.data_as(ctypes.POINTER(llama_cpp.llama_token_data)), size=len(data), selected=-1,
            sorted=False)
        llama_cpp.llama_sampler_apply(sampler.sampler, ctypes.byref(arr))
        return int(arr.selected), int(arr.size)

    def sample(self, ctx, idx: int) -> int:
        llama_cpp = self._llama_cpp
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx.ctx, idx), shape=(self.n_vocab,))
        full = self._all
        full["id"] = self._ids                         # a draw on the whole vocabulary sorted it
        full["logit"] = logits
        full["p"] = 0.0
        self._apply(self.penalties, full)              # lowers the logits of recent tokens, in place, in id order
        top = np.sort(np.argpartition(full["logit"], -CANDIDATES)[-CANDIDATES:]) if self.n_vocab > CANDIDATES \
            else np.arange(self.n_vocab)
        few = full[top]                                # a copy, in id order as the whole vocabulary is
        self._apply(self.grammar, few)
        if int(np.count_nonzero(np.isfinite(few["logit"]))) >= self.needed:
            data = few
            self.candidate_checks += 1
        else:
            data = full
            self._apply(self.grammar, data)
            self.full_checks += 1
        selected, size = self._apply(self.rest, data)
        if not 0 <= selected < size:
            raise RuntimeError("llama.cpp's sampler selected no token")
        token = int(data["id"][selected])
        for sampler in (self.penalties, self.grammar, self.rest):
            llama_cpp.llama_sampler_accept(sampler.sampler, token)
        return token
