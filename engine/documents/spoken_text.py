"""How a spoken or chat line reads: its speaker's label, its fillers and stutters, spelled letters, Markdown
marks and table pipes taken out (the verbatim text stays a note's quote), and how much of a transcript its
people said.

Document-level facts the plan needs before any model is loaded (the summary's length follows what a meeting
said: ``said_share``), and what the notes strategy shows and counts of a sentence (engine.summary.salience).
"""
from __future__ import annotations

import bisect
import re

from precis.engine.documents.commit_log import commit_subjects
from precis.engine.documents.transcript_turns import TURN_MARKER, prose_spans

# "Project Manager: ", and a parliament's "Ms. Jenny Kwan (Vancouver East, NDP): " or "The Chair (Hon. Anthony
# Rota (Nipissing, Lib.)): ": 51 of the 81 labels of a development committee meeting say who in brackets; a
# Japanese assembly's minutes say "知事（小池百合子君）：" (a role or a seat, the name, 君)
SPEAKER_PREFIX = re.compile(r"^\s*(?:\[[^\]]{1,20}\]\s*)?(?:[A-Z][\w.'-]*(?: [\w.'-]+){0,3}"
                            r"(?: \((?:[^()\n]|\([^()\n]*\)){1,80}\))?:\s+|[^\s：:（(]{1,30}（[^）\n]{1,20}君）：\s*)")
# ... at the start of any line of a text of several turns
LABEL_AT_LINE_START = re.compile(SPEAKER_PREFIX.pattern, re.M)
# A Japanese turn runs on over paragraphs, each opening with an ideographic space: still its speaker's
TURN_GOES_ON = "\u3000"
# ... and over a paragraph of Japanese prose that lost that space (one in the development minutes, in a
# member's question: the 200 lines after it were said by no one); a stage direction ("〔知事小池百合子君登壇〕")
# or any other line ends the turn
UNINDENTED_PROSE = re.compile(r"^[\u3040-\u30ff\u4e00-\u9fff][^\n]*。$")
TURN_JOINER = " / "             # between the turns of an exchange as shown and quoted: "A: ... / B: ..."


def is_exchange(text: str) -> bool:
    """``text`` is short turns joined by TURN_JOINER, a later one opening with its speaker's label."""
    return any(SPEAKER_PREFIX.match(turn) for turn in text.split(TURN_JOINER)[1:])


# A Japanese assembly's label names a member by seat ("百二十七番（和泉なおみ君）") or an official by role ("知事
# （小池百合子君）", "福祉保健局長（内藤淳君）"). Shown as written, the 1.5B model's notes named members by their seat
# alone ("六十三番は ...") and kept the minutes' honorific ("小池百合子君は ...", "内藤淳君: ..."); the members
# themselves say "和泉なおみ議員" and "知事", as the assembly's own summary of a sitting does.
_ASSEMBLY_LABEL = re.compile(r"^([^\s：:（(]{1,30})（([^）\n]{1,20})君）$")
_SEAT = re.compile(r"^[〇一二三四五六七八九十百千]+番$")
ASSEMBLY_MEMBER = "議員"


def speaker_of(label: str) -> str:
    """Who a label names: "Marketing"; a Japanese assembly's member by name, "和泉なおみ議員" (of
    "百二十七番（和泉なおみ君）"), and its officials by role, "知事" (of "知事（小池百合子君）")."""
    who = label.strip().rstrip(":：").strip()
    assembly = _ASSEMBLY_LABEL.match(who)
    if assembly:
        seat, name = assembly.groups()
        return name + ASSEMBLY_MEMBER if _SEAT.match(seat) else seat
    return who


def is_member(speaker: str) -> bool:
    """Whether ``speaker`` (as ``speaker_of`` names one) is a Japanese assembly's member: "和泉なおみ議員"."""
    return speaker.endswith(ASSEMBLY_MEMBER) and len(speaker) > len(ASSEMBLY_MEMBER)


_LINE_TIME = re.compile(r"^\[[^\]]*\]\s*")


# A transcript whose turns carry the time they were said ("[08:56] Orin: ...") labels every turn so: a line
# inside a turn that opens like a label is the turn going on, not a speaker (the sample day's "Rollback: with
# --link, once the new cluster has started, ..." in Orin's turn, shown as "said by Rollback"; the development
# chat sessions' "What:", "Warning:", "Untracked files:" among their timed "[..] Bash:" turns). A text's labels
# are timed when at least TIMED_LABELS_MIN of its label lines, and TIMED_LABELS_SHARE of them, carry a time.
TIMED_LABELS_MIN = 3
TIMED_LABELS_SHARE = 0.6


def labels_are_timed(text: str) -> bool:
    """Whether ``text``'s speaker labels carry the time of their line (``TIMED_LABELS_MIN``)."""
    timed = untimed = 0
    for line in text.split("\n"):
        label = SPEAKER_PREFIX.match(line)
        if label:
            if _LINE_TIME.match(label.group(0).lstrip()):
                timed += 1
            else:
                untimed += 1
    return timed >= TIMED_LABELS_MIN and timed >= TIMED_LABELS_SHARE * (timed + untimed)


def line_label(line: str, timed: bool) -> re.Match | None:
    """The speaker label ``line`` opens with, or None; in a text whose labels are timed (``labels_are_timed``),
    only a label with its time."""
    label = SPEAKER_PREFIX.match(line)
    if label is not None and timed and not _LINE_TIME.match(label.group(0).lstrip()):
        return None
    return label


def speaker_name(speaker: str) -> str:
    """A speaker without the time of the line it spoke on: "[08:45] Mika" -> "Mika" (the same person at
    every time)."""
    return _LINE_TIME.sub("", speaker)


def turn_speakers(text: str, speaker_at_start: str = "") -> dict[int, str]:
    """By the offset of each line that goes on with the turn above it (a Japanese paragraph under a labelled
    one, opening with ``TURN_GOES_ON``): the speaker of that turn. In the development minutes of the Tokyo
    assembly a governor's answer is a label line and 5-30 such paragraphs: without this, all but its first
    sentence were said by no one. ``speaker_at_start``: whose turn ``text`` starts inside (a part cut from a
    document: ``TurnIndex``); its first line goes on with that turn whatever it opens with."""
    speakers: dict[int, str] = {}
    speaker, at = speaker_at_start, 0
    timed = labels_are_timed(text)
    for line in text.split("\n"):                 # offsets as sentences_of finds a line's start: after "\n"
        label = line_label(line, timed)
        if label:
            speaker = speaker_of(label.group(0))
        elif (line.startswith(TURN_GOES_ON) or at == 0 or UNINDENTED_PROSE.match(line)) and speaker:
            speakers[at] = speaker
        elif line.strip():
            speaker = ""
        at += len(line) + 1
    return speakers


class TurnIndex:
    """Whose turn each point of a document is in, for its parts. A member's question in the development
    minutes of the Tokyo assembly runs over 20,000 characters, a dozen parts: read from the part alone, every
    part after its first was said by no one, and so were its notes."""

    def __init__(self, text: str) -> None:
        self.starts: list[int] = []               # where each run of lines of one speaker starts
        self.speakers: list[str] = []             # its speaker, "" for no one's lines
        going_on = turn_speakers(text)
        timed = labels_are_timed(text)
        at = 0
        for line in text.split("\n"):
            label = line_label(line, timed)
            who = speaker_of(label.group(0)) if label else going_on.get(at, "")
            if line.strip() and (not self.speakers or who != self.speakers[-1]):   # a blank line goes on
                self.starts.append(at)
                self.speakers.append(who)
            at += len(line) + 1

    def at(self, offset: int) -> str:
        """The speaker whose turn holds ``offset``, or ""."""
        i = bisect.bisect_right(self.starts, offset) - 1
        return self.speakers[i] if i >= 0 else ""


ASSEMBLY_SAMPLE_CHARS = 200_000    # a sitting's first speeches name its members: no need to read 60M characters
MIN_ASSEMBLY_MEMBERS = 2           # one member's question is no sitting to tell question by question


def is_assembly(text: str) -> bool:
    """Whether ``text`` is an assembly's minutes: MIN_ASSEMBLY_MEMBERS members or more speak in its first
    ASSEMBLY_SAMPLE_CHARS (its summary goes question by question: engine.summary.exchanges)."""
    members = {s for s in TurnIndex(text[:ASSEMBLY_SAMPLE_CHARS]).speakers if is_member(s)}
    return len(members) >= MIN_ASSEMBLY_MEMBERS


# The full stop of a title before a name ("Mr. Chair", "Hon. Patty Hajdu") ends no sentence: taken for one,
# a committee meeting's "Hon. Patty Hajdu: Mr. Chair, ..." was shown as "Patty Hajdu: Mr." and "Chair, ..."
_TITLES = ("Mr|Ms|Dr|St|Rt|Sr|Jr|Lt", "Mrs|Hon|Rev|Gen|Col|Sen|Rep|Gov|Sgt|Mme", "Prof|Capt|Mlle")   # by width
AFTER_TITLE = "(?:" + "|".join(rf"(?<=\b(?:{t})\.)" for t in _TITLES) + ")"        # just after "Mr."
TITLE_STOP = "(?:" + "|".join(rf"(?<=\b(?:{t}))" for t in _TITLES) + r")\.\s(?=[A-Z])"  # "Mr. " before a name
FILLER_ONLY = re.compile(r"^\W*(?:(?:um|uh|mm|hmm|yeah|okay|ok|right|so|and|but|i|you|we|the|a)\W+)*\W*$", re.I)


_DISFLUENCY = re.compile(r"\b(?:um+|uh+|erm|er|mm+-?hmm|mm+|hmm+|uh-huh|you know|i mean)\b[ ,.]*", re.I)
_REPEAT = re.compile(r"\b(\w+)(?: \1\b)+", re.I)


_SPELLED = re.compile(r"\b((?:[A-Z]_)+)(?!\w)")


def unspell(text: str) -> str:
    """Letters a transcript spells out, written the way meeting corpora (AMI, ICSI) mark them: "L_C_D_" is
    "LCD", "A_" is "A". Shown as spelled, the 1.5B model kept "L_C_D_" in its notes (names are kept as
    written), where a reader, and the human summaries, write "LCD"."""
    return _SPELLED.sub(lambda m: m.group(1).replace("_", ""), text)


_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")      # not "__": "__init__" is a name


_STRAY_BOLD = re.compile(r"^\s*\*\*\s+|\s+\*\*\s*$")


def unbold(text: str) -> str:
    """Markdown's bold marks out: an assistant's "**次のステップ**: ..." was a note's point, marks and all.
    A sentence that starts where a bold one ended ("**Epic #10 完了。** ロードマップ上の次は P3 です。" is two
    sentences) keeps the closing mark at its start: a stray mark at either end goes too."""
    return _STRAY_BOLD.sub("", _BOLD.sub(r"\1", text))


_TABLE_ROW = re.compile(r"^\s*\|(.+)\|\s*$")


def table_row_said(text: str) -> str:
    """A Markdown table's row as a line of text: its first cell, then the others ("| npm 2回目 (HIT) |
    **0.026s** | キャッシュから即応答 |" is "npm 2回目 (HIT): **0.026s**、キャッシュから即応答"). An assistant's
    tables hold what it measured and decided; taken verbatim, a row stood in a summary pipes and all."""
    m = _TABLE_ROW.match(text)
    if m is None:
        return text
    cells = [cell.strip() for cell in m.group(1).split("|") if cell.strip()]
    joiner = "、" if any(ord(c) > 0x3000 for c in text) else ", "
    return f"{cells[0]}: {joiner.join(cells[1:])}" if len(cells) > 1 else "".join(cells)


def clean_utterance(sentence: str) -> str:
    """A spoken sentence as a reader wants it: fillers and stutters out, spelled letters joined, Markdown's
    bold marks out, a table's row said as a line, transcript spacing tidied (the verbatim sentence stays
    the note's quote)."""
    text = _DISFLUENCY.sub("", unbold(unspell(table_row_said(sentence))))
    text = _REPEAT.sub(r"\1", text)
    text = re.sub(r"\s+([,.?!])", r"\1", re.sub(r"\s{2,}", " ", text))
    return re.sub(r"([,.]){2,}", r"\1", text).strip(" ,")


def said_alone(sentence: str) -> str:
    """A transcript's sentence without its speaker label and fillers: what a reader reads of it ("" for a
    label alone)."""
    return clean_utterance(SPEAKER_PREFIX.sub("", sentence + " ").strip())


# A meeting transcript's length overstates what it says: its speaker labels and fillers ("Project Manager:
# Mm-hmm . Okay .") are 35% and 46% of the two quick-set meetings' characters (17-37% of the other
# development meetings'), nothing of a story or an earnings call. A summary's length follows what was said
# (engine.planning.summary_length).
LABELLED_LINES_SHARE = 0.5       # a transcript: at least half its lines open with a speaker's label
MIN_TRANSCRIPT_LINES = 10


def said_share(text: str) -> float:
    """The share of a speaker-labelled transcript's characters that its people said: without the labels,
    fillers and stutters (``said_alone``), nor the turns that only say "Okay." or "Yeah.". 1.0 for any other
    text: prose, a chat transcript (its tool output is left out of its notes, not of its length), a git log."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    labelled = sum(1 for ln in lines if SPEAKER_PREFIX.match(ln))
    if len(lines) < MIN_TRANSCRIPT_LINES or labelled < LABELLED_LINES_SHARE * len(lines) \
            or TURN_MARKER.search(text) and prose_spans(text) is not None or commit_subjects(text):
        return 1.0
    said = sum(len(s) for s in map(said_alone, lines) if not FILLER_ONLY.match(s))
    return min(1.0, said / max(1, sum(len(ln.strip()) for ln in lines)))
