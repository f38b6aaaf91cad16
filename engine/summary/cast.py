"""The names a document has given so far: who can open a line of the account.

The account's model is shown them with each part, and its lines may open only with one of them or a noun
phrase (engine.prompts.account), so it says "Maitland" and "Industrial Designer" where a line lifted from the
text says "he" or "I". Found by code: the speakers of a transcript's labels, and the capitalised words and
two-word names (not a usual first word; where a sentence starts, only a word the text never writes in lower
case) the text uses at least MIN_MENTIONS times, the most used first.

A chat transcript (``[user]`` / ``[assistant]`` / ``[tool_call]`` turns) is read apart (``Cast``): its actors
are the user and the assistant, and the people, products and projects they name in their own words. A tool's
call and output are no one's words: read as a transcript's labels, "[tool_call] Bash: {...}" made "Bash" its
most frequent speaker and "[tool_result] File created successfully at: ..." another, and a Japanese day's
account opened lines with "Readが", "AskUserQuestionが" and "File created successfully atが" (a development
run of claude_code_sessions_ja/04). Names are read from the people's words only, without inline code, paths,
Markdown labels ("**Summary**:") and the names of the tools the session called; a Japanese chat's people also
by the honorific after their names ("佐伯さん").
"""
from __future__ import annotations

import re
from collections import Counter

from precis.engine.documents.spoken_text import labels_are_timed, line_label, speaker_name, speaker_of
from precis.engine.prompts.account import ROLE_NAMES
from precis.engine.summary.shown_part import PartsShown

MIN_MENTIONS = 2
MAX_SPEAKERS = 12
MAX_NAMES = 16
_NOT_NAMES = set("""The A An And But Or If When Then So He She They It I You We His Her Their Its My Our Your This
That These Those There Here What Why How Who Where Yes No Not Oh Well Now Just Mr Mrs Ms Dr Okay Yeah Right Um Uh
After Before While As At In On Of For With From By To Meanwhile Later Finally First Next Also Both Each Every All
Some Any Maybe Perhaps Sure Thank Thanks Hello Hi Good Great Let Please Do Does Did Is Are Was Were Have Has Had
Can Could Would Should Will Shall May Might Must Don Didn Isn Wasn Aren Sorry Well Anyway Actually Alright However
Although Though Still Yet Instead Suddenly Again Even Only Never Always Once Soon Today Tomorrow Yesterday Because
Since Until Unless Whether Outside Inside Above Below Under Over Through During Without Within Across Behind Beyond
Besides Otherwise Indeed Certainly Probably Chapter Part Section Slide Page Table Figure Note""".split())
_SENTENCE_START = re.compile(r"(?:^|[.!?]['\"”’)]?\s+|\n\s*|[\"“‘(]\s*)([A-Z][a-z]+)")
# a hyphenated name is one name ("Kal-Jmar", a check-half story's city, was "Kal" and "Jmar")
_NAMES = (re.compile(r"\b[A-Z][a-z]{2,} [A-Z][a-z]{2,}\b"), re.compile(r"\b[A-Z][a-z]{2,}(?:-[A-Z][a-z]+)*\b"))

# "[tool_call] Bash: {...}", "[tool_use] Read(...)": the tool's name after the marker
_TOOL_NAME = re.compile(r"^\[(?:tool_call|tool_use)(?: [^\]\n]{1,40})?\] ?([A-Za-z_][\w.-]*)", re.M)
# Machine text inside the people's words: inline code, links, paths and dotted or called identifiers
# ("os.UserCacheDir()", "docs/specs/cache/scope.md"), and Markdown's labels and headings ("- **Summary**: ...",
# "### Scope"): a field's name, not someone who acts.
_MACHINE = re.compile(r"`[^`\n]*`|https?://\S+|[\w~-]*(?:[./\\][\w~-]+)+\S*|\w+\([^)\n]*\)"
                      r"|^\s*(?:[-*+]\s+|\d+\.\s+)?\*\*[^*\n]{1,60}\*\*\s*[:：]?|^#{1,6} [^\n]*", re.M)


# A person a Japanese chat names, by the honorific after the name: "佐伯さん", "田中氏" (katakana or kanji; not 様,
# the end of 仕様, nor 氏 in 氏名)
_JA_PERSON = re.compile(r"(?<![\u30a0-\u30ff\u4e00-\u9fff])[\u30a0-\u30ff\u4e00-\u9fff]{1,8}(?:さん|氏)"
                        r"(?![\u4e00-\u9fff])")
_NOT_PEOPLE = {"皆さん"}


def speakers_of(text: str) -> Counter:
    found: Counter = Counter()
    timed = labels_are_timed(text)
    for line in text.split("\n"):
        label = line_label(line, timed)
        if label:
            found[speaker_name(speaker_of(label.group(0)))] += 1
    return found


def names_met(text: str) -> list[str]:
    """The speakers (the most frequent first) and the recurring names of ``text``."""
    speakers = speakers_of(text)
    names = [s for s, c in speakers.most_common(MAX_SPEAKERS) if c >= MIN_MENTIONS and len(s) <= 60]
    return _recurring_names(text, names, set(speakers), MAX_SPEAKERS + MAX_NAMES)


def _recurring_names(text: str, names: list[str], skip: set[str], most: int) -> list[str]:
    """``names`` and after them the capitalised words and two-word names ``text`` uses MIN_MENTIONS times or
    more (the most used first, none of ``skip``), ``most`` in all."""
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    counts: Counter = Counter()
    lowercase = set(re.findall(r"\b[a-z][a-z']+\b", text))
    inside: set[int] = set()                 # where two-word names start words: no names alone there
    for pattern in _NAMES:                   # "Conagra Brands", and "Conagra" said alone
        for m in pattern.finditer(text):
            name = m.group(0)
            if " " not in name and m.start() in inside:
                continue
            if " " in name:
                inside |= {m.start(), m.start() + name.index(" ") + 1}
            if name.split()[0] in _NOT_NAMES or name in skip or any(w in skip for w in name.split()):
                continue
            # where a sentence starts, a capital says nothing, unless the word is never written in lower case
            # ("Maitland stirred ...": a story's hero is often named first in the sentence)
            if m.start() in starts and name.split()[0].lower() in lowercase:
                continue
            counts[name] += 1
    names = list(names)
    for name, c in counts.most_common():
        if c < MIN_MENTIONS or len(names) >= most:
            break
        if name not in names:
            names.append(name)
    return names


def tool_names(text: str) -> frozenset[str]:
    """The names of the tools a chat transcript's assistant called ("Bash", "Read", "AskUserQuestion")."""
    return frozenset(_TOOL_NAME.findall(text))


class Cast:
    """The names met by each point of one document, a chat transcript's read from its people's words."""

    def __init__(self, parts: PartsShown, japanese: bool = False) -> None:
        self.parts = parts
        self.japanese = japanese
        self.tools = tool_names(parts.document) if parts.spans is not None else frozenset()

    def met_by(self, end: int) -> list[str]:
        """The names of the document up to offset ``end``."""
        if self.parts.spans is None:
            return names_met(self.parts.document[:end])
        # both roles from the first part on: a session's first parts often hold the assistant's words only (the
        # user's first turn is a slash command, whose prompt is not the user's), yet the user is in the chat
        roles = list(dict.fromkeys(ROLE_NAMES[r][1 if self.japanese else 0] for r in ("user", "assistant")))
        said = _MACHINE.sub(" ", self.parts.spans.text_within(self.parts.document, 0, end))
        people = [p for p, c in Counter(_JA_PERSON.findall(said)).most_common()
                  if c >= MIN_MENTIONS and p not in _NOT_PEOPLE]
        return _recurring_names(said, roles + people[:MAX_SPEAKERS], set(self.tools),
                                MAX_NAMES + len(roles) + len(people[:MAX_SPEAKERS]))
