"""Scaffolding and chatter in a reply: the prompt's own structure or talk to the reader instead of
(or around) the summary. Measured with Qwen2.5-Coder-1.5B: "The existing summary is: (none yet: this
is the first part)", "New content adds:", a closing </existing_summary> tag, "Do you want to add the
additional details?", a Japanese log's English rolling summary headed "### New Content". Such lines
are removed from every reply, counted, and a reply that is mostly scaffolding is a failed round.
"""
from __future__ import annotations

import re

_LINE_PATTERNS = [
    r"</?[a-z_]{3,40}(?:\s[^<>]{0,80})?>",                                 # <existing_summary>, </new_content>
    r"\b(?:existing|previous|updated|complete) (?:summary|minutes)\b",
    r"^\W*(?:existing summary|new content|updated summary|summary|minutes|notes)(?: for this (?:round|part))?\s*:\s*$",
    r"^\W*(?:existing summary|new content|updated summary|previous summary)\W*$",   # "### New Content"
    r"\(none yet",
    r"\bnew content (?:for this round|adds)\b",
    r"\b(?:here is|here's|here are|below is|below are|as requested|i have (?:updated|summarized|added))\b",
    r"\b(?:following the rules|the rules above|these instructions|this round)\b",
    r"^\W*(?:archive date|mandatory rules|end of rules|notes for this part|part \d+ of \d+)\b",
    r"\b(?:do you want|would you like|shall i|should i|let me know|feel free|i hope this|hope this helps|"
    r"is there anything)\b",
    r"^\s*(?:sure|certainly|of course|okay|ok)[,.!]",
    r"(?:以下(?:は|が|に)(?:要約|まとめ)|要約(?:は|を)以下|既存の要約|新しい内容|いかがでしょうか|ご質問|お知らせください)",
]
_SCAFFOLD = re.compile("|".join(f"(?:{p})" for p in _LINE_PATTERNS), re.I | re.M)
# A question addressed to the reader at the end of a line ("...additional details?").
_QUESTION_TO_READER = re.compile(r"^\W*(?:do|does|would|could|can|shall|should|is|are|will)\b[^?\n]{0,160}\?\s*$",
                                 re.I)


# The reply naming the prompt's content tag as its subject: "The new content provides a detailed
# description of the alien prison ..." (map-reduce and rolling on a development story). The sentence's
# content is the summary's; only its subject is the prompt's, and it becomes the text it names. Only
# before a verb that describes, so "the new content for the website" of a meeting stays as said.
_CONTENT_TAG_SUBJECT = re.compile(
    r"\b(the|this) (?:new |given |provided )?(?:content|chunk)(?= (?:provides|describes|mentions|discusses|details|"
    r"introduces|covers|explains|talks about|focuses on|highlights|presents|shows|says|states|continues|is about)\b)",
    re.I)


def scaffold_lines(text: str) -> list[str]:
    """The lines of ``text`` that are prompt scaffolding or chatter, not summary."""
    return [line for line in text.splitlines() if line.strip() and is_scaffold(line)]


def is_scaffold(line: str) -> bool:
    return bool(_SCAFFOLD.search(line) or _QUESTION_TO_READER.match(line.strip()))


def strip_scaffold(text: str) -> tuple[str, list[str]]:
    """(text without scaffold lines, the lines removed). Tags inside an otherwise good line are cut out, and
    a sentence whose subject is the prompt's content tag is given the text it names as its subject."""
    kept, removed = [], []
    for line in text.splitlines():
        if not line.strip():
            kept.append(line)
            continue
        line = _CONTENT_TAG_SUBJECT.sub(lambda m: m.group(1) + " text", line)    # "The new content describes"
        bare = re.sub(r"</?[a-z_]{3,40}(?:\s[^<>]{0,80})?>", "", line)
        if bare != line and bare.strip() and not is_scaffold(bare):
            kept.append(bare.rstrip())          # a stray tag around real content: keep the content
            removed.append(line)
        elif is_scaffold(line):
            removed.append(line)
        else:
            kept.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip(), removed
