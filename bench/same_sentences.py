"""A change to how the notes ask, measured on the same sentences: each part's chosen sentences are recorded in
the base run and replayed in the changed one, so the two runs differ only in how those sentences were asked and
checked, and each sentence's two notes can be read side by side.

Why: a change to a prompt moves a part's notes, and through what they cover, which sentences every later part
chooses; compared whole, two summaries are two draws, and one meeting's faithful share moved by a fifth between
seeds of the same code (docs/quality.md, "How far one draw decides"). Prompt changes were judged that way, by
whole-summary numbers within the draw's noise ("The meeting's example moved away from the design meetings").

    python -m bench.same_sentences run --record CHOICE.json -- --docs ID ... --strategy notes --no-answers \\
        --tag base --keep DIR_A --no-table
    PYTHONPATH=<a work tree with the change> python -m bench.same_sentences run --replay CHOICE.json -- \\
        --docs ID ... --strategy notes --no-answers --tag changed --keep DIR_B --no-table
    python -m bench.same_sentences pairs DIR_A DIR_B OUT        # OUT/<doc>/items.json, document.txt; OUT.key.json
    # one blind reader a folder writes OUT/<doc>/labels.jsonl: {"id": 0, "faithful": true, "why": "..."}
    python -m bench.same_sentences tally OUT [--labels-out bench/labels/NAME.jsonl --commit C --by WHO]

``run`` passes everything after ``--`` to bench.quality, in this process. A part the record does not hold
(another document, another plan) is chosen as usual and said on stderr. Both runs are model processes: run
them alone, one after the other.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

CONTEXT_BEFORE_CHARS = 1500        # the document before a note's sentence, shown to its reader
CONTEXT_AFTER_CHARS = 400


def part_key(part: str) -> str:
    return hashlib.sha1(part.encode("utf-8")).hexdigest()


class ChoiceLog:
    """Each part's chosen sentences by their start in the part, recorded (``replaying`` False) or replayed."""

    def __init__(self, path: Path, replaying: bool) -> None:
        self.path, self.replaying = path, replaying
        self.starts: dict[str, list[int]] = json.loads(path.read_text(encoding="utf-8")) if replaying else {}
        self.unrecorded = 0

    def select(self, choose, part, weights, covered, budget_chars, max_sentences, candidates=None):
        """``choose`` (salience.select_sentences) as recorded: the recorded sentences where replaying a part the
        record holds, else ``choose``'s, recorded when recording."""
        key = part_key(part)
        if self.replaying and key in self.starts:
            pool = {s.start: s for s in (candidates or [])}
            missing = [start for start in self.starts[key] if start not in pool]
            if missing:
                raise ValueError(f"part {key[:12]}: no candidate sentence starts at {missing}: another plan?")
            chosen = [pool[start] for start in self.starts[key]]
            for sentence in chosen:           # as select_sentences leaves it: covered grows by what they hold
                covered |= sentence.units
            return chosen
        chosen = choose(part, weights, covered, budget_chars, max_sentences, candidates)
        if self.replaying:
            self.unrecorded += 1
            print(f"[same_sentences] part {key[:12]} not recorded: chosen afresh", file=sys.stderr)
        else:
            self.starts[key] = [s.start for s in chosen]
            self.path.write_text(json.dumps(self.starts), encoding="utf-8")
        return chosen


@contextlib.contextmanager
def choices(log: ChoiceLog):
    """The notes strategy chooses its sentences through ``log`` while inside."""
    from precis.engine.summary import notes_extraction
    choose = notes_extraction.select_sentences
    notes_extraction.select_sentences = lambda *a, **kw: log.select(choose, *a, **kw)
    try:
        yield log
    finally:
        notes_extraction.select_sentences = choose


def kept_runs(keep: Path) -> dict[str, tuple[str, list[dict]]]:
    """The notes runs in a --keep folder: by document, its text and its notes (faithfulness_sample.account_runs)."""
    from bench.faithfulness_sample import account_runs
    return {name: (text, list(notes.values())) for name, text, _, notes in account_runs(keep, "notes") if notes}


def _said(point: str) -> str:
    return " ".join(point.lower().rstrip(".").split())


def pairs(keep_a: Path, keep_b: Path, out: Path, seed: int = 73) -> dict[str, dict]:
    """Each sentence both runs noted, where the two notes differ, as two items of one shuffled list a blind reader
    labels (OUT/<doc>/items.json, with document.txt); the key to which is which in OUT.key.json. Returns per
    document how many notes each run kept, how many sentences both noted, and how many of those differ."""
    runs_a, runs_b = kept_runs(keep_a), kept_runs(keep_b)
    rng = random.Random(seed)
    key, counts = [], {}
    for doc in sorted(set(runs_a) & set(runs_b)):
        text, notes_a = runs_a[doc]
        a = {n["start_char"]: n for n in notes_a}
        b = {n["start_char"]: n for n in runs_b[doc][1]}
        both = sorted(set(a) & set(b))
        differ = [s for s in both if _said(a[s]["point"]) != _said(b[s]["point"])]
        counts[doc] = {"a": len(a), "b": len(b), "both": len(both), "differ": len(differ)}
        items = [(version, notes[start]) for start in differ for version, notes in (("A", a), ("B", b))]
        rng.shuffle(items)
        folder = out / doc.removesuffix(".txt")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "document.txt").write_text(text, encoding="utf-8")
        shown = []
        for i, (version, note) in enumerate(items):
            start, end = note["start_char"], note["end_char"]
            shown.append({"id": i, "document": doc, "line": note["point"], "quote": note["quote"],
                          "context": text[max(0, start - CONTEXT_BEFORE_CHARS):end + CONTEXT_AFTER_CHARS]})
            key.append({"doc": doc, "id": i, "version": version, "start_char": start, "line": note["point"],
                        "quote": note["quote"]})
        (folder / "items.json").write_text(json.dumps(shown, ensure_ascii=False, indent=1), encoding="utf-8")
    out.with_suffix(".key.json").write_text(json.dumps(key, ensure_ascii=False, indent=1), encoding="utf-8")
    return counts


def tally(out: Path) -> tuple[dict[str, dict[str, int]], list[dict]]:
    """The readers' labels joined to the key: per document the pairs, each run's faithful notes, and the pairs
    where the changed run's (B) is faithful and the base's (A) not ("better") or the other way ("worse"); and
    every labelled note with its pair and version. A document whose labels are missing is left out."""
    key = json.loads(out.with_suffix(".key.json").read_text(encoding="utf-8"))
    labels: dict[str, dict[int, dict]] = {}
    by_pair: dict[tuple[str, int], dict[str, dict]] = defaultdict(dict)
    for item in key:
        path = out / item["doc"].removesuffix(".txt") / "labels.jsonl"
        if item["doc"] not in labels:
            lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
            labels[item["doc"]] = {r["id"]: r for r in (json.loads(line) for line in lines if line.strip())}
        label = labels[item["doc"]].get(item["id"])
        if label is not None:
            by_pair[(item["doc"], item["start_char"])][item["version"]] = {**item, "faithful": bool(label["faithful"]),
                                                                          "why": label.get("why", "")}
    counts: dict[str, dict[str, int]] = {}
    rows = []
    for n, ((doc, _), versions) in enumerate(sorted(by_pair.items())):
        if set(versions) != {"A", "B"}:
            continue
        a, b = versions["A"]["faithful"], versions["B"]["faithful"]
        c = counts.setdefault(doc, {"pairs": 0, "A": 0, "B": 0, "better": 0, "worse": 0})
        c["pairs"] += 1
        c["A"] += a
        c["B"] += b
        c["better"] += b and not a
        c["worse"] += a and not b
        rows += [{**versions[v], "pair": n} for v in ("A", "B")]
    return counts, rows


def _run(argv: list[str], record: Path | None, replay: Path | None) -> int:
    from bench.quality import main as quality
    log = ChoiceLog(replay or record, replaying=replay is not None)
    with choices(log):
        code = quality(argv)
    if log.unrecorded:
        print(f"[same_sentences] {log.unrecorded} parts were not in the record", file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="bench.quality with each part's sentences recorded or replayed")
    how = run.add_mutually_exclusive_group(required=True)
    how.add_argument("--record", type=Path)
    how.add_argument("--replay", type=Path)
    pair = sub.add_parser("pairs", help="blind readers' folders of each sentence's two notes")
    pair.add_argument("keep_a", type=Path)
    pair.add_argument("keep_b", type=Path)
    pair.add_argument("out", type=Path)
    pair.add_argument("--seed", type=int, default=73)
    tal = sub.add_parser("tally", help="the readers' labels joined to the key")
    tal.add_argument("out", type=Path)
    tal.add_argument("--labels-out", type=Path)
    tal.add_argument("--commit", default="")
    tal.add_argument("--by", default="blind helper (one a document, both notes of each sentence, shuffled)")
    args = ap.parse_args(own)
    if args.command == "run":
        return _run(rest, args.record, args.replay)
    if args.command == "pairs":
        for doc, c in pairs(args.keep_a, args.keep_b, args.out, args.seed).items():
            print(f"{doc}: notes {c['a']} / {c['b']}, both noted {c['both']}, differ {c['differ']}")
        return 0
    counts, rows = tally(args.out)
    total = {k: sum(c[k] for c in counts.values()) for k in ("pairs", "A", "B", "better", "worse")}
    for doc, c in {**counts, "all": total}.items():
        print(f"{doc}: {c['pairs']} pairs, faithful A {c['A']}, B {c['B']}; B better {c['better']}, "
              f"worse {c['worse']}")
    if args.labels_out:
        with args.labels_out.open("w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps({"doc": r["doc"], "sentence": r["line"], "kept": True, "refused_by": [],
                                    "doubt": None, "from_notes": False, "part": None, "quotes": [r["quote"]],
                                    "faithful": r["faithful"], "why": r["why"], "version": r["version"],
                                    "pair": r["pair"], "commit": args.commit, "strategy": "notes",
                                    "labelled_by": args.by}, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
