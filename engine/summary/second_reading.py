"""A second reading of each account line: the model, shown the passage its references come from, weighs
whether the passage says it.

Why: the named checks (engine.summary.checks) read words, and a line whose words are all in its references
can still give an act to the wrong person or say someone asks what they stated ("Grad B asks if the system
knows exactly where you are": Grad B explains that it does). Hand labels found about half the kept lines of
the check half unfaithful while the checks passed nearly all. A 1.5B model cannot write a line right without
its context, but asked one yes/no question with the line's passage in view, how much likelier it makes "No"
than "Yes" separates the labelled lines (docs/quality-checks.md, "The second reading": on 136 English
lines, area under the curve 0.77). The answer is weighed, not sampled: greedy "No" comes only for the plainest
faults, so a line is refused when "No" is within DENY_MARGIN of "Yes".
"""
from __future__ import annotations

from dataclasses import dataclass

from precis.engine.prompts.second_reading import NO, YES, reading_messages

PASSAGE_PAD_CHARS = 80         # of the part either side of each reference, as measured
PASSAGE_MAX_CHARS = 5_000
# log P(No) - log P(Yes) above this and the line is refused. Chosen on the 136 labelled English lines (of the
# check half's TS3009b, Bed002, Bmr026, 61146, 61434 and 63392) to refuse almost no faithful line: there it
# refused 25 of 64 unfaithful lines and 1 of 72 faithful ones; at -0.75, 29 and 6 (the four more cost five
# faithful lines); greedy (0.0), 11 and 1.
DENY_MARGIN = -0.5


@dataclass(frozen=True)
class Reading:
    margin: float                 # log P(No) - log P(Yes)

    @property
    def denies(self) -> bool:
        return self.margin > DENY_MARGIN

    @property
    def reason(self) -> str:
        return (f"read again beside its passage, the model finds it not said there (No against Yes: "
                f"{self.margin:+.2f} in log-odds, refused above {DENY_MARGIN:+.2f})")


def passage_of(part: str, spans: list[tuple[int, int]]) -> str:
    """The part around each reference (PASSAGE_PAD_CHARS either side), overlapping stretches merged, apart ones
    joined by a "..." line."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        start, end = max(0, start - PASSAGE_PAD_CHARS), min(len(part), end + PASSAGE_PAD_CHARS)
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return "\n...\n".join(part[a:b] for a, b in merged)[:PASSAGE_MAX_CHARS]


def read_line(ctx, part: str, spans: list[tuple[int, int]], line: str):
    """(Reading or None, CallResult or None): None when the line has no references to read it beside or the
    runtime cannot weigh answers (a server that returns no log-probabilities)."""
    if not spans:
        return None, None
    found, result = ctx.weigh(reading_messages(passage_of(part, spans), line), (YES, NO))
    if not found:
        return None, result
    return Reading(found[NO] - found[YES]), result
