"""A scripted stand-in for engine.runtime.llama.LlamaRuntime: deterministic, instant, and honest about
prefix reuse and max_tokens, so strategy logic can be tested fast. Never the only proof: the real
model runs end to end in tests/models/test_summarize_real.py and tests/gui/."""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from precis.engine.errors import Cancelled, ContextOverflow
from precis.engine.prompts.layout import CONTENT_CLOSE, CONTENT_OPEN, EMPTY_SUMMARY, SUMMARY_CLOSE, SUMMARY_OPEN
from precis.engine.runtime.protocol import CallStats
from precis.engine.runtime.settings import RuntimeSettings
from precis.engine.summary.noise import is_noise

_SPECIAL = re.compile(r"(<\|im_start\|>|<\|im_end\|>)")


@dataclass
class FakeCall:
    number: int              # 0-based count of model calls
    kind: str                # "round", "compaction", "merge", "reword", "restate", "merge_notes", "write",
    #                          "account" (a part: what happens in it), "account_again" (one line from a passage),
    #                          "reading" (a yes/no question: content the statement, summary its passage),
    #                          "who" (a lettered question: content the question and its choices, summary the story),
    #                          "voice" (whom a report's "we" is: content the question and its choices, summary the
    #                          passage)
    summary: str             # the existing summary the prompt carries ("" in the first round)
    content: str             # the new content (or the text to compact / merge)
    retry: bool              # the prompt carries a retry reminder
    prompt: str


_ACCOUNT_ASK = re.compile(r"\(\[1\] to \[(\d+)\]\):\s*$")
_FAKE_SENTENCE = re.compile(r"[^.!?\n]{25,}[.!?]")
_FAKE_NAME = re.compile(r"\b[A-Z][a-z]{2,}\b")


def account_lines(call: FakeCall) -> str:
    """What a diligent model says happens in a part: for each line asked, one of its sentences (evenly
    spread), its words after the first name in another order, opening with that name: in the part's words,
    not a copy of it."""
    count = int(_ACCOUNT_ASK.search(call.prompt.rsplit("<|im_end|>", 1)[0]).group(1))
    sentences = [re.sub(r"^.*?: ", "", s.strip()) for s in _FAKE_SENTENCE.findall(call.content)] or [call.content]
    out = []
    for i in range(1, count + 1):
        # asked again from a passage: its middle sentence, where the refused line's own sentences are
        at = len(sentences) // 2 if call.kind == "account_again" else (i - 1) * len(sentences) // count
        sentence = sentences[min(len(sentences) - 1, at)]
        name = next((m.group(0) for m in _FAKE_NAME.finditer(sentence)), "The team")
        words = [w.strip(",.;:!?") for w in sentence.split() if w.strip(",.;:!?") and w.strip(",.;:!?") != name]
        out.append(f"[{i}] {name} {' '.join(reversed(words[:12]))}.\n")
    return "".join(out)


def diligent(call: FakeCall) -> str:
    """Follows the rules: noise keeps the summary verbatim; otherwise adds a line per part. A rewording
    says its sentence's words in another order; the writing pass turns each note into a cited bullet; an
    account's part gets the lines asked for (``account_lines``)."""
    if call.kind in ("account", "account_again"):
        return account_lines(call)
    if call.kind == "reading":
        return "Yes"
    if call.kind in ("who", "voice"):  # undecided: every choice as likely, so no one is named
        return ""
    if call.kind == "reword":
        sentences = re.findall(r"^\[(\d+)\] (.+)$", call.content, re.M)
        return "".join(f'[{i}] {" ".join(reversed(re.findall(r"[^ ]+", re.sub(r"^.*?: ", "", s))[:12]))}\n'
                       for i, s in sentences)
    if call.kind == "restate":        # one sentence: its words in another order
        return " ".join(reversed(re.findall(r"[^ ]+", re.sub(r"^.*?: ", "", call.content))[:12])) + "\n"
    if call.kind == "merge_notes":     # the head of each note of the pair, joined: shorter, both said
        pairs = re.findall(r"^\[(\d+)\] (.+) / (.+)$", call.content, re.M)
        return "".join(f"[{i}] {' '.join(a.split()[:6])}; {' '.join(b.split()[:4])}\n" for i, a, b in pairs)
    if call.kind == "write":
        notes = re.findall(r"^\[(\d+)\] (.+)$", call.content, re.M)
        return "## Section\n" + "\n".join(f"- {point} [{i}]" for i, point in notes) + "\n"
    if call.kind == "compaction":
        return "\n".join(line[:60] for line in call.summary.splitlines())
    if call.kind == "merge":
        return "\n".join(call.content.split("\n\n"))
    if call.kind == "round" and is_noise(call.content):
        return call.summary
    lines = [ln.strip() for ln in call.content.splitlines() if ln.strip()][:2]
    return (call.summary + "\n" if call.summary else "") + "\n".join(f"- {ln[:120]}" for ln in lines)


@dataclass
class FakeRuntime:
    script: object = diligent
    n_ctx: int = 2048
    token_delay_s: float = 0.0
    prompt_token_delay_s: float = 0.0      # simulated prompt processing, per evaluated token
    path: Path | None = None
    settings: RuntimeSettings = field(default_factory=lambda: RuntimeSettings(n_ctx=2048))
    calls: list[FakeCall] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.last_call = CallStats()
        self._cached: list[int] = []
        self._vocab: dict[str, int] = {}
        self._pieces: list[str] = []

    # ----- tokens: one per 4 characters, template markers one each --------------------------
    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        ids = []
        parts = _SPECIAL.split(text) if special else [text]
        for part in parts:
            if special and _SPECIAL.fullmatch(part):
                ids.append(self._id(part))
                continue
            ids.extend(self._id(part[i:i + 4]) for i in range(0, len(part), 4))
        return ids

    def _id(self, piece: str) -> int:
        if piece not in self._vocab:
            self._vocab[piece] = len(self._pieces)
            self._pieces.append(piece)
        return self._vocab[piece]

    def count_tokens(self, text: str, *, special: bool = False) -> int:
        return len(self.tokenize(text, special=special))

    def detokenize(self, ids) -> str:
        return "".join(self._pieces[i] for i in ids)

    def token_char_starts(self, text: str) -> list[int]:
        return list(range(0, len(text), 4))

    def render_chat(self, messages: list[dict]) -> str:
        body = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
        return body + "<|im_start|>assistant\n"

    def close(self) -> None:
        pass

    # ----- generation -------------------------------------------------------------------------
    def stream(self, prompt: str, params, cancel=None):
        prompt_started = time.perf_counter()
        tokens = self.tokenize(prompt, special=True)
        stats = self._begin_call(tokens, params.max_tokens)
        if self.prompt_token_delay_s:
            time.sleep(self.prompt_token_delay_s * stats.evaluated_tokens)
        call = _parse(prompt, len(self.calls))
        self.calls.append(call)
        reply = self.script(call)
        ids = self.tokenize(reply)
        self._cached = tokens
        started = time.perf_counter()
        stats.prompt_seconds = started - prompt_started      # measured, as the real runtime does
        for n, token in enumerate(ids, 1):
            if cancel is not None and cancel.cancelled:
                stats.stopped_by = "cancelled"
                raise Cancelled("Stopped by the user.")
            if self.token_delay_s:
                time.sleep(self.token_delay_s)
            stats.generated_tokens = n
            self._cached = tokens + ids[:n]
            yield self._pieces[token]
            if n >= params.max_tokens:
                stats.hit_max_tokens, stats.stopped_by = True, "max_tokens"
                break
        else:
            stats.stopped_by = "eos"
        stats.generate_seconds = time.perf_counter() - started

    def _begin_call(self, tokens: list[int], reply_tokens: int) -> CallStats:
        """last_call's stats for a prompt of ``tokens``, its shared prefix with the cache reused (the last token
        always evaluated, as llama.cpp does); an overflow refused as the real runtime refuses it."""
        if len(tokens) + reply_tokens > self.n_ctx:
            raise ContextOverflow(f"fake: {len(tokens)} + {reply_tokens} > {self.n_ctx}")
        reused = 0
        for a, b in zip(self._cached, tokens):
            if a != b:
                break
            reused += 1
        reused = min(reused, len(tokens) - 1)
        self.last_call = CallStats(prompt_tokens=len(tokens), reused_tokens=reused,
                                   evaluated_tokens=len(tokens) - reused)
        return self.last_call

    def answer_logprobs(self, prompt: str, answers, cancel=None) -> dict[str, float]:
        """A yes/no question weighed: the script's reply is the answer made likely ("No" only when it says so,
        so a script written before the second reading reads every line as said)."""
        if cancel is not None and cancel.cancelled:
            raise Cancelled("Stopped by the user.")
        tokens = self.tokenize(prompt, special=True)
        self._begin_call(tokens, 1).stopped_by = "eos"
        call = _parse(prompt, len(self.calls))
        self.calls.append(call)
        reply = self.script(call).strip()
        # a lettered question ("A", "B" ...) takes the script's letter; a yes/no one, "No" only when said so
        said = reply if reply in answers and reply not in ("Yes", "No") else "No" if reply == "No" else "Yes"
        self._cached = tokens
        return {a: (-0.05 if a == said else -3.0) for a in answers}


def _between(text: str, start: str, end: str) -> str:
    return text.split(start + "\n", 1)[1].split("\n" + end, 1)[0]


def _parse(prompt: str, number: int) -> FakeCall:
    user = prompt.rsplit("<|im_start|>user\n", 1)[-1].split("<|im_end|>", 1)[0]   # the last turn: the task
    who = re.search(r"^Story:\n<<<\n(.*)\n>>>\n\n(In the last sentence, .*)", user, re.S)
    if who:                             # who a story's "he" is: the passage, and the question with its choices
        return FakeCall(number, "who", who.group(1), who.group(2), False, prompt)
    voice = re.search(r'^Text:\n<<<\n(.*)\n>>>\n\n(In this text, who is "we".*)', user, re.S)
    if voice:                           # whom a report's "we" stands for: the passage, the question with its choices
        return FakeCall(number, "voice", voice.group(1), voice.group(2), False, prompt)
    reading = re.search(r"^Text:\n<<<\n(.*)\n>>>\n\nStatement: (.*)\n\n", user, re.S)
    if reading:
        return FakeCall(number, "reading", reading.group(1), reading.group(2), False, prompt)
    part = re.search(r"<part( \d+ of \d+)?>\n(.*)\n</part>", user, re.S)
    if part:
        return FakeCall(number, "account" if part.group(1) else "account_again", "", part.group(2), False, prompt)
    if "\n<sentences>\n" in "\n" + user:
        asked_again = "\n(" in user.rsplit("</sentences>", 1)[1]        # the reminder, in any language
        return FakeCall(number, "reword", "", _between(user, "<sentences>", "</sentences>"), asked_again, prompt)
    if "\n<sentence>\n" in "\n" + user:
        return FakeCall(number, "restate", "", _between(user, "<sentence>", "</sentence>"), False, prompt)
    if "\n<pairs>\n" in "\n" + user:
        return FakeCall(number, "merge_notes", "", user.rsplit("<pairs>\n", 1)[1].split("\n</pairs>", 1)[0], False,
                        prompt)
    if "\n<notes" in user:
        body = user.split("\n<notes", 1)[1].split(">\n", 1)[1].split("\n</notes>", 1)[0]
        return FakeCall(number, "write", "", body, "(Merge the notes" in user, prompt)
    retry = "\n---\nReminder:" in user
    if retry:
        user = user[:user.index("\n---\nReminder:")]
    if "the summary above has grown too long" in user:
        return FakeCall(number, "compaction", _between(user, SUMMARY_OPEN, SUMMARY_CLOSE), "", retry, prompt)
    if "<partial_summary n=1>" in user:
        parts = re.findall(r"<partial_summary n=\d+>\n(.*?)\n</partial_summary>", user, re.S)
        return FakeCall(number, "merge", "", "\n\n".join(parts), retry, prompt)
    summary = _between(user, SUMMARY_OPEN, SUMMARY_CLOSE)
    content = _between(user, CONTENT_OPEN, CONTENT_CLOSE)
    # A map call looks like a first rolling round: both carry the empty-summary placeholder.
    return FakeCall(number, "round", "" if summary == EMPTY_SUMMARY else summary, content, retry, prompt)
