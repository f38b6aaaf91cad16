"""The sentences of a line that hold its task, as a TODO list wants them (engine.summary.facts).

A TODO item was once the whole line its task sign stood on: "- [ ] it is scheduled for 22 December.
Decision: the migration goes ahead. Action: Dan prepares the rollback plan." was one item, and a Japanese
line of three sentences was one item for its third (issue 40). A line is cut at its sentences; the ones
that say a task by themselves are the items, without a bare "Action:" or checkbox label (the TODO file
gives each its own checkbox). A checkbox says only that its line is a task: its first sentence is the
item when no sentence of the line says one by itself.
"""
from __future__ import annotations

import re
from typing import Callable

from precis.engine.documents.spoken_text import AFTER_TITLE, SPEAKER_PREFIX

# after ". " before what opens a sentence ("Mr. Chair" and "12.50" go on); after 。！？ at once
_SENTENCE_END = re.compile(rf"(?<=[.!?])(?!{AFTER_TITLE})\s+(?=[A-Z0-9\"'(\[]|- \[)|(?<=[。！？])\s*(?=\S)")
_CHECKBOX = re.compile(r"^\s*(?:[-*]\s*)?\[ \]\s*")
_LABEL = re.compile(r"^\s*(?:action(?: item)?|todo|fixme|task)\s*[:：]\s*", re.I)


def split_sentences(line: str) -> list[str]:
    return [s for s in (p.strip() for p in _SENTENCE_END.split(line)) if s]


def task_sentences(line: str, is_task: Callable[[str], bool], not_speakers: set[str]) -> list[str]:
    """The task sentences of ``line`` (one a task sign found), each without a bare task label, a later
    sentence with its line's speaker ("Mika: ... I will send it by Monday." keeps who will). ``is_task``
    judges a sentence; ``not_speakers``: labels that name no one ("Decision:", "Action:")."""
    sentences = split_sentences(line)
    if not sentences:
        return []
    said = [is_task(_CHECKBOX.sub("", s)) for s in sentences]
    if any(said):
        chosen = [i for i, yes in enumerate(said) if yes]
    elif is_task(sentences[0]):
        chosen = [0]                             # the checkbox's line: its first sentence
    else:
        return []
    label = SPEAKER_PREFIX.match(sentences[0])
    speaker = label.group(0).strip() if label and label.group(0).split()[0].strip(":[]") not in not_speakers \
        and not _LABEL.match(label.group(0)) else ""
    out = []
    for i in chosen:
        task = _LABEL.sub("", _CHECKBOX.sub("", sentences[i]))
        if i > 0 and speaker and not SPEAKER_PREFIX.match(task):
            task = f"{speaker} {task}"
        out.append(task)
    return out
