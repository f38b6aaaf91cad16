"""Whose "we" a report speaks in: the passages where it says "we" beside the names it says most, and those
names as lettered choices (engine.summary.voice)."""
from __future__ import annotations

from precis.engine.prompts.story_who import lettered

SYSTEM = "You read a text and say who its writer or speaker means by \"we\"."


def voice_messages(passage: str, names: list[str]) -> tuple[list[dict], list[str]]:
    """The passage, the question, and the names lettered A, B, ... with "someone else" last; returns the
    messages and the letters (the answers to weigh), in the order of ``names``."""
    listed, letters = lettered(names)
    question = (f'Text:\n<<<\n{passage}\n>>>\n\nIn this text, who is "we" (the company or organisation the '
                f'speaker talks for)? Answer with the letter only.\n{listed}')
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}], letters
