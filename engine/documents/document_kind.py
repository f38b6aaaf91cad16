"""What kind of document a text is, as far as its shape shows: a git log, a conversation with an AI
assistant, a meeting's transcript, or prose (a story, a report, an article).

The rules preset follows it when the person leaves the preset on "Automatic" (engine.prompts.presets). Before,
every document got the conversation archive's: a meeting's or a story's notes were sorted under "Done",
"Decisions and judgements" and "Reusable patterns", a git log's added, changed and fixed all under "実施"
(done), and the rolling and map-reduce rounds were told they kept "a day's conversations between a person
and an AI assistant" (docs/quality-history.md, "The preset follows the document").
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from precis.engine.documents.commit_log import commit_subjects
from precis.engine.documents.spoken_text import SPEAKER_PREFIX, speaker_name, speaker_of, turn_speakers
from precis.engine.documents.transcript_turns import prose_spans

GIT_LOG = "git log"
ASSISTANT_CONVERSATION = "assistant conversation"
MEETING_TRANSCRIPT = "meeting transcript"
PROSE = "prose"

MIN_COMMITS = 3
# A day with an assistant as its own tools write it: tool calls and agent runs on lines of their own
# ("[07:55:01] tool · imap: SELECT INBOX", "[tool] read_file", "agent started: inbox-digest"), the nightly
# archiver's session banners ("=== Session 3 · 2026-11-27 09:32 · ... ==="), or turns of a speaker whose name
# is an assistant's role, not a person's ("Assistant:", "ChatGPT:"; not "User:", a usability study's participant)
_ASSISTANT_LINE = re.compile(
    r"^\s*(?:\[[^\]\n]{1,30}\]\s*)?(?:(?:tool|function)(?:\s*[·:(\]]|\s+(?:call|result)\b)|agent (?:started|finished)\b"
    r"|\[(?:tool|function)\b|(?:assistant|ai|chatgpt|claude|gemini|copilot|bot)\s*[:：]|=+ ?session \d+\b)",
    re.I | re.M)
MIN_ASSISTANT_LINES = 3
MIN_TURNS = 12                 # labelled lines: fewer is an article quoting a few people
MIN_TURN_SHARE = 0.05          # of the non-empty lines: an assembly's minutes open with a roll of 120 names,
                               # and a governor's answer runs over paragraphs (0.09 and 0.18 on two sittings)
MIN_SPEAKERS = 2               # each with MIN_TURNS_EACH turns at least
MIN_TURNS_EACH = 3


@dataclass(frozen=True)
class DocumentKind:
    name: str                  # GIT_LOG, ASSISTANT_CONVERSATION, MEETING_TRANSCRIPT or PROSE
    reason: str                # what it is and what showed it, for the person: "a git log of 64 commits"


def document_kind(text: str) -> DocumentKind:
    """The kind of ``text`` by its shape. A git log first (its commit headers are unmistakable), then an
    assistant's conversation (a chat export's turns, tool lines, a role's turns: a meeting has none of
    them), then a meeting (many lines opening with a speaker's label, at least two people speaking often),
    else prose."""
    commits = len(commit_subjects(text))
    if commits >= MIN_COMMITS:
        return DocumentKind(GIT_LOG, f"a git log of {commits} commits")
    if prose_spans(text) is not None:
        return DocumentKind(ASSISTANT_CONVERSATION, "a chat with an assistant")
    assistant_lines = len(_ASSISTANT_LINE.findall(text))
    if assistant_lines >= MIN_ASSISTANT_LINES:
        return DocumentKind(ASSISTANT_CONVERSATION,
                            f"a day with an assistant ({assistant_lines} lines of its tools or roles)")
    turns, lines = _speaker_turns(text)
    speakers = Counter(turns)
    talking = [s for s, n in speakers.items() if n >= MIN_TURNS_EACH]
    if len(turns) >= MIN_TURNS and len(turns) >= MIN_TURN_SHARE * lines and len(talking) >= MIN_SPEAKERS:
        return DocumentKind(MEETING_TRANSCRIPT,
                            f"a meeting transcript ({len(turns):,} turns of {len(speakers)} speakers)")
    return DocumentKind(PROSE, "prose (no speaker labels, commits or assistant turns)")


def _speaker_turns(text: str) -> tuple[list[str], int]:
    """The speaker of each labelled line, and the ``text``'s non-empty lines (a Japanese assembly's paragraphs
    under a label, which go on with its turn, counted with it: engine.documents.spoken_text.turn_speakers)."""
    turns = []
    lines = 0
    for line in text.split("\n"):
        if not line.strip():
            continue
        lines += 1
        label = SPEAKER_PREFIX.match(line)
        if label:
            turns.append(speaker_name(speaker_of(label.group(0))))
    return turns, lines - len(turn_speakers(text))


# Dialogue marks per 1,000 characters above which prose tells a story: on the development set every story
# has 6.8 or more (squality 6.8-19.0, the aozora novel 14.9: its 「」), every earnings call none, so the
# account gives a report's worked example to prose without dialogue (engine.prompts.account)
NARRATIVE_MARKS_PER_1K = 2.0
_DIALOGUE_MARK = re.compile(r'["“”「」『』]')


def is_narrative(text: str) -> bool:
    """Whether prose tells a story: whether its people speak in quotes often enough."""
    return len(_DIALOGUE_MARK.findall(text)) * 1000 >= NARRATIVE_MARKS_PER_1K * max(1, len(text))
