"""bench/faithfulness_sample.py: sentences drawn from kept account runs with their quotes and context, and the
share of those a person labelled faithful."""
from __future__ import annotations

import json

import bench.quality
from bench.faithfulness_sample import draw, score


def _kept_run(keep, corpus, text: str, lines: list[dict], notes: list[dict]) -> None:
    (corpus / "qmsum").mkdir(parents=True)
    (corpus / "qmsum" / "val_X1.json").write_text(json.dumps({"text": text}), encoding="utf-8")
    run_dir = keep / "data" / "runs" / "2026-11-30-000000-abc"
    run_dir.mkdir(parents=True)
    name = "qmsum__val__X1.txt"              # as a bench run names it
    (run_dir / "2026-11-30-run.json").write_text(json.dumps({"strategy": "account", "documents": [{"name": name}]}),
                                                 encoding="utf-8")
    (run_dir / "state.json").write_text(json.dumps({"evidence": {name: lines}, "notes": {name: notes}}),
                                        encoding="utf-8")


def test_lines_are_drawn_over_the_whole_account_with_their_quotes_and_the_text_around_them(tmp_path, monkeypatch):
    text = " ".join(f"Sentence {i} says the budget is {i} euros." for i in range(200))
    notes, lines = [], []
    for i in range(20):
        quote = f"Sentence {i * 10} says the budget is {i * 10} euros."
        start = text.index(quote)
        notes.append({"id": i + 1, "quote": quote, "start_char": start, "end_char": start + len(quote)})
        lines.append({"text": f"The budget is {i * 10} euros.", "part": i // 5, "notes": [i + 1]})
    _kept_run(tmp_path / "keep", tmp_path / "corpus", text, lines, notes)
    monkeypatch.setattr(bench.quality, "CORPUS", tmp_path / "corpus")
    rows = draw(tmp_path / "keep", per_doc=4, seed=1)
    assert len(rows) == 4 and len({r["part"] for r in rows}) == 4          # spread over the account
    for r in rows:
        assert r["quotes"][0] in text and r["quotes"][0] in r["context"][0]
        assert len(r["context"][0]) > len(r["quotes"][0]) and r["faithful"] is None


def test_the_score_counts_only_labelled_sentences_and_lists_the_unfaithful_ones():
    rows = [{"doc": "a", "sentence": "s1", "faithful": True, "why": ""},
            {"doc": "a", "sentence": "s2", "faithful": False, "why": "who said it, swapped"},
            {"doc": "b", "sentence": "s3", "faithful": True, "why": "vague"},
            {"doc": "b", "sentence": "s4", "faithful": None, "why": ""}]
    got = score(rows)
    assert got["labelled"] == 3 and got["faithful_share"] == 0.667 and got["vague"] == 1
    assert got["by_doc"] == {"a": "1/2", "b": "1/1"} and got["unfaithful"][0]["sentence"] == "s2"
