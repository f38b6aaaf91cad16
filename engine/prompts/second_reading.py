"""The second reading's question: a line of the account and the passage it rests on, answered Yes or No.

Worded as measured on the hand-labelled lines (docs/quality-checks.md, "The second reading"); a change of
wording is a change of the check and is measured again there.
"""
from __future__ import annotations

SYSTEM = "You check a summary's statements against the text they summarise. Answer only Yes or No."
QUESTION = ("Is the statement true according to the text, with the same people doing the same things "
            "(to the same people, for the same reasons)? Answer Yes or No.")
YES, NO = "Yes", "No"


def reading_messages(passage: str, line: str) -> list[dict]:
    """The passage (its excerpts joined by "..." lines) and the line, and the yes/no question."""
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Text:\n<<<\n{passage}\n>>>\n\nStatement: {line}\n\n{QUESTION}"}]
