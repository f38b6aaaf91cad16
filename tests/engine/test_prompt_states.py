"""The saved prompt states' store (engine.runtime.prompt_states): which state serves a prompt, and its bound."""
from __future__ import annotations

import numpy as np

from precis.engine.runtime.prompt_states import (
    PROMPT_STATES_MAX_BYTES,
    PromptStates,
    common_prefix,
    prompt_states_bytes,
)


def toks(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int32)


def test_common_prefix_counts_the_shared_leading_tokens():
    assert common_prefix(toks(1, 2, 3, 4), toks(1, 2, 9)) == 2
    assert common_prefix(toks(1, 2), toks(1, 2, 3)) == 2
    assert common_prefix(toks(5), toks(1)) == 0
    assert common_prefix(toks(), toks(1)) == 0


def test_the_state_sharing_the_longest_prefix_serves_the_prompt():
    states = PromptStates(budget_bytes=1000)
    states.add(toks(1, 2, 3, 4, 5), b"a" * 10)
    states.add(toks(1, 2, 7, 8), b"b" * 10)
    best, shared = states.best(toks(1, 2, 7, 8, 9))
    assert best.data == b"b" * 10 and shared == 4
    best, shared = states.best(toks(1, 2, 3, 9))
    assert best.data == b"a" * 10 and shared == 3
    assert states.best(toks(6, 6)) == (None, 0)


def test_the_least_recently_used_state_goes_first_within_the_budget():
    states = PromptStates(budget_bytes=25)
    states.add(toks(1, 1), b"x" * 10)
    states.add(toks(2, 2), b"y" * 10)
    first, _ = states.best(toks(1, 1, 5))
    states.used(first, 2)                         # (1, 1) is now the most recent
    states.add(toks(3, 3), b"z" * 10)             # 30 bytes > 25: the least recent, (2, 2), goes
    assert states.best(toks(2, 2))[0] is None
    assert states.best(toks(1, 1))[0] is not None and states.best(toks(3, 3))[0] is not None
    assert states.n_bytes == 20 and states.restored == 1 and states.restored_tokens == 2


def test_a_state_over_the_budget_is_not_kept_and_a_prefix_state_gives_way():
    states = PromptStates(budget_bytes=10)
    assert not states.add(toks(1, 2), b"x" * 11)
    assert len(states) == 0
    states.add(toks(1, 2), b"x" * 4)
    states.add(toks(1, 2, 3), b"y" * 5)           # serves every prompt (1, 2) served, and more
    assert len(states) == 1 and states.holds(toks(1, 2)) and states.holds(toks(1, 2, 3))
    assert not states.holds(toks(1, 2, 3, 4))


def test_at_most_max_states_are_kept():
    states = PromptStates(budget_bytes=10**6, max_states=2)
    for i in range(3):
        states.add(toks(i, i), b"s")
    assert len(states) == 2 and states.best(toks(0, 0))[0] is None


def test_the_bound_is_half_the_kv_cache_up_to_512_mib():
    assert prompt_states_bytes(200 * 2**20) == 100 * 2**20
    assert prompt_states_bytes(4 * 2**30) == PROMPT_STATES_MAX_BYTES == 512 * 2**20


def test_a_state_restored_after_others_of_other_lengths_becomes_the_most_recent():
    states = PromptStates(budget_bytes=10**6, max_states=3)
    states.add(toks(1, 2, 3), b"a")
    states.add(toks(4, 5), b"b")
    states.add(toks(6, 7, 8, 9), b"c")
    middle, shared = states.best(toks(4, 5, 0))
    states.used(middle, shared)                   # found among states whose token arrays differ in length
    states.add(toks(9, 9), b"d")                  # four: the least recent, (1, 2, 3), goes; (4, 5) stays
    assert states.best(toks(1, 2, 3))[0] is None
    assert [s.data for s in states._states] == [b"c", b"b", b"d"]
