"""Is a round's reply a real updated summary? The checks behind the curve's red points.

A reply is flagged when it:
- shrank: is much shorter than the summary it was given (the seed's 6803 -> 810 characters);
- meta: talks about the summary instead of being one ("the summary remains unchanged");
- empty, truncated (ran into max_tokens: the end of the summary is missing);
- repetition: loops (the same line or passage over and over: SmolLM2's 924-character loop);
- copied_chunk: is mostly a verbatim copy of the new content, or adds to the previous summary a passage of
  it pasted verbatim;
- echoed_prompt: repeats the rules or the labels of the prompt;
- dropped_facts: lost most of the names, numbers and dates the previous summary held.
Each threshold is a field of GuardSettings (configurable per run).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from precis.engine.prompts.layout import CONTENT_OPEN, RULES_CLOSE, RULES_OPEN, SUMMARY_LABEL
from precis.engine.summary.facts import fact_keys

_META = re.compile(
    r"(summary|minutes|archive) (remains|is|stays) (unchanged|the same)|no (new|additional|relevant) "
    r"(information|content|facts)|nothing (new )?to (add|update)|there is no new|i (cannot|can't|am unable)"
    r"|as an ai\b|変更(は|が)?(ありません|なし)|新しい情報は(ありません|ない)|要約は(変わりません|同じです)", re.I)
# A reply that opens with a preamble: the preamble is dropped, the rest is kept (not a collapse).
_PREAMBLE = re.compile(r"^\s*(here is|here's|below is|sure[,!.]|certainly[,!.]|updated summary:|the updated summary"
                       r"( is)?:|complete updated summary:)[^\n]*\n+", re.I)


@dataclass(frozen=True)
class GuardSettings:
    shrink_ratio: float = 0.6          # reply shorter than this share of the previous summary: collapse
    min_previous_chars: int = 200      # below this the previous summary is too short to judge shrinkage
    copy_share: float = 0.8            # share of the reply's 8-character shingles found verbatim in the chunk
    # ... and of what the reply adds to the previous summary (its shingles the previous one lacks), once that
    # is at least added_copy_min_chars long. The 1.5B model's rolling rounds that passed with the chunk
    # pasted under the previous summary (the development earnings call, twice) added text 97% copied; the
    # rounds that summarised their part added text 55-66% found in it (short phrases and names recur).
    added_copy_share: float = 0.9
    added_copy_min_chars: int = 400
    repeat_lines: int = 3              # the same non-trivial line this many times: a loop
    dropped_fact_share: float = 0.5    # more than this share of the previous summary's facts missing
    min_previous_facts: int = 4
    # After this many parts in a row whose rewrite failed twice (each salvaged as its notes), the rest of the
    # document's parts are taken as notes straight away, the model no longer asked to rewrite (0: always
    # asked). Qwen2.5-Coder-1.5B failed 4 of 5 rolling rounds and 5 of 6 maps on development documents,
    # each failed part costing two long attempts before its notes (docs/quality-history.md, "Giving up on rewrites").
    notes_after_failed_parts: int = 2
    # A reply of a few characters for a part with something in it is no summary: SmolLM2 through a server at
    # parallel 2 once answered a 1,500-character part with "[Rem", and the run finished with it
    min_reply_chars: int = 24
    min_chunk_chars_for_reply: int = 240
    # The account: each line the checks pass is read again beside its passage by the model, and refused when
    # the model finds it not said there (engine.summary.second_reading; English lines, a runtime that can
    # weigh answers)
    second_reading: bool = True


def clean_reply(reply: str) -> str:
    """Strip what is not summary: a polite preamble, code fences around the whole reply, stray spaces."""
    text = _PREAMBLE.sub("", reply.strip(), count=1)
    fenced = re.fullmatch(r"```\w*\n(.*?)\n```", text, re.S)
    return (fenced.group(1) if fenced else text).strip()


def _shingles(text: str, n: int = 8, step: int = 1) -> set[str]:
    flat = re.sub(r"\s+", " ", text)
    return {flat[i:i + n] for i in range(0, max(0, len(flat) - n + 1), step)}


def repeated_passage(text: str, min_lines: int = 3) -> bool:
    lines = [ln.strip() for ln in text.splitlines() if len(ln.strip()) >= 20]
    counts: dict[str, int] = {}
    for ln in lines:
        counts[ln] = counts.get(ln, 0) + 1
        if counts[ln] >= min_lines:
            return True
    return looping_tail(text)


def looping_tail(text: str, window: int = 60, times: int = 3) -> bool:
    """The last ``window`` characters occur ``times`` times or more: the model is going round in circles.
    Cheap enough to check while streaming, so a loop is stopped as it starts, not at max_tokens."""
    if len(text) < window * times:
        return False
    tail = text[-window:]
    return len(tail.strip()) >= 20 and text.count(tail) >= times


COPY_STOP_CHARS = 600            # a reply this long that is still all copy is stopped (see CopyWatch)
COPY_STOP_SHARE = 0.95


class CopyWatch:
    """Cheap enough to check while streaming: is the reply so far a verbatim copy of the new content
    (and not of the previous summary, which an update keeps)? Stricter than the guard's check of the
    whole reply (``copy_share``): a reply whose first 600 characters are all copy is one the guard
    refuses anyway, and stopping it there saves the rest of its generation, up to the summary cap."""

    def __init__(self, chunk: str, previous: str) -> None:
        self.chunk = _shingles(chunk)
        self.previous = _shingles(previous) if previous else set()

    def copying(self, reply: str) -> bool:
        if len(reply) < COPY_STOP_CHARS or not self.chunk:
            return False
        shingles = _shingles(reply, step=4)
        in_chunk = len(shingles & self.chunk) / len(shingles)
        in_previous = len(shingles & self.previous) / len(shingles) if self.previous else 0.0
        return in_chunk >= COPY_STOP_SHARE and in_previous < 0.5


def check_reply(previous: str, reply: str, chunk: str, *, hit_max_tokens: bool, rules: str,
                settings: GuardSettings = GuardSettings(), labels: tuple[str, ...] = ()) -> tuple[list[str], str]:
    """(flags, detail) for a cleaned reply; no flags means the round is accepted."""
    flags, details = [], []
    if not reply.strip():
        return ["empty"], "the reply was empty"
    if len(reply.strip()) < settings.min_reply_chars and len(chunk.strip()) >= settings.min_chunk_chars_for_reply:
        flags.append("empty")
        details.append(f"a reply of {len(reply.strip())} characters for a part of {len(chunk.strip()):,}")
    if hit_max_tokens:
        flags.append("truncated")
        details.append("the reply ran into the summary cap and was cut off")
    if len(previous) >= settings.min_previous_chars and len(reply) < settings.shrink_ratio * len(previous):
        flags.append("shrank")
        details.append(f"{len(previous):,} -> {len(reply):,} characters")
    if _META.search(reply[:400]) and len(reply) < max(400, 0.5 * len(previous)):
        flags.append("meta")
        details.append("a remark about the summary instead of the summary")
    if repeated_passage(reply, settings.repeat_lines):
        flags.append("repetition")
        details.append("the reply repeats itself")
    rule_lines = [ln.strip() for ln in rules.splitlines() if len(ln.strip()) > 20]
    if RULES_OPEN in reply or RULES_CLOSE in reply or SUMMARY_LABEL in reply or CONTENT_OPEN in reply \
            or any(f"{label}:" in reply for label in labels if label) \
            or sum(ln[:40] in reply for ln in rule_lines) >= 2:
        flags.append("echoed_prompt")
        details.append("the reply repeats the prompt's rules or labels")
    # The reply is sampled every 4 characters, the sources at every position: a copied passage
    # matches wherever it starts (sampling both every 4 only caught copies at aligned offsets).
    reply_shingles = _shingles(reply, step=4)
    if len(reply) >= 200 and reply_shingles:
        chunk_shingles = _shingles(chunk)
        previous_shingles = _shingles(previous) if previous else set()
        in_chunk = len(reply_shingles & chunk_shingles) / len(reply_shingles)
        in_previous = len(reply_shingles & previous_shingles) / len(reply_shingles)
        added = reply_shingles - previous_shingles if previous else set()
        added_in_chunk = len(added & chunk_shingles) / len(added) if added else 0.0
        if in_chunk >= settings.copy_share and in_previous < 0.5:
            flags.append("copied_chunk")
            details.append(f"{in_chunk:.0%} of the reply is copied from the new content")
        elif 4 * len(added) >= settings.added_copy_min_chars and added_in_chunk >= settings.added_copy_share:
            flags.append("copied_chunk")
            details.append(f"what the reply adds to the previous summary (about {4 * len(added):,} characters) is "
                           f"{added_in_chunk:.0%} copied from the new content")
    before = fact_keys(previous)
    if len(before) >= settings.min_previous_facts:
        after = re.sub(r"[\s,]", "", reply).lower()
        missing = [k for k in before if k not in after]
        if len(missing) > settings.dropped_fact_share * len(before):
            flags.append("dropped_facts")
            details.append(f"{len(missing)} of {len(before)} names/numbers/dates of the previous summary are gone")
    return flags, "; ".join(details)
