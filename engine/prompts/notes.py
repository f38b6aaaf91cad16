"""Prompts and output grammar of the evidence-linked notes strategy.

A notes round asks a small, local, well-shaped thing: what does this part say, one fact per line, each
with the words of the part that show it:

    - <the fact, in the model's own words> || "<the exact words from the part>"

The reply is held to that shape by a GBNF grammar (llama.cpp constrains sampling), so the model cannot
chat, echo tags or labels, or run on: every repeated class is bounded (an unbounded quote once let a
model copy the whole transcript into one line). The static part of the prompt (system, rules) comes
first and is the same every round, so llama.cpp's prefix reuse evaluates it once.

The writing pass heads each run of consecutive notes with a few words naming what they are about; the
notes themselves are the bullets under it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from precis.engine.prompts.layout import is_japanese, language_line
from precis.engine.prompts.presets import Preset

NOTE_SEPARATOR = " || "
POINT_CHARS = (8, 150)        # bounds of one note's point, characters
QUOTE_CHARS = (12, 150)       # bounds of one note's quote, characters (about 25 words at most)
NOTES_SYSTEM = ("You take precise notes on one part of a long document. You only write note lines in the "
                "required format, about facts stated in that part.")
REWORD_SYSTEM = ("You turn sentences quoted from a document into short notes in your own words. You only write "
                 "the numbered note lines.")
RESTATE_SYSTEM = "You restate one sentence quoted from a document as a short note in your own words."
WRITING_SYSTEM = "You name the topic of a few numbered notes in a short heading, in the notes' own words."


def notes_grammar(max_notes: int) -> str:
    """GBNF for 1..max_notes note lines; every repetition bounded."""
    lo, hi = POINT_CHARS
    qlo, qhi = QUOTE_CHARS
    return "\n".join([
        f"root ::= note{{1,{max_notes}}}",
        'note ::= "- " point " || \\"" quote "\\"\\n"',
        f'point ::= pchar{{{lo},{hi}}}',
        r'pchar ::= [^\n|"<>\[\]]',
        f'quote ::= qchar{{{qlo},{qhi}}}',
        r'qchar ::= [^\n"]',
        "",
    ])


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


_NOTE_LINE = re.compile(r'^\s*[-*]\s*(?P<point>.+?)\s*\|\|\s*"?(?P<quote>[^"\n]+?)"?\s*$')


def parse_note_lines(text: str) -> list[tuple[str, str]]:
    """(point, quote) of every well-formed note line; anything else is ignored."""
    notes = []
    for line in text.splitlines():
        m = _NOTE_LINE.match(line)
        if m and m.group("point").strip() and m.group("quote").strip():
            notes.append((m.group("point").strip(), m.group("quote").strip()))
    return notes


# The worked examples, given as an earlier exchange (a made-up meeting: nothing in any document).
NOTES_EXAMPLE_PART = ("Anna: I think we should move the launch to May, the supplier won't deliver before.\n"
                      "Ben: Okay. Then the price stays at 25 euros, we agreed on that last week.\n"
                      "Anna: Yes. Ben, can you tell the shop by Friday?")
NOTES_EXAMPLE_NOTES = (
    '- Anna wants the launch moved to May because the supplier is late || "I think we should move the launch '
    'to May, the supplier won\'t deliver before"\n'
    '- The price stays at 25 euros, as agreed the week before || "the price stays at 25 euros, we agreed on '
    'that last week"\n'
    '- Ben is to tell the shop by Friday || "Ben, can you tell the shop by Friday?"')
REWORD_EXAMPLE_SENTENCES = ("[1] Marketing: I think we should move the launch to May, the supplier won't deliver "
                            "before.\n[2] Ben: Then the price stays at 25 euros, we agreed on that last week.")
REWORD_EXAMPLE_NOTES = ("[1] Marketing proposes moving the launch to May because the supplier is late\n"
                        "[2] Ben confirms the price stays at 25 euros, as agreed the week before")
# The same exchange in Japanese, for Japanese documents: with the English one, the 1.5B model answered a
# Japanese project log's commit messages in English; with this one it answers in Japanese, and more
# briefly than the message when reminded (measured on the development project log, docs/quality.md).
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


@dataclass(frozen=True)
class NotesLayout:
    preset: Preset
    date: str
    language: str | None = None

    def _rules(self) -> str:
        return "\n".join([
            "[Rules]",
            f"Take notes on each part of a document I send. Note {self.preset.notes_focus}.",
            "One fact per line, in this exact form:",
            '- <the fact in a short sentence of your own words> || "<the exact words from the part that show it>"',
            "Write about what was said (who decided, proposed or reported what); never copy the dialogue lines.",
            "Copy the quoted words exactly as they are written in the part (at most 25 words).",
            "Only facts stated in that part. Keep names, numbers and dates exactly as written.",
            "Do not note greetings, small talk, agreement sounds (yeah, mm-hmm, okay), who speaks next or requests "
            "to go on: only substance.",
            language_line(self.language).replace("summary", "notes"),
            "[End of rules]",
        ])

    def notes_messages(self, part: str, part_number: int, total_parts: int, max_notes: int,
                       reminder: str = "") -> list[dict]:
        """The rules with a worked example as an earlier turn of the conversation, then the part.

        The example used to sit inside the rules, beside the part: the 1.5B model copied its quote into
        the notes of three of five development documents (verification dropped them, but each was a
        wasted note). As a finished exchange it reads as an example, not as text to take notes on. The
        rules and the example do not change from part to part, so they stay in the reused prefix.
        """
        user = (f"Part {part_number} of {total_parts}:\n<part>\n{part}\n</part>\n"
                f"At most {max_notes} lines.\nNotes on this part:" + (f"\n({reminder})" if reminder else ""))
        return [{"role": "system", "content": NOTES_SYSTEM},
                {"role": "user", "content": f"{self._rules()}\nAn example part:\n<part>\n{NOTES_EXAMPLE_PART}\n"
                                            "</part>\nNotes on the example:"},
                {"role": "assistant", "content": NOTES_EXAMPLE_NOTES},
                {"role": "user", "content": user}]

    def reword_messages(self, sentences: list[str], again: bool = False) -> list[dict]:
        """Code chose these sentences from a part; the model says what each one states, briefly.
        ``again``: the second ask, for the sentences whose rewording was refused, with a reminder."""
        japanese = is_japanese(self.language)
        example, answer = ((REWORD_EXAMPLE_SENTENCES_JA, REWORD_EXAMPLE_NOTES_JA) if japanese
                           else (REWORD_EXAMPLE_SENTENCES, REWORD_EXAMPLE_NOTES))
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
        examples, answers = ((REWORD_EXAMPLE_SENTENCES_JA, REWORD_EXAMPLE_NOTES_JA) if japanese
                             else (REWORD_EXAMPLE_SENTENCES, REWORD_EXAMPLE_NOTES))
        example = examples.splitlines()[0].split("] ", 1)[1]
        answer = answers.splitlines()[0].split("] ", 1)[1]
        rules = "\n".join(["[Rules]", RESTATE_RULES_JA if japanese else RESTATE_RULES,
                           language_line(self.language).replace("summary", "note"), "[End of rules]"])
        return [{"role": "system", "content": RESTATE_SYSTEM},
                {"role": "user", "content": f"{rules}\n<sentence>\n{example}\n</sentence>\nNote:"},
                {"role": "assistant", "content": answer},
                {"role": "user", "content": f"<sentence>\n{sentence}\n</sentence>\nNote:"}]

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
        numbered = "\n".join(f"[{i}] {point}" for i, point in notes)
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
            {"role": "user", "content": f"<{tag}>\n{numbered}\n</{tag}>\n{label} ([1] to [{count}]):"
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
