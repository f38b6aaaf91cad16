"""The writing pass: verified notes -> the summary, in sections of consecutive notes under a heading.

Each section is a run of a few consecutive notes; the model names what they are about in one short,
grammar-held heading (a short, local task), and the notes' own points are the section's bullets, each
citing its note, put in the preset's shape by code (engine.summary.summary_shape: the conversation
archive's layers, the minutes' "Action:" lines, a project log's added / changed / fixed). The summary
therefore says only what a verified quote shows, in the model's own words (every point is a checked
rewording of its quote, a checked merge of two (engine.summary.compaction), or, in a part where no
rewording passed, the sentence cleaned of fillers and marked "taken verbatim"), and every part that
gave notes is in it.

Why not prose merged from the notes: measured on the development meetings and story (docs/quality-history.md,
"Code chooses, the model rewords"), the 1.5B model's merged bullets kept less than the notes they
merged (fact recall 0.34 against the notes' 0.40 at the same length on one meeting; 0.08 against 0.28
on another, where it merged 15 notes into 5 bullets and added "actions" no one assigned). A heading it
cannot write (chat, another language, no word of its notes) is replaced by the people its notes are about,
and where they name no one, the section goes on under the heading before it (``JoinedSections``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from precis.engine.documents.spoken_text import SPEAKER_PREFIX
from precis.engine.events import CollapseDetected, RoundRepaired, RoundStarted
from precis.engine.planning.summary_length import NOTES_PER_SECTION
from precis.engine.prompts.layout import WORST_REMINDER
from precis.engine.prompts.notes import HEADING_CHARS, NotesLayout, heading_grammar
from precis.engine.summary.cast import names_met, speakers_of
from precis.engine.summary.checks import HEADING, heading_claim, judge
from precis.engine.summary.compaction import Bullet
from precis.engine.summary.evidence import Note
from precis.engine.summary.language import is_japanese
from precis.engine.summary.notes_extraction import first_sentence
from precis.engine.summary.scaffold import strip_scaffold
from precis.engine.summary.summary_shape import section_lines, todo_lines

HEADING_TOKENS = 40
_HEADING = re.compile(r"^\s*##\s+(.+?)\s*$")


@dataclass
class WrittenLine:
    text: str                  # without citation markers
    notes: list[int]           # ids of the notes it rests on; [] for headings

    def markdown(self) -> str:
        if not self.notes:
            return self.text
        return f"{self.text} [{', '.join(str(i) for i in self.notes)}]"


@dataclass
class Written:
    lines: list[WrittenLine] = field(default_factory=list)
    results: list = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    heading: str = ""          # "": none could be given, the notes go on under the section before


def section_text(heading: str, notes: list[Bullet], preset, language: str | None) -> list[WrittenLine]:
    """A section: its heading ("" for none) over its notes in the preset's shape; a section whose every note
    is a task for the closing TODO section keeps no heading of its own."""
    lines = [WrittenLine(line.text, line.notes) for line in section_lines(notes, preset, language)]
    return ([WrittenLine(f"## {heading}", [])] if lines and heading else []) + lines


class JoinedSections:
    """The summary's lines as its sections are written, a section with no heading of its own joined to the one
    before it (its notes put in the preset's shape together with that section's: one "### Done" layer, not
    two). The first section with none opens the summary unheaded.

    A heading that only names parts ("## パート 7〜12", "## Parts 4 to 7") told a reader nothing (issue 38: a
    reading problem); it stood where the model's heading failed its checks twice and the notes name no one
    code can read: a Japanese section (names are not read there) or an earnings call's."""

    def __init__(self, preset, language: str | None) -> None:
        self.preset, self.language = preset, language
        self.lines: list[WrittenLine] = []
        self._start, self._heading, self._notes = 0, "", []

    def add(self, written: Written, notes: list[Bullet]) -> None:
        if not written.heading and self._notes:
            self._notes = self._notes + list(notes)
            self.lines[self._start:] = section_text(self._heading, self._notes, self.preset, self.language)
            return
        self._start, self._heading, self._notes = len(self.lines), written.heading, list(notes)
        self.lines += written.lines


def closing_lines(bullets: list[Bullet], ctx, language: str | None) -> list[WrittenLine]:
    """What closes the summary in the preset's shape: the conversation archive's TODO section."""
    return [WrittenLine(line.text, line.notes) for line in todo_lines(bullets, ctx.layout.preset, language)]


NAMES_IN_HEADING = 3
# Capitalised words that recur and name no one: days, months, and a program's values in a chat's output ("None":
# a section of the bundled sample day was headed "Mika, None and Customers")
_NOT_WHO = set("""Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July
August September October November December None True False Null Error Warning""".split())
_LETTERED_SPEAKER = re.compile(r"\b(?:[A-Z][A-Za-z]+ )+[A-Z]\b(?![.'’\w])")      # "Grad B", "PhD D", "Professor C"


def names_heading(bullets: list[Bullet], language: str | None = None) -> str | None:
    """Who a section's notes are about, as its heading when the model's failed its checks twice, held by two
    notes or more, at most NAMES_IN_HEADING: the speakers of the notes' sentences first, as the document
    labels them ("## Industrial Designer and Marketing"), then the recurring names of the notes and their
    sentences (engine.summary.cast.names_met; "## Syme, Tate and Kal-Jmar"), a word of a longer name held as
    well left out, and a role's word ("Grad" of "Grad B") always. None where there are none, or in Japanese
    (whose names code does not read here). "## Part 4" told a reader nothing (issue 38: a heading that only
    names parts); the names say who the section is about and nothing its notes do not."""
    if is_japanese(language):
        return None
    each = ["\n".join([b.point] + [n.quote for n in b.notes]) for b in bullets]
    speakers = [name for name, _ in speakers_of("\n".join(n.quote for b in bullets for n in b.notes)).most_common()]
    # a turn inside a speaker's stretch carries no label; its note still names the speaker ("Grad B explains")
    lettered = list(dict.fromkeys(_LETTERED_SPEAKER.findall("\n".join(b.point for b in bullets))))
    recurring = names_met("\n".join(each))
    # "Grad" of "Grad B" is a role, never someone
    roles = {name.split()[0] for name in speakers + lettered if _LETTERED_SPEAKER.fullmatch(name)}

    def held(names: list[str]) -> list[str]:
        found = [name for name in names if name not in _NOT_WHO and name not in roles
                 and sum(bool(re.search(rf"\b{re.escape(name)}\b", t)) for t in each) >= 2]
        return [name for name in found if not any(name != n and name in n.split() for n in found)]
    # a label the model put on its own note ("PM: It's a pity ...") is not the document's name for anyone
    invented = set(speakers_of("\n".join(b.point for b in bullets))) - set(speakers)
    who = held(speakers)
    who += [name for name in held(lettered + recurring) if name not in invented and not any(name in s for s in who)]
    names = who[:NAMES_IN_HEADING]
    if not names:
        return None
    said = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"## {said}"


def _cjk(text: str) -> bool:
    return any(ord(c) > 0x3000 for c in text)


HEADING_SHOWN_CHARS = 56        # a heading's reading length: about the 6 words the prompt asks for
HEADING_LONGEST_CHARS = 72      # longer than that, a heading is cut where no phrase ends (the grammar's bound: 80)
# Where a heading's main phrase ends and a qualifier begins: "Design Suggestions | for Remote Control Protection".
# Not "of" or "to", which bind the phrase ("Evaluation | of the Prototype" leaves a bare "Evaluation").
_PHRASE_BREAK = re.compile(r"(?:: | - | – | \(|, "
                           r"| (?:and|for|in|with|on|at|from|by|during|including|based|vs\.?|versus) )", re.I)
_BOUND_PHRASE_BREAK = re.compile(r" (?:of|to) ", re.I)
_DANGLING = {"and", "or", "for", "in", "of", "to", "the", "a", "an", "with", "on", "at", "from", "by", "based", "vs",
             "versus"}


def shorter_heading(heading: str) -> str:
    """``heading`` within HEADING_SHOWN_CHARS, cut where its main phrase ends; where none ends there, within
    HEADING_LONGEST_CHARS, cut after a whole word only past that, never ending on a connecting word. Asked for
    at most 6 words, the 1.5B model writes 10-12 ("Location System Prototype Evaluation and Nickname Proposal
    for Remote Controls"): on a development meeting its three headings were 229 of the summary's 1,760
    characters. A Japanese heading: see ``_shorter_japanese_heading``."""
    if _cjk(heading):
        return _shorter_japanese_heading(heading)
    if len(heading) <= HEADING_SHOWN_CHARS or " " not in heading:
        return heading
    # where the main phrase ends within the reading length, else the first such end within the longest a
    # heading is shown, else the whole heading where it fits that, and only then at an "of" or "to" that binds
    # the phrase or after any word: a cut after any word within the reading length left "NOV's drilling
    # efficiency improvements drive operator" (of "... operator adoption and cost"), one at "to", "Captain
    # Farley reassures the crew that there is nothing"
    def cut(at: int) -> str:
        return " ".join(_without_dangling(heading[:at].split())).rstrip(" ,;:-–(") or heading

    def breaks(pattern: re.Pattern, limit: int) -> list[int]:
        return [m.start() for m in pattern.finditer(heading)
                if m.start() <= limit and len(heading[:m.start()].split()) >= 2]
    if loose := breaks(_PHRASE_BREAK, HEADING_SHOWN_CHARS):
        return cut(loose[-1])
    if loose := breaks(_PHRASE_BREAK, HEADING_LONGEST_CHARS):
        return cut(loose[0])
    if len(heading) <= HEADING_LONGEST_CHARS:
        return heading
    if bound := breaks(_BOUND_PHRASE_BREAK, HEADING_SHOWN_CHARS):
        return cut(bound[-1])
    words = heading[:HEADING_SHOWN_CHARS + 1].split()[:-1]
    return " ".join(_without_dangling(words)).rstrip(" ,;:-–(") or heading


def _without_dangling(words: list[str]) -> list[str]:
    """``words`` without the connecting words a cut left at their end ("... Concepts vs")."""
    while len(words) > 1 and words[-1].lower().rstrip(".") in _DANGLING:
        words = words[:-1]
    return words


JA_HEADING_SHOWN_CHARS = 28     # a Japanese character says about twice an English one's share of a phrase
_JA_PHRASE_BREAK = re.compile(r"[：:、，,（(・]")
# Qwen's Chinese "与" ("and") between two nouns of a Japanese heading ("更新与修正"), where Japanese says
# "と"; not the kanji of Japanese words (付与, 寄与, 関与, 与える, 与党)
_NOUN_END = r"[\u4e00-\u9fff\u30a0-\u30ffA-Za-z0-9]"
_CHINESE_AND = re.compile(rf"(?:(?<={_NOUN_END})|(?<={_NOUN_END} ))(?<![付授関寄贈給供貸参])与(?![えられ党件])")


def _shorter_japanese_heading(heading: str) -> str:
    """A Japanese heading with "と" for Qwen's Chinese "与" and "バージョン" for its "版本", cut where its
    main phrase ends when it is long ("装置の更新と修正：AV1 デコーダ追加、タイポ修正、..." -> "装置の更新と修正")."""
    heading = _CHINESE_AND.sub("と", heading)
    # Chinese "版本" ("version": "C++ 版本更新与 Boost 更新"); in Japanese a woodblock print, never a version
    heading = heading.replace("版本", "バージョン")
    if len(heading) <= JA_HEADING_SHOWN_CHARS:
        return heading
    # never inside a code span: "`/kitchen:order` でEpic Issueを作成するステップ" was cut to "`/kitchen"
    code = [m.span() for m in re.finditer(r"`[^`]*`", heading)]
    cut = next((m.start() for m in _JA_PHRASE_BREAK.finditer(heading)
                if m.start() >= 4 and not any(a < m.start() < b for a, b in code)), None)
    return heading[:cut].rstrip() if cut is not None and cut <= JA_HEADING_SHOWN_CHARS else heading


def heading_problems(reply: str, notes: list[Bullet] | list[Note], language: str | None) -> tuple[str, list[str]]:
    """The heading in ``reply`` and what is wrong with it (nothing: [])."""
    text, scaffold = strip_scaffold(reply)
    match = next((m for m in map(_HEADING.match, text.splitlines()) if m), None)
    if match is None:
        return "", ["no_heading"] + (["scaffold"] if scaffold else [])
    heading = first_sentence(match.group(1)).strip(" #*:.。")     # "... Analysis. This topic," runs on
    if len(match.group(1)) >= HEADING_CHARS[1] and " " in heading:
        heading = heading.rsplit(" ", 1)[0].rstrip(" ,;:-")    # cut by the grammar's bound: "... Industrial Envi"
    if heading != match.group(1).strip(" #*:.。"):
        heading = " ".join(_without_dangling(heading.split())).rstrip(" ,;:-")     # cut: never on "and", "vs"
    heading = shorter_heading(heading)
    claim = heading_claim(heading, tuple((n.point, n.quote) for n in notes), language)
    # the checks' names without "heading_": the round's flags are "heading_" + each problem
    return heading, [name.removeprefix("heading_") for name in judge(claim, HEADING).names]


def _headed(notes: list[Bullet]) -> list[tuple[int, str]]:
    """The notes as the heading call sees them: what was said, without who said it (shown "Industrial
    Designer: A scroll wheel needs the advanced chip", the bundled SmolLM2 headed the section by the name)."""
    return [(n.id, SPEAKER_PREFIX.sub("", n.point)) for n in notes]


def commit_days_heading(notes: list[Bullet], days: dict[int, str], language: str | None = None) -> str:
    """A git log's section headed by the days its commits span ("2021-12-25 〜 2021-12-30"), when every note
    of it is a commit subject whose Date the log gives (``days``: engine.documents.commit_log.commit_days);
    else "". On the development project log the model's headings named one commit of their seven ("FAQ.md
    更新" over Raspberry Pi OS, JetPack, libwebrtc and SDL changes); a changelog's sections are its
    releases or its dates, and the dates are the log's own."""
    found = [days.get(n.start_char) if n.origin == "subject" else None for b in notes for n in b.notes]
    if not found or None in found:
        return ""
    first, last = min(found), max(found)
    if first == last:
        return first
    return f"{first} 〜 {last}" if is_japanese(language) else f"{first} to {last}"


def write_group(ctx, index: int, notes: list[Bullet], section: str, total: int, language: str | None = None,
                days: dict[int, str] | None = None, heading: str = ""):
    """Generator for one section: its heading (one call, greedy; a git log's days, no call: see
    ``commit_days_heading``; ``heading`` where code has it, no call: an assembly's, engine.summary.exchanges),
    then its notes; returns Written. ``language``: the heading's (the one asked for, else the document's when
    Precis can name it)."""
    layout = NotesLayout(ctx.layout.preset, ctx.layout.date, language or ctx.layout.language)
    written = Written()
    yield RoundStarted(index, "write", -1, total, 0, sum(len(n.point) for n in notes), "", "", 1)
    if heading:
        written.flags.append("exchange_heading")
    elif heading := commit_days_heading(notes, days or {}, layout.language):
        written.flags.append("commit_days_heading")
    else:
        heading = yield from _model_heading(ctx, index, layout, notes, section, written)
    written.heading = heading
    written.lines = section_text(heading, notes, ctx.layout.preset, layout.language)
    return written


def _model_heading(ctx, index: int, layout: NotesLayout, notes: list[Bullet], section: str, written: Written):
    """Generator; returns the heading the model names the section by, asked once more with what was wrong
    when it fails its checks, else the people its notes are about, else "" (the section goes on under the
    one before: ``JoinedSections``). Its calls and flags go to ``written``."""
    result = yield from ctx.call(index, layout.heading_messages(_headed(notes), section),
                                 HEADING_TOKENS, replace(ctx.strict_sampling, grammar=heading_grammar()))
    written.results.append(result)
    heading, problems = heading_problems(result.reply, notes, layout.language)
    if problems:
        # once more with what was wrong: the first answer is often a fair heading with one slip, a year
        # the notes do not write or a word of none of them ("Fiscal Year 2021 Recap and Future Plans")
        ctx.check_cancel()
        written.flags += ["heading_" + p for p in problems]
        again = yield from ctx.call(index, layout.heading_messages(_headed(notes), section,
                                                                   layout.heading_reminder()),
                                    HEADING_TOKENS, replace(ctx.strict_sampling, grammar=heading_grammar()))
        written.results.append(again)
        retried, problems = heading_problems(again.reply, notes, layout.language)
        if not problems:
            heading = retried
            written.flags.append("heading_retried")
    if problems:
        yield CollapseDetected(index, problems, 0, len(result.reply), 1,
                               f"the section's heading failed its checks ({', '.join(problems)})")
        named = names_heading(notes, layout.language)
        if named:
            heading = named[3:]
            yield RoundRepaired(index, "names_heading", 0,
                                f"the section is headed by the names its notes hold: {heading}")
        else:
            heading = ""
            written.flags.append("heading_joined")
            yield RoundRepaired(index, "joined", 0, "its notes name no one code can read: the section has no "
                                                    "heading of its own and goes on under the one before it")
    return heading


def writing_groups(ctx, notes: list[Bullet]) -> list[list[Bullet]]:
    """Consecutive notes in sections of near-equal size, at most NOTES_PER_SECTION each (8, 8, 4 would leave a
    thin last section), as many more as it takes for every section's prompt to fit the context."""
    layout = NotesLayout(ctx.layout.preset, ctx.layout.date, ctx.layout.language)
    room = ctx.budget.n_ctx - HEADING_TOKENS - ctx.budget.margin

    def fits(group: list[Bullet]) -> bool:
        return ctx.renderer.count(ctx.renderer.render(layout.heading_messages(
            [(n.id, n.point) for n in group], "part 99 to 99", WORST_REMINDER))) <= room
    for count in range(-(-len(notes) // NOTES_PER_SECTION), len(notes) + 1):
        groups = balanced_groups(notes, count)
        if all(len(g) == 1 or fits(g) for g in groups):
            return groups
    return [[n] for n in notes]


def balanced_groups(items: list, count: int) -> list[list]:
    """``items`` in ``count`` consecutive groups whose sizes differ by at most one."""
    size, extra = divmod(len(items), count)
    groups, start = [], 0
    for i in range(count):
        end = start + size + (i < extra)
        groups.append(items[start:end])
        start = end
    return [g for g in groups if g]
