"""Cut a document into chunks that fit a token budget, at the document's own seams.

Preference of cut points (best first): section breaks and headings, speaker turns and chat
messages, timestamps, blank-line paragraphs, sentence ends, line ends; a run with none of these is
split by tokens as a last resort and flagged. Chunks concatenate back to the document exactly.
With overlap, each chunk is sent together with the tail of the one before it (whole segments, up to
``overlap_tokens``); its own span still starts where the previous one ended.

Cost: one tokenization pass over the whole document (token start offsets, so every line and
sentence is counted by bisection), then one exact pass over each chunk to verify; when the exact
count is over the budget (BPE merges across segment seams), the cut moves back to the next best
seam and that chunk is counted again. About two tokenization passes in all (bench/chunk_plan.py).
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Callable, Protocol

# Boundary classes, best first. The class of a segment is the kind of seam at its start.
# "line": a line break after a sentence end; "break": a line break inside a sentence (the source wraps
# there, as Japanese novels and hard-wrapped text do), used only when nothing better is in reach.
HEADING, SPEAKER, TIMESTAMP, PARAGRAPH, SENTENCE, LINE, BREAK, TOKEN = range(8)
BOUNDARY_NAMES = ["heading", "speaker", "timestamp", "paragraph", "sentence", "line", "break", "token"]
_TERMINATORS = tuple(".!?。！？\"'”」』)）:;")

_HEADING = re.compile(r"^(#{1,6}\s|={3,}|-{3,}\s*$|\*{3,}\s*$|_{3,}\s*$|Session\b|SESSION\b|第.{1,6}[章節回部])")
_SPEAKER = re.compile(r"^\s*(\[[^\]\n]{1,40}\]\s*)?[\w .'\-·()（）]{1,40}?(\s·\s\w+)?\s?(:\s|：)"
                      r"|^\s*\[(user|assistant|system|human|ai|tool\w*)\]"   # chat exports: [user], [tool_call]
                      r"|^[○◯◆◇●]")                                         # Japanese minutes: ○議長（…）
_TIMESTAMP = re.compile(r"^\s*[\[(]?(\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}(:\d{2})?|\d{4}/\d{1,2}/\d{1,2})")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"'”」』)]*\s+|(?<=[。！？])")
# A cut is only placed this far into the token window or later, unless nothing better exists:
# packing chunks well means fewer rounds and less re-reading of the summary.
MIN_FILL = 0.6
# A line or sentence up to this share of the budget stays whole (a long sentence is one segment);
# only longer runs are cut, at sentence ends, then by tokens. The rest is slack for BPE seams.
SEGMENT_SHARE = 0.9


class Tokenizer(Protocol):
    def count_tokens(self, text: str) -> int: ...
    def tokenize(self, text: str) -> list[int]: ...
    def detokenize(self, tokens: list[int]) -> str: ...


@dataclass(frozen=True)
class Chunk:
    index: int
    start_char: int
    end_char: int
    start_line: int
    end_line: int
    tokens: int            # tokens of the text the round sees: [overlap_start_char, end_char)
    boundary: str          # the kind of seam this chunk ends at ("end" for the last one)
    overlap_start_char: int = -1   # where the text sent to the model starts (-1: at start_char)

    @property
    def sent_start_char(self) -> int:
        return self.start_char if self.overlap_start_char < 0 else self.overlap_start_char

    @property
    def flagged(self) -> bool:
        return self.boundary == "token"


@dataclass(frozen=True)
class _Segment:
    start: int
    end: int
    tokens: int
    seam: int   # boundary class of the cut before this segment


def _line_class(line: str, previous_blank: bool, previous_ends_sentence: bool = True) -> int:
    if _HEADING.match(line):
        return HEADING
    if _SPEAKER.match(line):
        return SPEAKER
    if _TIMESTAMP.match(line):
        return TIMESTAMP
    if previous_blank or line.startswith(("\u3000", "「", "『")):  # a Japanese paragraph or dialogue line
        return PARAGRAPH
    return LINE if previous_ends_sentence else BREAK


class _SpanCounter:
    """Token counts of character spans. With a tokenizer that reports where each token starts, the
    document is tokenized once and every span is counted by bisection (tokens in the context of the
    whole document; chunks are then verified exactly on their own). Otherwise span by span."""

    def __init__(self, text: str, tok: Tokenizer) -> None:
        self.text, self.tok = text, tok
        starts = getattr(tok, "token_char_starts", None)
        self.starts: list[int] | None = starts(text) if starts is not None else None

    @property
    def total(self) -> int:
        return len(self.starts) if self.starts is not None else self.tok.count_tokens(self.text)

    def count(self, a: int, b: int) -> int:
        if self.starts is None:
            return self.tok.count_tokens(self.text[a:b])
        return bisect.bisect_left(self.starts, b) - bisect.bisect_left(self.starts, a)


def _segments(text: str, max_tokens: int, counter: _SpanCounter, sentence_tokens: int | None = None) -> list[_Segment]:
    """Lines as segments. A line over ``sentence_tokens`` is split at its sentence ends (so a long
    paragraph offers sentence seams, not only its line breaks); a sentence over ``max_tokens`` by tokens."""
    count = counter.count
    sentence_tokens = max_tokens if sentence_tokens is None else sentence_tokens
    out: list[_Segment] = []
    pos = 0
    previous_blank = True
    previous_ends = True
    for line in text.splitlines(keepends=True):
        start, end = pos, pos + len(line)
        pos = end
        seam = _line_class(line, previous_blank, previous_ends) if start else HEADING
        previous_blank = not line.strip()
        previous_ends = previous_blank or line.rstrip().endswith(_TERMINATORS)
        n = count(start, end)
        if n <= sentence_tokens:
            out.append(_Segment(start, end, n, seam))
            continue
        out.extend(_split_long_line(text, start, end, seam, max_tokens, counter))
    return out


def _split_long_line(text, start, end, seam, max_tokens, counter: _SpanCounter) -> list[_Segment]:
    """A line over the budget: cut at sentence ends; a sentence still over it, by tokens."""
    cuts = [start] + [start + m.end() for m in _SENTENCE_END.finditer(text[start:end]) if start + m.end() < end] + [end]
    out: list[_Segment] = []
    for i, (a, b) in enumerate(zip(cuts, cuts[1:])):
        piece_seam = seam if i == 0 else SENTENCE
        n = counter.count(a, b)
        if n <= max_tokens:
            out.append(_Segment(a, b, n, piece_seam))
        elif counter.starts is not None:
            out.extend(_split_at_token_starts(a, b, piece_seam, max_tokens, counter))
        else:
            out.extend(_split_by_tokens(text, a, b, piece_seam, max_tokens, counter.tok))
    return out


def _split_at_token_starts(a, b, seam, max_tokens, counter: _SpanCounter) -> list[_Segment]:
    """Last resort with known token positions: runs of ``max_tokens // 2`` tokens, cut where a token starts."""
    starts = counter.starts
    step = max(1, max_tokens // 2)
    out: list[_Segment] = []
    pos = a
    k = bisect.bisect_right(starts, a)
    while pos < b:
        k = min(k + step - 1, len(starts))
        while k < len(starts) and starts[k] <= pos:   # tokens inside one character share its start
            k += 1
        cut = min(b, starts[k]) if k < len(starts) else b
        out.append(_Segment(pos, cut, counter.count(pos, cut), seam if pos == a else TOKEN))
        pos = cut
    return out


def _split_by_tokens(text, a, b, seam, max_tokens, tok) -> list[_Segment]:
    """Last resort: runs of ``max_tokens // 2`` tokens, mapped back to exact character offsets."""
    count = tok.count_tokens
    out: list[_Segment] = []
    step = max(1, max_tokens // 2)
    pos = a
    while pos < b:
        # Tokenize a window, not the whole rest of the run: a 1 MB single line stays linear.
        window_end = min(b, pos + max(256, step * 32))
        ids = tok.tokenize(text[pos:window_end])
        if window_end == b and len(ids) <= step:
            out.append(_Segment(pos, b, count(text[pos:b]), seam if pos == a else TOKEN))
            break
        take = step if len(ids) > step else max(1, len(ids) - 1)  # the window's last token may be cut
        piece = tok.detokenize(ids[:take])
        # Detokenized text may differ from the source (spaces, control bytes, split UTF-8); cut at
        # the longest source prefix it matches, never past the run, and always advance.
        n_chars = min(b - pos, _common_prefix_len(text, pos, b, piece) or max(1, len(piece)))
        n = count(text[pos:pos + n_chars])
        while n > max_tokens and n_chars > 1:  # the fallback guessed too long: halve until it fits
            n_chars //= 2
            n = count(text[pos:pos + n_chars])
        out.append(_Segment(pos, pos + n_chars, n, seam if pos == a else TOKEN))
        pos += n_chars
    return out


def _common_prefix_len(text: str, pos: int, end: int, piece: str) -> int:
    n = 0
    for ch in piece:
        if pos + n >= end or text[pos + n] != ch:
            break
        n += 1
    return n


def _pack(segments: list[_Segment], budget: int, exact: Callable[[int, int], int],
          split: Callable[[_Segment], list[_Segment]]) -> list[tuple[int, int, int]]:
    """Greedy packing over segment indexes: (lo, hi, exact tokens) with segments [lo, hi) <= budget.

    Segment counts are summed to find the window, then the chunk is counted exactly; BPE merges
    across segment seams can make the whole longer than its parts, so the cut moves back to the
    next best seam until the exact count fits. A single segment (at most SEGMENT_SHARE of the
    budget) that still counts over it on its own is split by tokens in place (``segments`` changes).
    """
    ranges = []
    i = 0
    while i < len(segments):
        total, j = 0, i
        while j < len(segments) and total + segments[j].tokens <= budget:
            total += segments[j].tokens
            j += 1
        j = max(j, i + 1)
        if j < len(segments):
            j = _best_cut(segments, i, j, budget)
        n = exact(i, j)
        while n > budget and j > i + 1:
            j = _best_cut(segments, i, j - 1, budget)
            n = exact(i, j)
        if n > budget:
            segments[i:i + 1] = split(segments[i])
            continue
        ranges.append((i, j, n))
        i = j
    return ranges


def _best_cut(segments: list[_Segment], i: int, j: int, budget: int) -> int:
    """Among cut points i+1..j (before segment k), the best seam class, latest on ties, past MIN_FILL.
    When the window itself is shorter than MIN_FILL of the budget, every point in it qualifies."""
    best_k, best_key = j, None
    filled = 0
    for k in range(i + 1, j + 1):
        filled += segments[k - 1].tokens
        if filled < MIN_FILL * budget and k != j:
            continue
        seam = segments[k].seam if k < len(segments) else HEADING
        key = (seam, -k)
        if best_key is None or key < best_key:
            best_k, best_key = k, key
    return best_k


def chunk_document(text: str, tok: Tokenizer, chunk_budget: int, overlap_tokens: int = 0) -> list[Chunk]:
    """Chunks of ``text`` of at most ``chunk_budget`` tokens each (exact, by the tokenizer), overlap included."""
    return chunk_and_count(text, tok, chunk_budget, overlap_tokens)[0]


# Text longer than this is planned window by window (each cut at a line end): the whole-text token pass
# held every token's offset at once and took 2 GB and 84 s for a 60 MB log. A window boundary is a line
# seam like any other; overlap does not reach across it.
WINDOW_CHARS = 2_000_000


def chunk_and_count(text: str, tok: Tokenizer, chunk_budget: int, overlap_tokens: int = 0,
                    progress: Callable[[int, int], None] | None = None,
                    window_chars: int = WINDOW_CHARS) -> tuple[list[Chunk], int]:
    """The chunks, and the token count of the whole text (from the same tokenization pass when possible).
    ``progress(done_chars, total_chars)`` is called as windows of a long text are planned."""
    if chunk_budget - overlap_tokens < 16 or overlap_tokens < 0:
        raise ValueError(f"a chunk budget of {chunk_budget} tokens with {overlap_tokens} of overlap is too small "
                         "to hold any new text")
    if not text:
        return [], 0
    spans: list[tuple] = []
    total_tokens = 0
    for start, end in _windows(text, window_chars):
        piece = text[start:end]
        counter = _SpanCounter(piece, tok)
        spans += [(a + start, b + start, n, seam, sent + start)
                  for a, b, n, seam, sent in _chunk_spans(piece, tok, chunk_budget, overlap_tokens, counter)]
        total_tokens += counter.total
        if progress is not None:
            progress(end, len(text))
    line_starts = _line_index(text)
    chunks = []
    for idx, (a, b, n, seam, sent_from) in enumerate(spans):
        chunks.append(Chunk(idx, a, b, _line_of(line_starts, a), _line_of(line_starts, max(a, b - 1)), n,
                            "end" if b == len(text) else BOUNDARY_NAMES[seam],
                            sent_from if sent_from != a else -1))
    return chunks, total_tokens


def _windows(text: str, window_chars: int) -> list[tuple[int, int]]:
    out, start = [], 0
    while start < len(text):
        end = min(len(text), start + window_chars)
        if end < len(text):
            cut = text.rfind("\n", start + window_chars // 2, end)
            end = cut + 1 if cut >= 0 else end
        out.append((start, end))
        start = end
    return out


def _chunk_spans(text: str, tok: Tokenizer, budget: int, overlap: int, counter: _SpanCounter):
    own_budget = budget - overlap
    segments = _segments(text, max(8, int(own_budget * SEGMENT_SHARE)), counter, max(8, own_budget // 4))

    def split(seg: _Segment) -> list[_Segment]:
        half = max(8, own_budget // 2)
        if counter.starts is not None:
            return _split_at_token_starts(seg.start, seg.end, seg.seam, half, counter)
        return _split_by_tokens(text, seg.start, seg.end, seg.seam, half, tok)

    def exact(lo: int, hi: int) -> int:
        return tok.count_tokens(text[segments[lo].start:segments[hi - 1].end])

    spans = []
    for lo, hi, n in _pack(segments, own_budget, exact, split):
        seam = segments[hi].seam if hi < len(segments) else HEADING
        start, end, sent_from = segments[lo].start, segments[hi - 1].end, segments[lo].start
        if overlap and lo > 0:
            k, tail = lo, 0   # whole segments back from the cut, up to the overlap
            while k > 0 and tail + segments[k - 1].tokens <= overlap:
                k -= 1
                tail += segments[k].tokens
            while k < lo:     # BPE seams can add a token or two: give back segments until it fits
                n_sent = tok.count_tokens(text[segments[k].start:end])
                if n_sent <= budget:
                    sent_from, n = segments[k].start, n_sent
                    break
                k += 1
        spans.append((start, end, n, seam, sent_from))
    return spans


def _line_index(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


def _line_of(line_starts: list[int], char: int) -> int:
    return bisect.bisect_right(line_starts, char)  # 1-based line number
