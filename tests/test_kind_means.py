"""bench/kind_means.py: the README's per-kind rows computed from results files, not by hand."""
from __future__ import annotations

import json

from bench.kind_means import kind_means, main


def _run(doc, kind, strategy, chars, seconds, recall=None, rouge1=None, answerability=None):
    return {"doc": doc, "kind": kind, "strategy": strategy, "chars": chars, "seconds": seconds,
            "fact_recall": recall, "rouge1": rouge1, "answerability": answerability}


def test_each_kind_is_averaged_per_strategy_answerability_only_where_measured():
    runs = [_run("s/1", "long_story", "notes", 1000, 100, 0.2, answerability=0.1),
            _run("s/2", "long_story", "notes", 2000, 200, 0.3),
            _run("c/1", "earnings_call_transcript", "notes", 1500, 50, rouge1=0.17),
            _run("s/1", "long_story", "plain", 900, 300, 0.1)]
    rows = {(r["kind"], r["strategy"]): r for r in kind_means(runs)}
    story = rows[("long_story", "notes")]
    assert (story["docs"], story["chars"], story["seconds"]) == (2, 1500, 300)
    assert abs(story["value"] - 0.25) < 1e-9 and story["measure"] == "fact recall"
    assert (story["answerability"], story["answered"]) == (0.1, 1)
    call = rows[("earnings_call_transcript", "notes")]
    assert (call["measure"], call["value"], call["answerability"]) == ("ROUGE-1", 0.17, None)
    assert [r["docs"] for r in kind_means(runs, ["s/2"])] == [1]


def test_a_later_file_replaces_an_earlier_run_of_the_same_document_and_strategy(tmp_path, capsys):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps({"runs": [_run("s/1", "long_story", "notes", 1000, 100, 0.2)]}), encoding="utf-8")
    new.write_text(json.dumps({"runs": [_run("s/1", "long_story", "notes", 3000, 120, 0.4)]}), encoding="utf-8")
    assert main([str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "| long_story | notes | 1 | 3,000 | 0.400 (fact recall) | – | 120 |" in out
