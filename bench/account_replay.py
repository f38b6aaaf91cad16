"""The hand-labelled account sentences judged again by today's checks, without a model.

    python -m bench.faithfulness_sample replay bench/labels/account-faithfulness.jsonl KEEP_DIR...

Each labelled line (bench/labels/account-faithfulness.jsonl) is found in a kept account run under one of the
KEEP_DIRs (any ``state.json`` below them: a ``bench.quality --keep`` folder, or a run's own folder) by its
document, its place in the account and its text. Its Claim is built again as the account builds it
(engine.summary.strategies.account ``_claim``): the part as the model was shown it (the run's chunk of the
development document, checked against the run's text hash), its alignment, the names met by the part's end, the
account's lines before it, the language, the preset's worked example and the part's topic words. Then every
ACCOUNT_LINE check judges it (a line told by the part's notes: NOTE_IN_ACCOUNT, as the account judged it).

Printed: per check and in all, the unfaithful lines caught and the faithful ones refused, per document; then
each refusal with its reason. A line whose run or document text is not found is counted apart, not judged.
The lines were all kept by the checks of their day, so a refusal here is a verdict today's checks changed.
"""
from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Replayed:
    row: dict
    checks: list[str]          # the checks that refuse it today
    reasons: list[str]
    same_references: bool      # linked today to the sentences the run linked it to (else the alignment changed)


@dataclass
class _Document:
    text: str
    state: dict
    name: str


def _kept_runs(keeps: list[Path]) -> list[dict]:
    """The account runs' states under ``keeps``, in a stable order."""
    found = []
    for keep in keeps:
        for path in sorted(keep.rglob("state.json")):
            state = json.loads(path.read_text(encoding="utf-8"))
            if state.get("strategy") == "account":
                found.append(state)
    return found


def _shown(name: str) -> str:
    """A labelled document's name as the report shows it: "qmsum__val__TS3009b", "claude_code_sessions_ja__04_..."."""
    return name.split(" (")[0].removesuffix(".txt")


def _key(name: str) -> str:
    """A document's name compared without underscores, "/", a label's note in brackets or its suffix: a bench
    run names qmsum/val/TS3009b "qmsum__val__TS3009b.txt", a label may add "(first 33,376 characters)"."""
    return name.split(" (")[0].rsplit(".txt", 1)[0].replace("_", "").replace("/", "")


def _document_text(info: dict) -> str | None:
    """The development document a run read, found by its text hash (a run may have read only its first
    characters: a chat day's first 33,376), or None."""
    from bench.quality import CORPUS
    for path in sorted(CORPUS.glob("*/*.json")):
        text = json.loads(path.read_text(encoding="utf-8"))["text"][:info["chars"]]
        if hashlib.sha256(text.encode("utf-8")).hexdigest() == info["text_sha256"]:
            return text
    return None


def _find(row: dict, runs: list[dict]) -> tuple[dict, str] | None:
    """The run and document name whose account has the labelled sentence at the labelled place; a document of
    the label's name first (a run may name its document otherwise: "chat04-first40k.txt")."""
    found = [(state, name) for state in runs for name, lines in state["evidence"].items()
             if 0 <= row.get("line", -1) < len(lines) and lines[row["line"]]["text"] == row["sentence"]
             and lines[row["line"]]["part"] == row["part"]]
    found.sort(key=lambda f: _key(f[1]) != _key(row["doc"]))
    return found[0] if found else None


class _Parts:
    """A document's parts as its run showed them, with what each line's Claim needs, built once per document."""

    def __init__(self, text: str, state: dict, name: str) -> None:
        from precis.engine.documents.document_kind import is_narrative
        from precis.engine.prompts.account import AccountLayout
        from precis.engine.prompts.presets import load_preset
        from precis.engine.summary.salience import DocumentWeights, prose_language
        from precis.engine.summary.shown_part import PartsShown
        self.text, self.state, self.name = text, state, name
        self.info = next(d for d in state["documents"] if d["name"] == name)
        layout = state.get("layout") or {}
        self.language = layout.get("language") or prose_language(text)
        preset = load_preset(layout.get("preset") or "generic")
        self.example = AccountLayout(preset, layout.get("date", ""), self.language, is_narrative(text)).example()[0]
        self.shown = PartsShown(text)
        self.weights = DocumentWeights(text)
        self._parts: dict[int, tuple] = {}

    def part(self, number: int):
        """(shown part, its PartIndex, names met, topic words) of part ``number`` (0-based)."""
        if number not in self._parts:
            from precis.engine.summary.alignment import PartIndex
            from precis.engine.summary.cast import names_met
            from precis.engine.summary.part_topics import topic_words
            start, end, sent_start = self.info["chunks"][number][:3]
            shown = self.shown.part(sent_start, end)
            names = names_met(self.text[:end])
            topics = topic_words(self.weights, self.weights.sentences_in(self.text[sent_start:end], sent_start),
                                 names)
            self._parts[number] = (shown, PartIndex(shown.text), names, topics)
        return self._parts[number]


def replayed(rows: list[dict], keeps: list[Path]) -> tuple[list[Replayed], list[tuple[dict, str]]]:
    """Each labelled row judged again; and the rows that could not be rebuilt, with why."""
    from precis.engine.summary.checks import ACCOUNT_LINE, NOTE_IN_ACCOUNT, Claim, judge
    from precis.engine.summary.strategies.account import _claim
    runs = _kept_runs(keeps)
    documents: dict[tuple[str, str], _Parts | None] = {}
    out, apart = [], []
    for row in rows:
        if row.get("faithful") is None:
            continue
        found = _find(row, runs)
        if found is None:
            apart.append((row, "no kept account run has this sentence at this place"))
            continue
        state, name = found
        key = (state["run_id"], name)
        if key not in documents:
            info = next(d for d in state["documents"] if d["name"] == name)
            text = _document_text(info)
            documents[key] = _Parts(text, state, name) if text is not None else None
        parts = documents[key]
        if parts is None:
            apart.append((row, "the run's document text is not in the development corpus (hash differs)"))
            continue
        shown, part_index, names, topics = parts.part(row["part"])
        lines = state["evidence"][name]
        said = [line["text"] for line in lines[:row["line"]]]
        if lines[row["line"]].get("from_notes"):
            _, end, sent_start = parts.info["chunks"][row["part"]][:3]
            part = parts.text[sent_start:end]
            claim, kind = Claim(row["sentence"], part, None, (), (), parts.language, ""), NOTE_IN_ACCOUNT
        else:
            claim = _claim(row["sentence"], shown, part_index, names, said, parts.language, parts.example, topics)
            kind = ACCOUNT_LINE
        verdict = judge(claim, kind)
        notes = {n["id"]: n["quote"] for n in state["notes"].get(name) or []}
        then = [notes.get(i) for i in lines[row["line"]]["notes"]]
        out.append(Replayed(row, verdict.names, [r.reason for r in verdict.refusals],
                            then == _quotes(claim, shown, parts.text)))
    return out, apart


def _quotes(claim, shown, text: str) -> list[str]:
    """The document's text of a claim's references, as the account's notes quote them."""
    if claim.alignment is None:
        return []
    return [text[shown.document_offset(s.start):shown.document_offset(s.end - 1) + 1].strip()
            for s in claim.alignment.references]


def counts(found: list[Replayed]) -> dict:
    """Per document and in all: lines, unfaithful ones caught, faithful ones refused; and per check the same
    (``alone``: the lines no other check refuses)."""
    def tally(some: list[Replayed]) -> dict:
        unfaithful = [r for r in some if not r.row["faithful"]]
        faithful = [r for r in some if r.row["faithful"]]
        return {"lines": len(some), "caught": f"{sum(bool(r.checks) for r in unfaithful)}/{len(unfaithful)}",
                "faithful_refused": f"{sum(bool(r.checks) for r in faithful)}/{len(faithful)}"}
    by_doc: dict[str, list[Replayed]] = defaultdict(list)
    for r in found:
        by_doc[_shown(r.row["doc"])].append(r)
    per_check: dict[str, dict] = {}
    for r in found:
        for name in r.checks:
            c = per_check.setdefault(name, {"caught": 0, "faithful_refused": 0, "alone": 0, "docs_caught": set()})
            c["faithful_refused" if r.row["faithful"] else "caught"] += 1
            c["alone"] += len(r.checks) == 1
            if not r.row["faithful"]:
                c["docs_caught"].add(_shown(r.row["doc"]))
    for c in per_check.values():
        c["docs_caught"] = len(c["docs_caught"])
    return {"all": tally(found), "by_doc": {d: tally(v) for d, v in by_doc.items()}, "by_check": per_check}


def report(found: list[Replayed], apart: list[tuple[dict, str]]) -> str:
    got = counts(found)
    a = got["all"]
    same = sum(r.same_references for r in found)
    lines = [f"all: {a['lines']} lines; unfaithful caught {a['caught']}; faithful refused {a['faithful_refused']}",
             f"linked to the sentences their run linked them to: {same}/{len(found)} (the others: the alignment "
             "has changed since their run)",
             "", f"{'document':44} {'lines':>5} {'caught':>8} {'faithful refused':>17}"]
    for doc, t in got["by_doc"].items():
        lines.append(f"{doc[:44]:44} {t['lines']:>5} {t['caught']:>8} {t['faithful_refused']:>17}")
    lines += ["", f"{'check':24} {'caught':>6} {'documents':>9} {'faithful refused':>17} {'alone':>5}"]
    for name, c in sorted(got["by_check"].items()):
        lines.append(f"{name:24} {c['caught']:>6} {c['docs_caught']:>9} {c['faithful_refused']:>17} {c['alone']:>5}")
    lines += ["", "refused today:"]
    for r in found:
        if r.checks:
            mark = "FAITHFUL " if r.row["faithful"] else "unfaithful"
            lines.append(f"  {mark} {_shown(r.row['doc'])[-12:]} [{r.row['line']}] {r.row['sentence'][:80]!r}")
            lines += [f"      {n}: {why[:110]}" for n, why in zip(r.checks, r.reasons)]
    if apart:
        lines += ["", f"not rebuilt, counted apart ({len(apart)}):"]
        lines += [f"  {_shown(r['doc'])[-12:]} [{r.get('line')}] {r['sentence'][:60]!r}: {why}" for r, why in apart]
    return "\n".join(lines)
