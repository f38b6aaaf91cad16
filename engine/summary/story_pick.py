"""A story part's sentences chosen by what happens in them: code's widest choice, the model's pick among it.

select_sentences (engine.summary.salience) chooses by the weight of the words a sentence adds; in a story that
chose description as often as events. Here code chooses twice the sentences and twice the reading length a part
may note, the model names the ones that tell what happens (engine.prompts.story_pick), and code keeps those, in
the model's order, within the part's sentence count and length; code's own first choice fills what the model's
answer leaves. Only narration (no transcript speakers, no Japanese: the development stories are where it was
measured).
"""
from __future__ import annotations

import re
from dataclasses import replace

from precis.engine.prompts.story_pick import pick_grammar, pick_messages
from precis.engine.summary.salience import Sentence, select_sentences

WIDER = 2                 # how many times the part's sentences (and reading length) code offers the model
PICK_TOKENS_PER_NUMBER = 4


def picked_numbers(reply: str, count: int) -> list[int]:
    """The 0-based positions the reply names, in its order, each once, within ``count`` sentences."""
    found: list[int] = []
    for number in (int(n) for n in re.findall(r"\d+", reply)):
        if 1 <= number <= count and number - 1 not in found:
            found.append(number - 1)
    return found


def story_sentences(ctx, index: int, part: str, weights, covered: set[str], budget_chars: int, cap: int,
                    candidates: list[Sentence], results: list):
    """Generator; returns the part's sentences to note (in the part's order): where the part is narration and
    code's wider choice holds more than ``cap``, the model's pick among it; else code's choice. The model's call
    is added to ``results``."""
    own = select_sentences(part, weights, set(covered), budget_chars, cap, candidates)
    if any(s.speaker or s.turns for s in candidates):
        return own
    wider = select_sentences(part, weights, set(covered), WIDER * budget_chars, WIDER * cap, candidates)
    if len(wider) <= len(own):
        return own
    count = min(len(own), len(wider) - 1)
    messages = pick_messages([s.shown() for s in wider], count)
    result = yield from ctx.call(index, messages, PICK_TOKENS_PER_NUMBER * count + 4,
                                 replace(ctx.strict_sampling, grammar=pick_grammar(count)))
    results.append(result)
    order = [wider[i] for i in picked_numbers(result.raw, len(wider))] + [s for s in own]
    chosen: list[Sentence] = []
    used = 0
    for sentence in order:
        if len(chosen) >= len(own):
            break
        if sentence in chosen or (chosen and used + sentence.reading_chars > budget_chars):
            continue
        chosen.append(sentence)
        used += sentence.reading_chars
    covered |= set().union(*(s.units for s in chosen)) if chosen else set()
    return sorted(chosen, key=lambda s: s.start)

