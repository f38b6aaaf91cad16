"""The notes strategy's checks replayed on every rewording, merge and heading the development runs left: the
verdicts of the checks as they stand, recorded or compared with a recorded file. No model is loaded.

Usage: python -m bench.verdict_replay --record FILE | --compare FILE

Written to move the checks into one registry (engine.summary.checks) without changing a verdict: the file
recorded before the move (at the commit that added this bench, with a verbatim copy of the old rewording
checks), compared after it, must match item for item. What is replayed:
- rewordings: every note a notes run of bench/results wrote (its bullets), each with the two sentences of its
  development document (../shared/corpora/dev) that hold most of its words (the realignment of a reply tries
  an answer on its neighbours' sentences too), in a window of the document around them as its part; every
  line of the kept account runs (/work/keep-*) with the sentences it was linked to; and every pair of
  strings of the checks' tests, both ways round;
- merges: each note with the next one of its summary, under a few merged texts (the pair side by side, one
  alone, the two joined), as a note's bullet and as a sentence of the account; the kept account runs'
  compaction replies with the pair each merged;
- headings: every heading of those summaries with the notes under it, as written and turned into a question.
The recorded file holds the items and their verdicts (corpus text: keep it out of the repository); --compare
replays its items, so a test changed since does not change what is compared.
"""
from __future__ import annotations

import argparse
import ast
import glob
import hashlib
import json
import re
import sys
from pathlib import Path

from bench.quality import CORPUS, ROOT

RESULTS = ROOT / "bench" / "results"
KEPT_RUNS = ROOT.parent.glob("keep-*")
TEST_FILES = [ROOT / "tests" / "engine" / "test_evidence.py", ROOT / "tests" / "engine" / "test_notes_strategy.py"]
PART_MARGIN_CHARS = 2500         # a replayed part: the sentence and this much of its document either side
_BULLET = re.compile(r"^- (?:Action — )?(.+?) \[(\d+(?:, \d+)*)\]$")


def _key(item: dict) -> str:
    return hashlib.sha1(json.dumps(item, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


class Document:
    """A development document's sentences as the notes strategy chooses them, to find a note's sentence."""

    def __init__(self, text: str) -> None:
        from precis.engine.summary.salience import DocumentWeights, prose_language
        self.text = text
        self.language = prose_language(text)
        self.sentences = DocumentWeights(text).sentences_in(text, 0)

    def holding(self, point: str, count: int = 2) -> list:
        """The ``count`` sentences that hold most of ``point``'s words and character pairs."""
        from precis.engine.summary.salience import units_of
        said = units_of(point)
        if not said:
            return []
        scored = sorted(((len(said & s.units) / len(said), -len(s.text), k) for k, s in enumerate(self.sentences)
                         if said & s.units), reverse=True)
        return [self.sentences[k] for _, _, k in scored[:count]]

    def part_around(self, start: int, end: int) -> str:
        a = self.text.rfind("\n", 0, max(0, start - PART_MARGIN_CHARS)) + 1
        b = self.text.find("\n", min(len(self.text), end + PART_MARGIN_CHARS))
        return self.text[a:b if b >= 0 else len(self.text)]


def _corpus_document(doc_id: str, cache: dict) -> Document | None:
    if doc_id not in cache:
        path = CORPUS / f"{doc_id}.json"
        cache[doc_id] = Document(json.loads(path.read_text(encoding="utf-8"))["text"]) if path.exists() else None
    return cache[doc_id]


def _summaries() -> list[tuple[str, str]]:
    """(corpus id, summary) of every run in bench/results whose summary has cited bullets."""
    found = []
    for path in sorted(glob.glob(str(RESULTS / "*.json"))):
        try:
            runs = json.loads(Path(path).read_text(encoding="utf-8")).get("runs")
        except (ValueError, AttributeError):
            continue
        for run in runs if isinstance(runs, list) else []:
            summary = run.get("summary") or ""
            if run.get("doc") and re.search(r"^- .+ \[\d+", summary, re.M):
                found.append((run["doc"], summary))
    return found


def _sections(summary: str) -> list[tuple[str, list[str]]]:
    """The summary's headings, each with the bullets' points under it ("" for bullets before any heading)."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in summary.splitlines():
        if line.startswith("## ") and not line.startswith("### "):
            sections.append((line[3:].strip(), []))
            continue
        m = _BULLET.match(line.strip())
        if m:
            sections[-1][1].append(m.group(1))
    return [s for s in sections if s[1]]


def collect() -> dict[str, list[dict]]:
    """Every item to replay, deduplicated, in a stable order."""
    from precis.engine.documents.spoken_text import SPEAKER_PREFIX
    rewordings: dict[str, dict] = {}
    merges: dict[str, dict] = {}
    headings: dict[str, dict] = {}

    def add(store: dict, item: dict) -> None:
        store.setdefault(_key(item), item)

    cache: dict = {}
    for doc_id, summary in _summaries():
        doc = _corpus_document(doc_id, cache)
        if doc is None:
            continue
        language = doc.language
        for heading, points in _sections(summary):
            notes = []
            for point in points:
                held = doc.holding(point)
                for sentence in held:
                    add(rewordings, {"point": point, "shown": sentence.shown(), "quote": sentence.text,
                                     "part": doc.part_around(sentence.start, sentence.start + len(sentence.text)),
                                     "language": language})
                notes.append({"point": point, "quote": held[0].text if held else point})
            for a, b in zip(notes, notes[1:]):
                joined = SPEAKER_PREFIX.sub("", a["point"])[:70] + " and " + SPEAKER_PREFIX.sub("", b["point"])[:60]
                for merged in (f"{a['point']} / {b['point']}", a["point"], f"{a['point']}, and {b['point']}", joined):
                    for whole in (False, True):
                        add(merges, {"merged": merged, "a": a, "b": b, "language": language, "whole_sentence": whole})
            if heading and notes:
                for reply in (f"## {heading}\n", f"## {heading}?\n", heading):
                    add(headings, {"reply": reply, "notes": notes, "language": language})
    for state_path in sorted(glob.glob(str(ROOT.parent / "keep-*" / "**" / "state.json"), recursive=True)):
        state = json.loads(Path(state_path).read_text(encoding="utf-8"))
        for name, notes in state.get("notes", {}).items():
            doc_id = re.sub(r"^([a-z_]+)__(val|dev)__(.+)\.txt$", r"\1/\2_\3", name)
            doc = _corpus_document(doc_id, cache)
            if doc is None:
                continue
            by_id = {n["id"]: n for n in notes}
            lines = state.get("evidence", {}).get(name, [])
            refused = [(r["text"], []) for rnd in state.get("rounds", []) for r in rnd.get("refused", [])]
            for text, ids in [(ln["text"], ln["notes"]) for ln in lines] + refused:
                quotes = [by_id[i]["quote"] for i in ids if i in by_id] or [s.text for s in doc.holding(text)]
                for quote in quotes[:3]:
                    at = doc.text.find(quote)
                    add(rewordings, {"point": text, "shown": quote, "quote": quote,
                                     "part": doc.part_around(max(0, at), max(0, at) + len(quote)),
                                     "language": doc.language})
            for rnd in state.get("rounds", []):
                if rnd["kind"] != "compaction":
                    continue
                before = re.findall(r"([^.\n][^\n]*?) \[(\d+(?:, \d+)*)\]\.?", rnd["summary_in"])
                pieces = [{"point": text.strip(), "quote": " ".join(by_id[int(i)]["quote"] for i in ids.split(", ")
                                                                    if int(i) in by_id)} for text, ids in before]
                for merged in re.findall(r"^\[\d+\] (.*)$", rnd["reply"], re.M):
                    from rapidfuzz import fuzz
                    if len(pieces) < 2:
                        break
                    k = max(range(len(pieces) - 1), key=lambda j: fuzz.ratio(
                        merged, pieces[j]["point"] + " " + pieces[j + 1]["point"]))
                    for whole in (False, True):
                        add(merges, {"merged": merged, "a": pieces[k], "b": pieces[k + 1], "language": doc.language,
                                     "whole_sentence": whole})
    for path in TEST_FILES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            strings = []
            if isinstance(node, ast.Tuple):
                strings = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            elif isinstance(node, ast.Call):
                strings = [e.value for e in node.args if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if len(strings) >= 2:
                for point, sentence in ((strings[0], strings[1]), (strings[1], strings[0])):
                    for language in (None, "Japanese"):
                        add(rewordings, {"point": point, "shown": sentence, "quote": sentence, "part": sentence,
                                         "language": language})
    return {"rewordings": list(rewordings.values()), "merges": list(merges.values()),
            "headings": list(headings.values())}


def rewording_verdict(item: dict) -> dict:
    """The notes strategy's verdict on one rewording: whether it passes, and the point it keeps (a proposal
    its sentence does not make said plainly), with the names of the checks that refused it."""
    from precis.engine.summary.notes_extraction import rewording_verdict as judged
    point, verdict = judged(item["point"], item["shown"], item["quote"], item["part"], item["language"])
    return {"passes": verdict.passed, "point": point, "checks": verdict.names}


def _note(piece: dict, i: int):
    from precis.engine.summary.evidence import Note
    return Note(i, piece["point"], piece["quote"], "d", 0, 0, len(piece["quote"]))


def merge_verdict(item: dict) -> dict:
    from precis.engine.summary.compaction import Bullet, merge_problems
    a, b = (Bullet(p["point"], (_note(p, i),)) for i, p in enumerate((item["a"], item["b"]), 1))
    return {"problems": sorted(merge_problems(item["merged"], a, b, item["language"], item["whole_sentence"]))}


# The merge checks' names before the registry, where they differ from the registry's
RENAMED = {"words_not_held": "unsupported", "name_not_in_part": "invented_name", "no_sentence_end": "cut_off"}


def same(kind: str, was: dict, now: dict) -> bool:
    """Whether two verdicts agree: a rewording's pass and kept point, a merge's problems (by their names before
    the registry), a heading's text and problems, in any order (the registry runs its checks in its order)."""
    if kind == "rewordings":
        return (was["passes"], was["point"]) == (now["passes"], now["point"])
    if kind == "merges":
        return sorted(was["problems"]) == sorted(RENAMED.get(p, p) for p in now["problems"])
    return was["heading"] == now["heading"] and sorted(was["problems"]) == sorted(now["problems"])


def heading_verdict(item: dict) -> dict:
    from precis.engine.summary.writing import heading_problems
    heading, problems = heading_problems(item["reply"], [_note(p, i) for i, p in enumerate(item["notes"], 1)],
                                         item["language"])
    return {"heading": heading, "problems": problems}


VERDICTS = {"rewordings": rewording_verdict, "merges": merge_verdict, "headings": heading_verdict}


def verdicts(items: dict[str, list[dict]]) -> dict[str, dict[str, dict]]:
    return {kind: {_key(item): VERDICTS[kind](item) for item in found} for kind, found in items.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", type=Path, help="write the items and the verdicts of the checks as they stand")
    mode.add_argument("--compare", type=Path, help="the recorded items through the checks as they stand, compared "
                                                   "with their recorded verdicts")
    args = p.parse_args(argv)
    recorded = json.loads(args.compare.read_text(encoding="utf-8")) if args.compare else None
    items = recorded["items"] if recorded else collect()     # the same items, whatever the tests hold now
    now = verdicts(items)
    for kind, found in now.items():
        refused = sum(not v.get("passes", not v.get("problems")) for v in found.values())
        print(f"{kind}: {len(found)} replayed, {refused} refused")
    if args.record:
        args.record.write_text(json.dumps({"items": items, "verdicts": now}, sort_keys=True, ensure_ascii=False)
                               + "\n", encoding="utf-8")
        return 0
    differ = 0
    for kind, found in recorded["verdicts"].items():
        changed = [k for k in found if not same(kind, found[k], now[kind][k])]
        print(f"{kind}: {len(found)} compared, {len(changed)} differ")
        for k in changed[:10]:
            item = next(i for i in items[kind] if _key(i) == k)
            print(f"  {json.dumps(item, ensure_ascii=False)[:300]}\n    was {found[k]}\n    now {now[kind][k]}")
        differ += len(changed)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
