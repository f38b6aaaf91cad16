"""What a part keeps coming back to: a few words shown to the account's model beside the part.

Asked only to say what happens, the 1.5B model wrote what a meeting did ("The Marketing team discusses the
design", "The Project Manager asks if ...") more than what it found or decided. Shown the words the part and
the whole document keep coming back to (engine.summary.salience's weights: a word weighs by how many of the
document's sentences hold it), its lines named them (on a development meeting, fact recall 0.21 -> 0.35; on
two stories 0.22 -> 0.25 and 0.22 -> 0.22; docs/quality.md, "The account"). The words are a pointer, not
evidence: every line is still held to the part's own sentences.
"""
from __future__ import annotations

import re
from collections import Counter

from precis.engine.summary.evidence import _stem
from precis.engine.summary.salience import NUMBER_MARK, DocumentWeights

_WORD = re.compile(r"[A-Za-z][A-Za-z-]+")

TOPIC_WORDS = 8
MIN_IN_PART = 2                  # a word the part says once is no topic of it
# Words of talk, not of its topics: what a meeting's speakers say around what they mean
_TALK = set("""think thing things know look looking actual actually really just mean going want like yeah okay good
kind sort stuff need guess said say says well maybe probably sure right time make take come put give bit lot way
get got let see yes tell told talk talking talked ask asked use used also even still much many something anything
everything nothing someone people little first last next back able went goes done does doing great fine nice
while whilst upon onto toward towards without within across against after before around because please""".split())


def topic_words(weights: DocumentWeights, sentences, names: list[str], count: int = TOPIC_WORDS) -> list[str]:
    """The part's ``count`` words of most weight (in the whole document) times use (in the part), not names (the
    model is shown those already) nor words of talk; ``sentences``: the part's (salience.Sentence)."""
    used: Counter = Counter()
    surface: dict[str, Counter] = {}            # a unit's stem -> the words the part writes it as
    for sentence in sentences:
        used.update(sentence.units)
        for word in _WORD.findall(sentence.text):
            surface.setdefault(_stem(word.lower()), Counter())[word.lower()] += 1
    named = {form for name in names for w in name.split() for form in (w.lower(), _stem(w.lower()))}
    scored = sorted(((weights.weight(u) * c, u) for u, c in used.items()
                     if c >= MIN_IN_PART and not u.startswith(NUMBER_MARK) and u not in named and u not in _TALK
                     and len(u) > 3 and "'" not in u), reverse=True)
    # shown as the part writes them ("something", not the stem "someth")
    return [surface[u].most_common(1)[0][0] if u in surface else u for _, u in scored[:count]]
