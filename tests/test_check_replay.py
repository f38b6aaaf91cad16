"""bench/check_replay.py: the hand-labelled rewordings through the named checks, per check its refusals and the
fair ones among them, and the unfair notes no check catches."""
from __future__ import annotations

import json

import bench.check_replay
from bench.check_replay import LABELS, judged, load_rows, markdown, summary, table


def test_the_committed_labels_are_whole_rows_in_both_languages():
    rows = load_rows(LABELS)
    assert len(rows) >= 120 and {r["lang"] for r in rows} == {"en", "ja"}
    for row in rows:
        assert isinstance(row["fair"], bool) and row["why"] and row["rewording"], row
        assert row["quote"] and row["sentence"] and len(row["part"]) == 2 and row["part"][0] < row["part"][1], row
        assert row["language"] in (None, "Japanese") and row["doc"], row
    assert {True, False} == {r["fair"] for r in rows if r["lang"] == "ja"}


def _row(doc: str, sentence: str, rewording: str, fair: bool, text: str) -> dict:
    start = text.index(sentence)
    return {"doc": doc, "lang": "en", "sentence": sentence, "quote": sentence, "rewording": rewording,
            "language": None, "part": [start, start + len(sentence)], "fair": fair, "why": "test"}


def test_each_check_is_counted_with_the_fair_notes_it_refused_and_the_unfair_ones_none_caught(tmp_path, monkeypatch):
    text = ("Marketing: 'Cause you don't tend to get flat vegetables .\n"
            "Industrial Designer: Kinetic energy it needs I don't have too much technical information on that ,\n"
            "Project Manager: Do you think these pens can give you cancer of the hand ?\n")
    (tmp_path / "qmsum").mkdir()
    (tmp_path / "qmsum" / "val_X1.json").write_text(json.dumps({"text": text}), encoding="utf-8")
    monkeypatch.setattr(bench.check_replay, "CORPUS", tmp_path)
    lines = text.splitlines()
    rows = [_row("qmsum/val_X1", lines[0], "Marketing states vegetables are flat", False, text),
            _row("qmsum/val_X1", lines[1], "Industrial Designer: Needs kinetic energy but lacks technical information",
                 True, text),
            _row("qmsum/val_X1", lines[2], "Project Manager wonders whether pens can cause cancer of the hand", True,
                 text),
            _row("qmsum/val_X1", lines[2], "Project Manager asks whether pens cure cancer of the hand", False, text),
            _row("qmsum/missing", lines[2], "Project Manager: Pens could cause cancer of the hand", False, text)]
    judged_rows, partless = judged(rows)
    assert partless == 1                                     # a document not found: its sentence stands for the part
    by_name = {t["check"]: t for t in table(judged_rows)}
    assert by_name["negation_dropped"]["refused"] == 2 and by_name["negation_dropped"]["fair"] == 1
    assert by_name["question_dropped"]["refused"] == 1 and by_name["question_dropped"]["fair"] == 0
    assert summary(judged_rows)["en"] == {"rows": 5, "fair refused": "1/2 (50%)", "unfair refused": "2/3 (67%)"}
    text_out = markdown(judged_rows, partless)
    assert "| `negation_dropped` | negation | en | 2 | 1 | 2 | 1 |" in text_out
    assert "no check catches (1):" in text_out and "pens cure cancer" in text_out
    assert "1 rows were judged without their part" in text_out
