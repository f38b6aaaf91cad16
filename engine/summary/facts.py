"""Facts taken from the source deterministically, kept outside the model's output.

From each chunk: amounts and numbers (with the word before them, to tell "changed" from "lost"),
dates, names and TODO items. At the end, each fact is checked against the final summary: kept,
changed (its label is there with another number) or lost. Matching ignores case, spaces and
thousands separators, so "$1,200" kept as "$1200" counts as kept.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
           "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{4}/\d{1,2}/\d{1,2}\b"
    rf"|\b(?:{_MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?\b|\b\d{{1,2}} (?:{_MONTHS})(?: \d{{4}})?\b"
    r"|(?:令和|平成|昭和)?[〇一二三四五六七八九十百千\d]+年[〇一二三四五六七八九十\d]+月(?:[〇一二三四五六七八九十\d]+日)?"
    r"|[〇一二三四五六七八九十\d]{1,3}月[〇一二三四五六七八九十\d]{1,3}日")
_AMOUNT = re.compile(
    r"(?:[$€£¥]|\b(?:EUR|USD|GBP|JPY|CHF)\s?)\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|thousand|[kKmMbB]n?)\b)?"
    r"|\b\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|million\b|billion\b|円|万円|億円|ドル|件|人|名)"
    r"|(?<![\w.])\d[\d,]*\.\d+(?![\w.]*\d)|\b\d{1,3}(?:,\d{3})+\b|(?<![\w.#])\d{3,}(?![\w.]*\d)"
    r"|[〇一二三四五六七八九十百千万億兆]+(?:円|億円|万円|人|名|件|%)")
_NAME = re.compile(r"\b[A-Z][a-z]+(?: (?:[A-Z][a-z]+|de|van|von|da))+\b|（([^（）\s]{2,12}?)君）")
_SPEAKER = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?([A-Z][\w.'-]*(?: [A-Z][\w.'-]*)?)\s?:\s", re.M)
_TODO = re.compile(r"^.*(?:\bTODO\b|\bFIXME\b|\baction item\b|\bAction:|- \[ \]|宿題|要対応|\bwill (?:\w+ ){0,6}by\b"
                   r"|\bowner\b.*\bdue\b|\bdue\b).*$", re.I | re.M)
_NOT_NAMES = {"The", "This", "That", "And", "But", "So", "Okay", "Yes", "No", "Well", "Also", "Then", "Good",
              "Decision", "Decisions", "Subject", "Why", "Rollback", "Changed", "Note", "Notes", "Reminder",
              "Summary", "Result", "Answer", "Question", "Update", "Open", "Done", "Next", "Status", "Action",
              "Agenda", "Todo", "Fix", "Error", "Warning", "Info", "Test", "Tests", "Filesystem", "Coordinated"}


def _norm(text: str) -> str:
    return re.sub(r"[\s,]", "", text).lower()


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
                near = re.search(re.escape(fact.label) + r"\W{1,20}([$€£¥]?\s?\d[\d,.]*\s?%?)", summary, re.I)
                if near:
                    fact.status, fact.found_as = "changed", near.group(1).strip()
        counts = {s: sum(f.status == s for f in self.facts if f.kind != "todo") for s in ("kept", "changed", "lost")}
        return counts

    def todos(self) -> list[Fact]:
        return [f for f in self.facts if f.kind == "todo"]

    def as_list(self) -> list[dict]:
        return [asdict(f) for f in self.facts]


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
    names = {m.group(1) or m.group(0) for m in _NAME.finditer(text)} | set(_SPEAKER.findall(text))
    for name in sorted(n for n in names if n and n.split()[0] not in _NOT_NAMES):
        facts.append(Fact("name", name))
    for m in _TODO.finditer(text):
        line = m.group(0).strip()
        if 8 <= len(line) <= 400:
            facts.append(Fact("todo", line))
    return facts


def fact_keys(text: str) -> set[str]:
    """Normalized amounts, dates and names of a text (the guard compares two summaries with these)."""
    return {_norm(f.text) for f in extract_facts(text) if f.kind != "todo"}
