"""Which of a story part's candidate sentences tell what happens: the sentences numbered, the numbers asked for.

Code weighs a sentence by the words it adds, so a story's description ("A leafy branch swings aside", "The sun's
light glows on silks, buckles, plumes and pistols") weighs as much as its events; which sentence moves the plot
is a reader's judgement, made here by the model over sentences code has already chosen, in a held shape (numbers
only: nothing it writes reaches the summary).
"""
from __future__ import annotations

SYSTEM = "You read sentences from a story and say which of them tell what happens. You only write numbers."


def pick_messages(sentences: list[str], count: int) -> list[dict]:
    """The numbered sentences and the question for the ``count`` that tell the most of what happens."""
    numbered = "\n".join(f"[{i}] {s}" for i, s in enumerate(sentences, 1))
    question = (f"Sentences from one part of a story, in the story's order:\n<story_sentences>\n{numbered}\n"
                f"</story_sentences>\n\n"
                f"Which {count} of them tell the most about the story: who the people are and what they want, "
                f"what they do, find out or decide, and the world they are in? Leave out sentences that only "
                f"describe how a place, a thing or a person looks. Answer with the {count} numbers, most "
                f"important first, separated by commas.")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]


def pick_grammar(count: int) -> str:
    """GBNF of exactly ``count`` numbers separated by commas (the model's answer only: code keeps the numbers
    that name a sentence, once each)."""
    return "\n".join([
        "root ::= num" + ' ", " num' * (count - 1) + ' "\\n"',
        "num ::= [1-9] | [1-9] [0-9]",
        "",
    ])
