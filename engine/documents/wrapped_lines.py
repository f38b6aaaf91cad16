"""Prose hard-wrapped at a fixed width: its line breaks are not the author's.

Project Gutenberg texts, e-mails and many plain-text files break every line at about 70 columns:

      At five miles Retief
    threw the light skiff into maximum acceleration, straight toward the
    oncoming bomb. Crushed back in the padded seat, he watched the screen,

A sentence found line by line is then cut at each break: three of the development corpus's five stories
are wrapped so, and the notes strategy chose "threw the light skiff into maximum acceleration, straight
toward the" and "thought you were a stool-pigeon from CDT" as sentences, 9 of one story's 28 notes half a
sentence. ``unwrapped`` gives the text with those breaks as spaces, character for character the same
length, so every offset into it is an offset into the text (a note's quote stays where the document has it).

Wrapped prose is told by its shape, not its name: most lines end close to one width of at most
``MAX_WRAP_WIDTH`` characters, and many end inside a sentence. On the development corpus the three wrapped
stories have 67-77% of their lines within the band and 53-69% unterminated; no meeting, call, chat, git log
or unwrapped story has more than 48% within it (a git log's lines are as short, but of every length).
"""
from __future__ import annotations

import re

MAX_WRAP_WIDTH = 100          # wider lines are paragraphs as written, not a fixed-width wrap
MIN_LINES = 12                # fewer lines than this say nothing of a width
FILLED_SHARE = 0.5            # share of lines ending within the band below the width
FILLED_FROM = 0.6             # the band: from this share of the width up to it
UNTERMINATED_SHARE = 0.3      # share of lines ending inside a sentence
_TERMINAL = ('.', '!', '?', '"', "'", ':', ';', '”', '’', ')', '。', '」', '』', '！', '？')
_LIST_OR_HEADING = re.compile(r"\s*(?:[-*•#>|]|\d{1,3}[.)]\s|[A-Z][\w.'-]*(?: [\w.'-]+){0,3}:\s)")


def _is_cjk(ch: str) -> bool:
    return ord(ch) > 0x3000


def wrap_width(text: str) -> int:
    """The width ``text`` is hard-wrapped at (the 95th percentile of its line lengths), or 0 when it is
    not wrapped prose."""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    if len(lines) < MIN_LINES:
        return 0
    lengths = sorted(len(ln) for ln in lines)
    width = lengths[int(0.95 * (len(lengths) - 1))]
    if width > MAX_WRAP_WIDTH:
        return 0
    filled = sum(1 for n in lengths if FILLED_FROM * width <= n <= width) / len(lines)
    unterminated = sum(1 for ln in lines if not ln.endswith(_TERMINAL)) / len(lines)
    return width if filled >= FILLED_SHARE and unterminated >= UNTERMINATED_SHARE else 0


def unwrapped(text: str) -> str:
    """``text`` with the line breaks of its hard wrap as spaces (same length; see the module's docstring):
    a break after a line filled to the band, before a line of prose that starts no new paragraph (not
    indented further, blank, a list item, a heading or a speaker's label), between two letters that are
    not Japanese (whose words have no spaces to put back). Any other text is returned as it is."""
    width = wrap_width(text)
    if not width:
        return text
    chars = list(text)
    line_start = 0
    while True:
        end = text.find("\n", line_start)
        if end < 0 or end + 1 >= len(text):
            break
        line = text[line_start:end].rstrip()
        next_end = text.find("\n", end + 1)
        following = text[end + 1:next_end if next_end >= 0 else len(text)]
        if (len(line) >= FILLED_FROM * width and following.strip()
                and _indent(following) <= _indent(line)
                and not _LIST_OR_HEADING.match(following)
                and not _is_cjk(line[-1]) and not _is_cjk(following.lstrip()[0])):
            chars[end] = " "
        line_start = end + 1
    return "".join(chars)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())
