"""Prompts and output grammars of the evidence-linked notes strategy.

Each ask is small, local and well shaped. Code chooses a part's sentences; the model says each one as a
short note in its own words, as numbered lines ("[1] ...") held to that shape by a GBNF grammar
(llama.cpp constrains sampling), so it cannot chat, echo tags or labels, or run on: every repeated class
is bounded. A sentence whose numbered rewording is refused twice is asked alone (``restate_messages``);
compaction asks for pairs of related notes said as one; the writing pass asks for a few words naming
what a run of consecutive notes is about. The static part of each prompt (system, rules, the worked
example) comes first and is the same every call, so llama.cpp's prefix reuse evaluates it once.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from precis.engine.prompts.inert import as_data
from precis.engine.prompts.layout import is_japanese, language_line
from precis.engine.prompts.presets import Preset

POINT_CHARS = (8, 150)        # bounds of one note's point, characters
REWORD_SYSTEM = ("You turn sentences quoted from a document into short notes in your own words. You only write "
                 "the numbered note lines.")
RESTATE_SYSTEM = "You restate one sentence quoted from a document as a short note in your own words."
WRITING_SYSTEM = "You name the topic of a few numbered notes in a short heading, in the notes' own words."


def reword_grammar(count: int) -> str:
    """GBNF of exactly ``count`` numbered lines "[1] ...", in order: each note answers its own sentence."""
    lo, hi = POINT_CHARS
    return "\n".join([
        "root ::= " + " ".join(f"line{i}" for i in range(1, count + 1)),
        *(f'line{i} ::= "[{i}] " point "\\n"' for i in range(1, count + 1)),
        f"point ::= pchar{{{lo},{hi}}}",
        r'pchar ::= [^\n|"<>\[\]]',
        "",
    ])


def restate_grammar() -> str:
    """GBNF of one note, bounded like a reworded note's point, that ends where its first sentence does: alone,
    the 1.5B model ran on after its note ("... based on the release. This is a significant update. It's
    important to,") to the bound, up to twice the tokens that were kept. A full stop inside a number or an
    abbreviation ("$2.50", "U.S.") goes on."""
    lo, hi = POINT_CHARS
    return "\n".join([
        f'root ::= pchar{{{lo},{hi}}} [.!?。]? "\\n"?',      # the model may end with its full stop
        r'pchar ::= [^\n|"<>\[\].!?。] | "." [0-9A-Za-z]',
        "",
    ])


_REWORD_LINE = re.compile(r"^\s*\[(\d{1,2})\]\s*(.+?)\s*$")


def parse_reworded(text: str) -> dict[int, str]:
    """Note text by sentence number from "[n] note" lines."""
    return {int(m.group(1)): m.group(2) for m in map(_REWORD_LINE.match, text.splitlines()) if m}


# The worked examples, given as an earlier exchange (a made-up meeting: nothing in any document).
REWORD_EXAMPLE_SENTENCES = ("[1] Marketing: I think we should move the launch to May, the supplier won't deliver "
                            "before.\n[2] Ben: Then the price stays at 25 euros, we agreed on that last week.")
REWORD_EXAMPLE_NOTES = ("[1] Marketing proposes moving the launch to May because the supplier is late\n"
                        "[2] Ben confirms the price stays at 25 euros, as agreed the week before")

# English prose in which nobody speaks by label and tells no story (a report, an earnings call) gets a report's
# example (``NotesLayout.genre``): shown the meeting above, the 1.5B model named its speakers in an earnings
# call's notes ("Ben invests in brands", refused as example_speaker) and handed the call's figure-laden sentences
# back. The report's example says a result and a guidance with every figure kept, reordered, without the report's
# "we". A story keeps the meeting's: with a story's own example (narration told in the present tense, a
# character's words as "The speaker ...") the development stories' copies refused doubled, and with the
# meeting's and a character's words added, their fact recall fell (docs/quality.md).
REPORT_EXAMPLE_SENTENCES = ("[1] Net sales for the quarter were $412 million, up 6% from a year ago, as demand for "
                            "our cordless drills stayed strong in Europe.\n[2] We now expect full-year adjusted "
                            "earnings of $2.10 to $2.25 per share, and we will close our oldest plant by March.")
REPORT_EXAMPLE_NOTES = ("[1] Strong European demand for cordless drills lifts quarterly net sales 6% to $412 million\n"
                        "[2] Full-year adjusted earnings guidance is now $2.10 to $2.25 per share; the oldest plant "
                        "shuts by March")

# The same exchange in Japanese, for Japanese documents: with the English one, the 1.5B model answered a
# Japanese project log's commit messages in English; with this one it answers in Japanese, and more
# briefly than the message when reminded (measured on the development project log, docs/quality-history.md).
REWORD_EXAMPLE_SENTENCES_JA = ("[1] 営業: 納品が間に合わないので、発売は 5 月に延ばしたほうがいいと思います。\n"
                               "[2] 田中: それなら価格は先週決めたとおり 25 ユーロのままです。")
REWORD_EXAMPLE_NOTES_JA = ("[1] 営業は納品遅れを理由に発売の 5 月延期を提案\n"
                           "[2] 田中は価格を先週の合意どおり 25 ユーロに据え置くと確認")
MERGE_SYSTEM = ("You merge pairs of short notes on a document into one short note each. You only write the "
                "numbered lines.")
MERGE_EXAMPLE_PAIRS = ("[1] Marketing proposes moving the launch to May / Marketing says the supplier cannot "
                       "deliver before May\n[2] Ben wants a rubber case for the remote / Ben prefers rubber because "
                       "titanium costs too much")
MERGE_EXAMPLE_NOTES = ("[1] Marketing proposes a May launch as the supplier cannot deliver earlier\n"
                       "[2] Ben prefers a rubber case, titanium being too expensive")
MERGE_EXAMPLE_PAIRS_JA = ("[1] 営業は発売の 5 月延期を提案 / 営業によると納品は 5 月まで間に合わない\n"
                          "[2] 田中はケースをゴムにしたい / 田中はチタンは高すぎるのでゴムがよいと言う")
MERGE_EXAMPLE_NOTES_JA = ("[1] 納品が間に合わないため営業が発売の 5 月延期を提案\n"
                          "[2] 田中はチタンが高いのでゴムのケースを希望")
EXAMPLE_NAMES = ("Marketing", "Ben", "営業", "田中")       # a note naming one the part lacks copied the example
RESTATE_RULES = ("Say what the sentence I send states, as one short note of at most 15 words in other words than "
                 "its own: who said, proposed, decided or reported what. Keep its names, numbers and dates exactly "
                 "as written; use only what it says.")
RESTATE_RULES_JA = ("送った文が述べていることを、文とは別の言葉で、短いメモ 1 行（40 字以内、体言止め）にすること。"
                    "名前・数字・日付はそのまま残し、文にないことは書かない。")
REWORD_REMINDER = "Say each one in other words than the sentence, shorter; keep its names and numbers."
REWORD_REMINDER_JA = "文をそのまま写さず、より短い別の言葉で（体言止めで）書くこと。名前と数字はそのまま残す。"


def worked_example(language: str | None, genre: str = "turns") -> tuple[str, str]:
    """The rewording's worked example, (sentences, notes): the Japanese meeting for Japanese notes, else the one
    of the document's ``genre``: "report" (prose in which nobody speaks), else "turns" (the meeting's: a
    transcript, a chat, a story)."""
    if is_japanese(language):
        return REWORD_EXAMPLE_SENTENCES_JA, REWORD_EXAMPLE_NOTES_JA
    if genre == "report":
        return REPORT_EXAMPLE_SENTENCES, REPORT_EXAMPLE_NOTES
    return REWORD_EXAMPLE_SENTENCES, REWORD_EXAMPLE_NOTES


def example_text(language: str | None, genre: str = "turns") -> str:
    """The worked example as one text, whose words a rewording may not take where its part lacks them
    (checks.grounding's example_leak); "" for Japanese, whose leak was not measured."""
    return "" if is_japanese(language) else "\n".join(worked_example(language, genre))


@dataclass(frozen=True)
class NotesLayout:
    preset: Preset
    date: str
    language: str | None = None
    genre: str = "turns"           # which worked example an English rewording is asked with (worked_example)

    def example(self) -> tuple[str, str]:
        return worked_example(self.language, self.genre)

    def example_text(self) -> str:
        return example_text(self.language, self.genre)

    def reword_messages(self, sentences: list[str], again: bool = False) -> list[dict]:
        """Code chose these sentences from a part; the model says what each one states, briefly.
        ``again``: the second ask, for the sentences whose rewording was refused, with a reminder."""
        japanese = is_japanese(self.language)
        example, answer = self.example()
        reminder = (REWORD_REMINDER_JA if japanese else REWORD_REMINDER) if again else ""
        numbered = "\n".join(f"[{i}] {sentence}" for i, sentence in enumerate(sentences, 1))
        rules = "\n".join([
            "[Rules]",
            "Each numbered sentence I send was taken from a document. Rewrite each one as a short note in your "
            "own words: who said, proposed, decided or reported what. Do not copy the sentence.",
            "Keep names, numbers and dates exactly as written. Use only what the sentence says.",
            "One line per sentence, numbered as the sentences are.",
            language_line(self.language).replace("summary", "notes"),
            "[End of rules]",
        ])
        return _numbered_exchange(REWORD_SYSTEM, rules, "sentences", "Notes", example, answer, numbered,
                                  len(sentences), reminder)

    def restate_messages(self, sentence: str) -> list[dict]:
        """One sentence, alone, said as a short note: the last ask for a sentence the numbered rewording
        handed back unchanged twice. Alone, with the first of the worked example's sentences as an earlier
        exchange, the 1.5B model said in other words the earnings-call sentences it had copied in both
        numbered asks ("We're aggressively pulling on all our margin levers to minimize the inflation-related
        profit lag during the first half." -> "We're reducing costs to minimize inflation-related profit
        losses in the first half.")."""
        japanese = is_japanese(self.language)
        examples, answers = self.example()
        example = examples.splitlines()[0].split("] ", 1)[1]
        answer = answers.splitlines()[0].split("] ", 1)[1]
        rules = "\n".join(["[Rules]", RESTATE_RULES_JA if japanese else RESTATE_RULES,
                           language_line(self.language).replace("summary", "note"), "[End of rules]"])
        return [{"role": "system", "content": RESTATE_SYSTEM},
                {"role": "user", "content": f"{rules}\n<sentence>\n{example}\n</sentence>\nNote:"},
                {"role": "assistant", "content": answer},
                {"role": "user", "content": f"<sentence>\n{as_data(sentence)}\n</sentence>\nNote:"}]

    def merge_messages(self, pairs: list[tuple[str, str]]) -> list[dict]:
        """Compaction: each pair of related notes said as one short note (engine.summary.compaction)."""
        japanese = is_japanese(self.language)
        example, answer = (MERGE_EXAMPLE_PAIRS_JA, MERGE_EXAMPLE_NOTES_JA) if japanese else (MERGE_EXAMPLE_PAIRS,
                                                                                                MERGE_EXAMPLE_NOTES)
        numbered = "\n".join(f"[{i}] {a} / {b}" for i, (a, b) in enumerate(pairs, 1))
        rules = "\n".join([
            "[Rules]",
            "Each numbered line holds two notes on one document, separated by ' / '. Say each line's two notes "
            "as one short note of at most 15 words, in other words than theirs: keep what both say, their names, "
            "numbers and dates exactly; say a name once; add nothing.",
            "One line per numbered line, numbered the same.",
            language_line(self.language).replace("summary", "notes"),
            "[End of rules]",
        ])
        return _numbered_exchange(MERGE_SYSTEM, rules, "pairs", "Merged notes", example, answer, numbered,
                                  len(pairs))

    def heading_reminder(self) -> str:
        """Said when a heading is asked again: what its checks hold it to."""
        return HEADING_REMINDER_JA if is_japanese(self.language) else HEADING_REMINDER

    def heading_messages(self, notes: list[tuple[int, str]], section: str = "", reminder: str = "") -> list[dict]:
        """A heading for a run of consecutive notes: what they are about, in a few words."""
        numbered = as_data("\n".join(f"[{i}] {point}" for i, point in notes))
        user = "\n".join([
            "[Rules]",
            "The numbered notes below were taken, in order, from one stretch of a document.",
            f"Write one '## ' heading of at most {HEADING_WORDS} words naming what these notes are about (the "
            "topic, the decision or the event they share). Use the notes' own words; no question, no comment.",
            language_line(self.language).replace("summary", "heading"),
            "[End of rules]",
            f"<notes{' ' + section if section else ''}>\n{numbered}\n</notes>",
            "Heading:" + (f"\n({reminder})" if reminder else ""),
        ])
        return [{"role": "system", "content": WRITING_SYSTEM}, {"role": "user", "content": user}]


def _numbered_exchange(system: str, rules: str, tag: str, label: str, example: str, answer: str, numbered: str,
                       count: int, reminder: str = "") -> list[dict]:
    """Rules with a worked example as an earlier exchange (inside the rules it was copied), then the numbered
    lines to answer "[1]" to "[count]"; the rules and the example stay in the reused prefix."""
    return [{"role": "system", "content": system},
            {"role": "user", "content": f"{rules}\n<{tag}>\n{example}\n</{tag}>\n{label}:"},
            {"role": "assistant", "content": answer},
            {"role": "user", "content": f"<{tag}>\n{as_data(numbered)}\n</{tag}>\n{label} ([1] to [{count}]):"
                                        + (f"\n({reminder})" if reminder else "")}]


HEADING_CHARS = (3, 80)
HEADING_REMINDER = "Use only words and numbers written in the notes: a few words naming their topic."
HEADING_REMINDER_JA = "メモに書かれた言葉と数字だけを使い、話題を短く名づけること。"
HEADING_WORDS = 6              # asked for; the 1.5B model often writes 10-12 (the grammar's bound cuts them)


def heading_grammar() -> str:
    """GBNF of one heading line: bounded, no brackets, markup or line breaks inside. Bounded in characters,
    not words: with words bounded, the model glued the words it had left ("Operating MarginImprovement");
    a heading cut at the bound loses its cut word (writing.heading_problems)."""
    lo, hi = HEADING_CHARS
    return "\n".join([
        'root ::= "## " hchar{%d,%d} "\\n"' % (lo, hi),
        r'hchar ::= [^\n#\[\]*<>|]',
        "",
    ])
