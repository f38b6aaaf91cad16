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


def test_a_resumed_run_skips_the_runs_its_results_hold_and_refuses_other_settings():
    import pytest

    from bench.quality import resumed, runs_to_do
    done = {("qmsum/val_X", "plain", 0), ("qmsum/val_X", "rolling, notes after 2", 0)}
    todo = runs_to_do("qmsum/val_X", ["plain", "rolling", "notes"], [0, 1], [2, 0], done)
    assert [(label, seed) for _, seed, _, label in todo] == [
        ("rolling, notes after 0", 0), ("rolling, notes after 2", 1), ("rolling, notes after 0", 1),
        ("notes", 0), ("notes", 1)]
    assert len(runs_to_do("qmsum/val_Y", ["plain", "rolling", "notes"], [0, 1], [2, 0], done)) == 7
    earlier = {**_results(0.2), "chunk_tokens": None}
    now = {**_results(0.2), "chunk_tokens": None, "runs": []}
    kept = resumed(earlier, now)
    assert kept["runs"] == earlier["runs"] and kept["sittings"] == [{"started": "2026-12-01 09:00", "commit": None}]
    with pytest.raises(ValueError, match="n_ctx"):
        resumed({**earlier, "n_ctx": 4096}, now)
    with pytest.raises(ValueError, match="summary_words"):       # a probe at another length is another table
        resumed({**earlier, "summary_words": 700}, now)


def test_the_table_says_when_a_run_was_resumed_and_which_documents_it_split(tmp_path):
    results = _results(0.25)
    second = {**results["runs"][0], "strategy": "plain", "sitting": 1}
    other = {**results["runs"][0], "doc": "qmsum/val_Y", "sitting": 1}
    results["runs"] += [second, other]
    results["sittings"] = [{"started": "2026-12-01 09:00", "commit": "abc1234"},
                           {"started": "2026-12-02 09:00", "commit": "abc1234"}]
    doc = tmp_path / "quality.md"
    write_table(results, doc, "quality-a.json")
    head = doc.read_text(encoding="utf-8").split("\n\n")[1]
    assert "Resumed: 2 sittings" in head and "commit abc1234" in head
    assert "the strategies of qmsum/val_X ran in more than one sitting" in head and "val_Y" not in head
    results["sittings"] = results["sittings"][:1]
    write_table({**results, "runs": results["runs"][:1]}, doc, "quality-a.json")
    assert "All strategies ran in the same invocation" in doc.read_text(encoding="utf-8")


def test_a_table_of_summaries_asked_for_another_length_says_so(tmp_path):
    doc = tmp_path / "quality.md"
    write_table({**_results(0.25), "summary_words": 700}, doc, "quality-long.json")
    assert "asked for 700 words (--summary-words)" in doc.read_text(encoding="utf-8")
    write_table(_results(0.25), doc, "quality-plan.json")
    assert "--summary-words" not in doc.read_text(encoding="utf-8")
