"""Saved KV states of earlier prompts, so that a static prefix pushed out of the cache by a prompt of another
kind is restored instead of evaluated again.

llama-cpp-python reuses only the longest common prefix with the one previous call. The notes strategy
alternates prompts under different rules within every part: the numbered rewording ask, then each sentence
refused twice asked alone under the restating rules, then the next part's numbered ask (and, between them, a
story's "who is he" question or a report's "whom does we stand for"). Each switch threw away the other prompt's
rules and worked example and evaluated them again, hundreds of tokens at the 1.5B model's prompt speed
(docs/memory.md, "Saved prompt states"). Here the cache's content is saved (its one sequence's cells, as llama.cpp
writes them) at the moment a call of another kind would discard it, and a later prompt that shares more with a
saved state than with the live cache starts from that state.

Bounded in bytes (the memory plan counts the bound: engine.planning.memory_plan, ``saved_states_bytes``); the
least recently used state goes first. Pure: the runtime hands in the tokens and the bytes (any buffer).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# A restore costs a copy of the state (tens of MB at most, milliseconds); below this many tokens gained over the
# live cache's own prefix the evaluation it saves is as cheap, and the live cache is kept as it is.
MIN_GAIN_TOKENS = 64
# At most this many states: the notes strategy has two kinds of prompt a part, a story or a report a third.
MAX_STATES = 4
# The states' bound: half the KV cache's bytes (a saved state is the cells one prompt and its reply took: a notes
# ask is 300-1,900 tokens of an 8,192-token context), at most 512 MiB (an 8B model's 1,500-token state is 192 MiB).
PROMPT_STATES_SHARE = 0.5
PROMPT_STATES_MAX_BYTES = 512 * 2**20


def prompt_states_bytes(kv_bytes: int) -> int:
    """The most the saved states may hold for a KV cache of ``kv_bytes``: what the memory plan counts."""
    return min(int(kv_bytes * PROMPT_STATES_SHARE), PROMPT_STATES_MAX_BYTES)


def common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    """How many leading tokens ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    differ = np.flatnonzero(a[:n] != b[:n])
    return int(differ[0]) if len(differ) else n


@dataclass(eq=False)          # a state is itself: its arrays are not compared (list.remove finds it by identity)
class SavedState:
    tokens: np.ndarray          # the tokens whose cells the state holds, position 0 onwards
    data: bytes | bytearray | memoryview | object   # llama_state_seq_get_data's bytes for those cells (a buffer)

    @property
    def n_bytes(self) -> int:
        return len(self.data)


class PromptStates:
    """Saved states, least recently used first, within ``budget_bytes`` and ``MAX_STATES``."""

    def __init__(self, budget_bytes: int, max_states: int = MAX_STATES) -> None:
        self.budget_bytes = budget_bytes
        self.max_states = max_states
        self._states: list[SavedState] = []
        self.saved = 0              # states saved, restored, and restored tokens: what the cache did, for a bench
        self.restored = 0
        self.restored_tokens = 0

    def __len__(self) -> int:
        return len(self._states)

    @property
    def n_bytes(self) -> int:
        return sum(s.n_bytes for s in self._states)

    def best(self, tokens: np.ndarray) -> tuple[SavedState | None, int]:
        """The saved state sharing the longest prefix with ``tokens``, and that prefix's length."""
        best, best_n = None, 0
        for state in self._states:
            n = common_prefix(state.tokens, tokens)
            if n > best_n:
                best, best_n = state, n
        return best, best_n

    def holds(self, tokens: np.ndarray) -> bool:
        """Whether a saved state already holds every one of ``tokens`` (saving them again would add nothing)."""
        return any(len(s.tokens) >= len(tokens) and common_prefix(s.tokens, tokens) == len(tokens)
                   for s in self._states)

    def add(self, tokens: np.ndarray, data) -> bool:
        """Keep a state; False when it alone is over the budget. A saved state that is a prefix of the new one
        goes: the new one serves every prompt it served."""
        if len(data) > self.budget_bytes or len(tokens) == 0:
            return False
        self._states = [s for s in self._states
                        if not (len(s.tokens) <= len(tokens) and common_prefix(s.tokens, tokens) == len(s.tokens))]
        self._states.append(SavedState(np.array(tokens, dtype=np.int32), data))
        while len(self._states) > self.max_states or self.n_bytes > self.budget_bytes:
            self._states.pop(0)
        self.saved += 1
        return True

    def used(self, state: SavedState, tokens: int) -> None:
        """``state`` was restored for a prompt, saving the evaluation of ``tokens``: it is the most recent."""
        self._states.remove(state)
        self._states.append(state)
        self.restored += 1
        self.restored_tokens += tokens

    def clear(self) -> None:
        self._states.clear()
