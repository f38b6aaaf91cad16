"""Facts taken from the source deterministically, kept outside the model's output.

From each chunk: amounts and numbers (with the word before them, to tell "changed" from "lost"),
dates, names and TODO items. At the end, each fact is checked against the final summary: kept,
changed (its label is there with another number) or lost. Matching ignores case, spaces and
thousands separators, so "$1,200" kept as "$1200" counts as kept.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass, field

from precis.engine.documents.spoken_text import SPEAKER_PREFIX, clean_utterance
from precis.engine.summary.evidence import content_words
from precis.engine.summary.task_sentences import task_sentences

_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
           "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{4}/\d{1,2}/\d{1,2}\b"
    rf"|\b(?:{_MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?\b|\b\d{{1,2}} (?:{_MONTHS})(?: \d{{4}})?\b"
    r"|(?:令和|平成|昭和)?[〇一二三四五六七八九十百千\d]+年[〇一二三四五六七八九十\d]+月(?:[〇一二三四五六七八九十\d]+日)?"
    r"|[〇一二三四五六七八九十\d]{1,3}月[〇一二三四五六七八九十\d]{1,3}日")
# A number starts where no digit, separator or Latin letter precedes it: "予算は1,200万円" is one amount
# (a word boundary there cut it to "200万円": kana are word characters, "は1" has no boundary).
# Full-width separators and signs ("３，０００円", "￥3,000") are Japanese text's own: without them the ledger
# kept "０００円" of "３，０００円" and "3,000" of "￥3,000" (issue 40).
_NUM_START = r"(?<![\d.,，．A-Za-z])"
_KANJI_DIGITS = "〇一二三四五六七八九十百千"
_AMOUNT = re.compile(
    r"(?:[$€£¥￥＄]|\b(?:EUR|USD|GBP|JPY|CHF)\s?)\d[\d,，]*(?:[.．]\d+)?"
    r"(?:\s?(?:million|billion|thousand|[kKmMbB]n?)\b)?"
    rf"|{_NUM_START}\d[\d,，]*(?:[.．]\d+)?\s?(?:%|％|percent\b|million\b|billion\b|億円|万円|円|ドル|件|人|名)"
    r"|(?<![\w.])\d[\d,]*\.\d+(?![\w.]*\d)|\b\d{1,3}(?:,\d{3})+\b|(?<![\w.#])\d{3,}(?![\w.]*\d)"
    rf"|[{_KANJI_DIGITS}][{_KANJI_DIGITS}万億兆]*(?:億円|万円|円|人|名|件|%)")
_NAME = re.compile(r"\b[A-Z][a-z]+(?: (?:[A-Z][a-z]+|de|van|von|da))+\b|（([^（）\s]{2,12}?)君）")
_SPEAKER = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?([A-Z][\w.'-]*(?: [A-Z][\w.'-]*)?)\s?:\s", re.M)
_WHEN = (r"(?i:(?:the )?(?:end|next|close|start|beginning|middle|morning|afternoon|evening|weekend|tomorrow|"
         r"tonight|today|noon|then|eod|cob|monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d+|"
         + _MONTHS + r"))\b")
# A Japanese task: a deadline or a person who does it, then a verb of doing in its polite present, which
# says what someone will do ("田中さんは金曜日までに請求書を送ります。", "来週までに報告書を提出します。"). A verb
# alone is no task: an assistant's "ファイルを確認します" in a chat says what it does now.
_JA_WHO_OR_WHEN = (r"(?:までに|明日|明後日|来週|今週中|週明け|月末|本日中|今日中|次回|"
                   r"[^\s。、！？]{1,10}(?:さん|君|くん|様|氏)(?:は|が)|担当)")
_JA_DOING = (r"(?:送り|送付し|提出し|作成し|確認し|対応し|連絡し|準備し|共有し|報告し|修正し|調査し|検討し|手配し|"
             r"予約し|用意し|返信し|まとめ|書き|作り|出し|進め|調べ|直し|届け)")
_JA_TASK = _JA_WHO_OR_WHEN + r"[^。！？\n]{0,60}?" + _JA_DOING + r"(?:ます|ておきます|てもらいます|てください)"
# "will ... by <when>" is a deadline; "NewCo will be led by an experienced team" (an earnings call's passive) is
# none, and became an "Action:" line of a development call's summary
_TODO = re.compile(r"^.*(?:\bTODO\b|\bFIXME\b|\baction item\b|\bAction:|- \[ \]|宿題|要対応"
                   r"|\bwill (?:\w+ ){0,6}by " + _WHEN + (
                   # "due" as a deadline ("due Friday", "the report is due"), never "due to" (because of: an
                   # earnings call's "due to the timing lag" became an "Action:" line) nor what is owed ("with
                   # all due respect", "we do our due diligence": a committee meeting's two "Action:" lines)
                   r"|\bowner\b.*\bdue\b|\bdue\b(?!\s+(?:to|diligence|respect|care|process|regard|consideration|"
                   r"attention)\b)"
                   # a task a meeting assigns: someone will / is going to <do something>, or "by next meeting"
                   r"|\b(?:I|we|you|he|she|they|[A-Z][a-z]+(?: [A-Z][a-z]+)?)(?:'ll| will| shall| (?:is|are|am) "
                   r"going to| (?:has|have|need) to)\s+(?:\w+\s+){0,2}?(?:send|write|prepare|check|look into|draft|"
                   r"finish|update|e-?mail|call|contact|review|present|work on|bring|find out|set up|organi[sz]e|"
                   r"schedule|share|put together|get back|circulate|investigate|test|fix|design|evaluate)\b"
                   r"|\b(?:by|before|for|until) (?:the )?next (?:meeting|week|session|time)\b"
                   r"|までに(?:対応|提出|確認|作成|送付)|対応する予定|担当する|" + _JA_TASK + r").*$"), re.M)
_NOT_NAMES = {"The", "This", "That", "And", "But", "So", "Okay", "Yes", "No", "Well", "Also", "Then", "Good",
              "Decision", "Decisions", "Subject", "Why", "Rollback", "Changed", "Note", "Notes", "Reminder",
              "Summary", "Result", "Answer", "Question", "Update", "Open", "Done", "Next", "Status", "Action",
              "Agenda", "Todo", "Fix", "Error", "Warning", "Info", "Test", "Tests", "Filesystem", "Coordinated"}


def _norm(text: str) -> str:
    """Full-width forms as their ASCII ("３，０００円" is "3,000円"), without spaces and thousands separators."""
    return re.sub(r"[\s,]", "", unicodedata.normalize("NFKC", text)).lower()


@dataclass
class Fact:
    kind: str          # "amount", "date", "name", "todo"
    text: str
    label: str = ""    # for amounts: the word before, to recognise a changed value
    first_round: int = 0
    status: str = ""   # "kept", "changed", "lost" once checked
    found_as: str = ""


@dataclass
class FactLedger:
    facts: list[Fact] = field(default_factory=list)
    _seen: set = field(default_factory=set)

    def add_chunk(self, text: str, round_index: int) -> list[Fact]:
        from precis.engine.summary.noise import substantive_text
        added = []
        for fact in extract_facts(substantive_text(text)):
            key = (fact.kind, _norm(fact.text))
            if key in self._seen:
                continue
            self._seen.add(key)
            fact.first_round = round_index
            self.facts.append(fact)
            added.append(fact)
        return added

    def check(self, summary: str) -> dict:
        """Mark every fact kept / changed / lost in ``summary``; return the counts."""
        flat = _norm(summary)
        for fact in self.facts:
            if fact.kind == "todo":
                continue  # TODO items are their own output; their words are rarely kept verbatim
            if _norm(fact.text) in flat:
                fact.status, fact.found_as = "kept", fact.text
                continue
            fact.status = "lost"
            if fact.kind == "amount" and fact.label:
                near = re.search(re.escape(fact.label) + r"\W{1,20}([$€£¥￥]?\s?\d[\d,.]*\s?%?)", summary, re.I)
                if near:
                    fact.status, fact.found_as = "changed", near.group(1).strip()
        counts = {s: sum(f.status == s for f in self.facts if f.kind != "todo") for s in ("kept", "changed", "lost")}
        return counts

    def todos(self) -> list[Fact]:
        return [f for f in self.facts if f.kind == "todo"]

    def as_list(self) -> list[dict]:
        return [asdict(f) for f in self.facts]


# What a task line says besides "someone will look into it later": a development meeting's TODO file held
# "Industrial Designer: No, we'll look we'll look into that later. Alright?" and "Project Manager: We're g No
# but we're we'll have to look into that." (the only two of the development documents' 90 such lines that
# name nothing to be done)
_VAGUE_TASK_WORDS = {"look", "into", "later", "alright", "sure", "thing", "things", "stuff", "get", "back", "see",
                     "then", "now", "today", "tomorrow", "next", "time", "need", "going", "gonna", "will", "have",
                     "mean", "know", "think", "yeah", "okay", "right", "well"}


def names_what(task: str) -> bool:
    """``task`` (a line ``is_task`` found) says what is to be done: a word of substance besides its
    speaker's label, contractions and ``_VAGUE_TASK_WORDS``; Japanese is not judged."""
    said = SPEAKER_PREFIX.sub("", task)
    return any(ord(c) > 0x3000 for c in said) or any(
        w not in _VAGUE_TASK_WORDS and "'" not in w for w in content_words(said))


# What a speaker will do in the talk itself is its agenda, no task: an earnings call's TODO file held
# "Regarding today's program, we will first review our fourth quarter ...", "Today we will provide an update
# on ..." and "In a moment, we'll share ...", a design meeting's "at the end we will evaluate ourself as a
# team"; and a debt that falls due is no deadline ("the remaining $183 million of our senior notes due in
# December 2022"). "Today" only where a clause opens with it: "I'll send the survey today, I think" is a task.
_THIS_TALK = re.compile(
    r"(?:^|(?<=[.!?:;,] ))today(?:'s (?:program|call|agenda|meeting|presentation))?,? (?:we|I)\b"
    r"|\b(?:we|I)(?:'ll| will| are going to| am going to) first\b"
    r"|\bin (?:just )?a (?:moment|minute|few minutes)\b"
    r"|\bat the end,? (?:we|I)\b"
    r"|\b(?:on|in|during) (?:this|today's) (?:call|program|presentation)\b", re.I | re.M)
_DEBT_DUE = re.compile(r"\b(?:notes|bonds|debentures|debt|loans?|maturities)\s+(?:\w+\s+)?due\b", re.I)


def is_task(text: str) -> bool:
    """Whether ``text`` assigns or records a task ("Mika will send the notice by Monday", 宿題)."""
    return bool(_TODO.search(_DEBT_DUE.sub("", text))) and not _THIS_TALK.search(text)


def extract_facts(text: str) -> list[Fact]:
    facts: list[Fact] = []
    for m in _DATE.finditer(text):
        facts.append(Fact("date", m.group(0)))
    date_spans = [m.span() for m in _DATE.finditer(text)]
    for m in _AMOUNT.finditer(text):
        if any(a <= m.start() < b for a, b in date_spans):
            continue
        value = m.group(0).strip()
        if re.fullmatch(r"\d{3,4}", value) and 1900 <= int(value) <= 2100:
            continue  # a bare year: dates carry it
        before = re.findall(r"[A-Za-z][A-Za-z-]{2,}", text[max(0, m.start() - 40):m.start()])
        facts.append(Fact("amount", value, label=before[-1] if before else ""))
    lowercase_words = set(re.findall(r"\b[a-z][a-z']+\b", text))
    names = {m.group(1) or m.group(0) for m in _NAME.finditer(text)} | set(_SPEAKER.findall(text))
    for name in sorted(n for n in names if n and _is_name(n, lowercase_words)):
        facts.append(Fact("name", name))
    for m in _TODO.finditer(text):
        for task in task_sentences(m.group(0), is_task, _NOT_NAMES):
            # as a reader wants it: a meeting's "is to to for slides and and how far" without its stutters
            line = clean_utterance(task).strip()
            if 8 <= len(line) <= 400 and names_what(line):
                facts.append(Fact("todo", line))
    return facts


# Words that start a capitalised pair without being part of a name: fillers ("Uh If", "Um Roo") and
# common words ("Yet Mars", "With Jacobs"), months and weekdays ("June").
_NOT_NAME_WORDS = {"uh", "um", "mm", "hmm", "erm", "oh", "ah", "yeah", "okay", "ok", "so", "and", "but", "or",
                   "yet", "with", "like", "if", "then", "when", "while", "after", "before", "as", "at", "in", "on",
                   "of", "for", "from", "to", "by", "the", "a", "an", "this", "that", "these", "those", "it", "we",
                   "i", "you", "he", "she", "they", "my", "our", "your", "his", "her", "their", "maybe", "well",
                   "now", "just", "right", "yes", "no", "not", "all", "some", "any", "what", "who", "how", "why",
                   "where", "which", "there", "here", "also", "still", "even", "only", "very", "is", "was", "are",
                   "were", "be", "do", "did", "does", "has", "have", "had", "will", "would", "can", "could",
                   "january", "february", "march", "april", "may", "june", "july", "august", "september",
                   "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
                   "saturday", "sunday"}


def _is_name(candidate: str, lowercase_words: set[str]) -> bool:
    """A capitalised pair is a name only if none of its words is a common word: not in the list above and
    not written in lowercase elsewhere in the text ("yet", "galaxy" are; "Stromberg" is not)."""
    words = candidate.split()
    if words[0] in _NOT_NAMES:
        return False
    if len(words) == 1 or not words[0].isascii():
        return True            # a speaker label, or a Japanese name from a 君 marker
    return not any(w.lower() in _NOT_NAME_WORDS or w.lower() in lowercase_words for w in words
                   if w not in ("de", "van", "von", "da"))


def figures_not_in(text: str, other: str) -> set[str]:
    """The amounts and dates of ``text`` (normalized) that ``other`` does not hold, matched as the ledger
    matches a summary's facts (``FactLedger.check``)."""
    flat = _norm(other)
    return {key for key in (_norm(f.text) for f in extract_facts(text) if f.kind in ("amount", "date"))
            if key not in flat}


def fact_keys(text: str) -> set[str]:
    """Normalized amounts, dates and names of a text (the guard compares two summaries with these)."""
    return {_norm(f.text) for f in extract_facts(text) if f.kind != "todo"}
