"""docs/quality.md as bench/quality.py writes it: the measured table anew, the hand-written part kept."""
from __future__ import annotations

from bench.quality_table import KEPT_MARK, write_table


def _results(recall: float) -> dict:
    run = {"doc": "qmsum/val_X", "kind": "meeting_transcript", "lang": "en", "strategy": "notes", "seconds": 10.0,
           "chars": 1000, "fact_recall": recall, "coverage": 1.0, "copy_rate": 0.0, "scaffold_lines": 0,
           "linked_share": 1.0}
    return {"model_file": "m.gguf", "n_ctx": 8192, "machine": {"cpus": 2}, "started": "2026-12-01 09:00",
            "runs": [run]}


def test_the_table_is_written_anew_and_the_hand_written_sections_after_it_are_kept(tmp_path):
    doc = tmp_path / "quality.md"
    write_table(_results(0.25), doc, "quality-a.json")
    first = doc.read_text(encoding="utf-8")
    assert "quality-a.json" in first and "0.25" in first and first.count(KEPT_MARK) == 1
    doc.write_text(first + "\n## What this run changed\n\nWritten by hand, with its figures.\n", encoding="utf-8")
    write_table(_results(0.31), doc, "quality-b.json")
    second = doc.read_text(encoding="utf-8")
    table, kept = second.split(KEPT_MARK)
    assert "quality-b.json" in table and "0.31" in table and "quality-a.json" not in table
    assert kept == "\n\n## What this run changed\n\nWritten by hand, with its figures.\n"
