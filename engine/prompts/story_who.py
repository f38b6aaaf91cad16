"""Who a story's "he" or "she" is: the story just before the sentence, and the people it names as lettered choices.

Worded as measured on 99 hand-labelled sentences of the development stories (docs/quality.md, "Who "he" is,
asked of the model"); a change of wording is a change of the measurement and is measured again there.
"""
from __future__ import annotations

SYSTEM = "You read a story and say who a sentence is about."
SOMEONE_ELSE = "someone else"


def lettered(names: list[str]) -> tuple[str, list[str]]:
    """``names`` and "someone else" last, lettered A, B, ... one a line; and the letters (the answers to
    weigh), in the order of ``names``. Also a report's "we" asks so (engine.prompts.voice)."""
    choices = [*names, SOMEONE_ELSE]
    letters = [chr(ord("A") + i) for i in range(len(choices))]
    return "\n".join(f"{letter}) {choice}" for letter, choice in zip(letters, choices)), letters


def who_messages(passage: str, sentence: str, pronoun: str, names: list[str]) -> tuple[list[dict], list[str]]:
    """The passage ending with the sentence, the question, and the names lettered A, B, ... with "someone
    else" last; returns the messages and the letters (the answers to weigh), in the order of ``names``."""
    listed, letters = lettered(names)
    question = (f'Story:\n<<<\n{passage} {sentence}\n>>>\n\nIn the last sentence, "{sentence}", who is '
                f'"{pronoun}"? Answer with the letter only.\n{listed}')
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}], letters
