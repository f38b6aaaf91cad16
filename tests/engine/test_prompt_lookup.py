"""Guesses from the prompt (engine.runtime.prompt_lookup): what is guessed, and how the guess's length follows what
held. The drafted reply against the one sampled token by token, with the real model: test_prompt_lookup_real.py."""
from __future__ import annotations

import numpy as np

from precis.engine.runtime.prompt_lookup import PromptLookup


def ids(*tokens: int) -> np.ndarray:
    return np.array(tokens, dtype=np.intc)


def test_the_tokens_after_the_latest_earlier_occurrence_of_the_last_three_are_guessed():
    lookup = PromptLookup(draft_tokens=8)
    #          0  1  2  3  4  5  6  7  8  9 10 11 12
    context = ids(5, 1, 2, 3, 40, 41, 9, 1, 2, 3, 50, 51, 52, 53, 7, 1, 2, 3)
    assert lookup(context).tolist() == [50, 51, 52, 53, 7, 1, 2, 3]
    assert (lookup.drafts, lookup.drafted_tokens) == (1, 8)


def test_two_tokens_are_looked_up_where_three_were_not_seen_and_one_is_too_few():
    lookup = PromptLookup(draft_tokens=4)
    assert lookup(ids(8, 2, 3, 60, 61, 9, 2, 3)).tolist() == [60, 61, 9, 2]
    # only the last token was seen before: no guess (a single token repeats everywhere)
    lookup = PromptLookup()
    assert len(lookup(ids(1, 3, 70, 71, 2, 3))) == 0
    assert lookup.drafts == 0


def test_no_guess_from_the_tail_itself():
    lookup = PromptLookup()
    assert len(lookup(ids(1, 2, 3))) == 0
    assert len(lookup(ids(4, 4))) == 0           # the only pair is the tail


def test_what_held_of_each_guess_is_counted_from_the_context_it_left():
    lookup = PromptLookup(draft_tokens=3)
    prompt = [1, 2, 3, 10, 11, 12, 13, 14, 15, 16, 99]
    context = prompt + [1, 2, 3]
    assert lookup(ids(*context)).tolist() == [10, 11, 12]
    context += [10, 11, 12, 13]                                    # all three held; 13 sampled after them
    assert lookup(ids(*context)).tolist() == [14, 15, 16]
    assert lookup.held_tokens == 3
    context += [14, 55]                                            # one held, then the sampler drew 55
    assert len(lookup(ids(*context))) == 0                         # ... 14, 55 was not seen: no guess
    assert lookup.held_tokens == 3 + 1
    assert (lookup.drafts, lookup.drafted_tokens) == (2, 6)
