"""Would a meeting summary's sections match the meeting's topics better if cut where its words shift?

The notes strategy heads runs of consecutive notes, cut into sections of near-equal size (at most eight notes:
engine.summary.writing.writing_groups). The development meetings come with their topics as spans of turns
(QMSum's "topics"), so a cut can be scored against them without a model: a section is as pure as the share of
its notes that share its commonest topic, and a cut hits when the notes on either side of it are of different
topics. This probe places notes on a meeting's turns at random (as many as a summary holds), cuts them into the
same number of sections twice, near-equal (today's) and where the words shift most (TextTiling's lexical
cohesion: one minus the cosine of the content words of the text just before and just after each turn, sections
of 2 to 8 notes, the cuts chosen to maximise the shift at them), and reports both per meeting.

    python -m bench.topic_sections_probe [--notes 30] [--window-chars 4000] [--trials 20]

No model; seconds. docs/quality.md, "Sections cut where the words shift (a probe; not built)".
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import os
import random
import re
from pathlib import Path

from precis.engine.summary.evidence import content_words

# the development corpus, as bench/quality.py finds it
_DEV = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "dev"
CORPUS = Path(os.environ.get("PRECIS_CORPUS", _DEV)) / "qmsum"
NOTES_PER_SECTION = 8
MIN_NOTES_PER_SECTION = 2
_LABEL = re.compile(r"^[^:]{1,40}:\s")


def load(path: Path) -> tuple[str, list[str], dict[int, int]]:
    """A corpus meeting: its id, its turns (one a line) and the topic of each turn the topics cover."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    lines = [line for line in doc["text"].split("\n") if line.strip()]
    topic_of = {i: k for k, topic in enumerate(doc["topics"]) for a, b in topic["relevant_text_span"]
                for i in range(int(a), int(b) + 1)}
    return doc["id"], lines, topic_of


def _cosine(a: collections.Counter, b: collections.Counter) -> float:
    dot = sum(n * b[w] for w, n in a.items() if w in b)
    norm = math.sqrt(sum(n * n for n in a.values()) * sum(n * n for n in b.values()))
    return dot / norm if norm else 0.0


def shifts(lines: list[str], window_chars: int) -> list[float]:
    """By turn t: how far the words of about ``window_chars`` before turn t are from those from t on."""
    bags = [collections.Counter(content_words(_LABEL.sub("", line))) for line in lines]
    out = [0.0] * (len(lines) + 1)
    for t in range(1, len(lines)):
        before, after = collections.Counter(), collections.Counter()
        i, size = t, 0
        while i > 0 and size < window_chars:
            i -= 1
            size += len(lines[i])
            before.update(bags[i])
        i, size = t, 0
        while i < len(lines) and size < window_chars:
            size += len(lines[i])
            after.update(bags[i])
            i += 1
        out[t] = 1 - _cosine(before, after)
    return out


def gap_shifts(note_turns: list[int], by_turn: list[float]) -> list[float]:
    """Between each two consecutive notes: the largest shift at a turn after the first, up to the second."""
    return [max(by_turn[a + 1:b + 1], default=0.0) for a, b in zip(note_turns, note_turns[1:])]


def balanced(n: int, count: int) -> list[tuple[int, int]]:
    """Today's cut: ``count`` consecutive sections whose sizes differ by one at most, as (start, end)."""
    size, extra = divmod(n, count)
    out, start = [], 0
    for i in range(count):
        end = start + size + (i < extra)
        out.append((start, end))
        start = end
    return out


def cut_at_shifts(gaps: list[float], n: int, count: int, lo: int = MIN_NOTES_PER_SECTION,
                  hi: int = NOTES_PER_SECTION) -> list[tuple[int, int]]:
    """``count`` sections of ``lo``-``hi`` notes whose cuts (before note s: ``gaps[s - 1]``) shift the most."""
    worst = float("-inf")
    best = [[worst] * (n + 1) for _ in range(count + 1)]
    back = [[0] * (n + 1) for _ in range(count + 1)]
    best[0][0] = 0.0
    for g in range(1, count + 1):
        for end in range(1, n + 1):
            for start in range(max(0, end - hi), end - lo + 1):
                if best[g - 1][start] == worst:
                    continue
                value = best[g - 1][start] + (gaps[start - 1] if start else 0.0)
                if value > best[g][end]:
                    best[g][end], back[g][end] = value, start
    if best[count][n] == worst:
        return balanced(n, count)
    out, end = [], n
    for g in range(count, 0, -1):
        out.append((back[g][end], end))
        end = back[g][end]
    return out[::-1]


def purity(sections: list[tuple[int, int]], topics: list[int]) -> float:
    """The share of notes whose section's commonest topic is theirs."""
    return sum(collections.Counter(topics[s:e]).most_common(1)[0][1] for s, e in sections) / len(topics)


def hits(sections: list[tuple[int, int]], topics: list[int]) -> int:
    """The cuts with notes of two topics on either side."""
    return sum(topics[s - 1] != topics[s] for s, _ in sections[1:])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--notes", type=int, default=30, help="notes placed on a meeting (a summary holds 20-35)")
    p.add_argument("--window-chars", type=int, default=4000)
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--corpus", type=Path, default=CORPUS)
    args = p.parse_args(argv)
    rng = random.Random(1)
    total = collections.Counter()
    for path in sorted(args.corpus.glob("*.json")):
        name, lines, topic_of = load(path)
        by_turn = shifts(lines, args.window_chars)
        covered = [i for i in range(len(lines)) if i in topic_of]
        row = collections.Counter()
        for _ in range(args.trials):
            turns = sorted(rng.sample(covered, min(args.notes, len(covered))))
            topics = [topic_of[t] for t in turns]
            n = len(turns)
            count = -(-n // NOTES_PER_SECTION)
            today, shifted = balanced(n, count), cut_at_shifts(gap_shifts(turns, by_turn), n, count)
            row.update({"today": purity(today, topics), "shifted": purity(shifted, topics),
                        "today_hits": hits(today, topics), "shifted_hits": hits(shifted, topics),
                        "cuts": count - 1})
        total.update(row)
        print(f"{name:28s} purity {row['today'] / args.trials:.3f} -> {row['shifted'] / args.trials:.3f}   "
              f"cuts at a topic change {row['today_hits']} -> {row['shifted_hits']} of {row['cuts']}")
    meetings = len(list(args.corpus.glob("*.json")))
    print(f"{'all':28s} purity {total['today'] / (args.trials * meetings):.3f} -> "
          f"{total['shifted'] / (args.trials * meetings):.3f}   cuts at a topic change {total['today_hits']} -> "
          f"{total['shifted_hits']} of {total['cuts']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
