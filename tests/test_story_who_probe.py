"""bench.story_who_probe's pieces that need no model: what counts as a right answer, and the report."""
from bench.story_who_probe import LABELS, report, right


def test_a_name_is_right_when_it_is_a_word_of_the_label():
    assert right("Syme", "the tall man (Syme Rector, not yet named in narration)")
    assert right("Maitland", "Maitland")
    assert not right("Tate", "Syme") and not right("Syme", "Symes") and not right("someone else", "the girl")


def test_the_report_counts_per_margin_only_names_not_someone_else_or_unasked():
    rows = [{"picked": "Syme", "margin": 1.2, "right": True},
            {"picked": "Tate", "margin": 0.7, "right": False},
            {"picked": "someone else", "margin": 2.0, "right": False},
            {"picked": "", "margin": 0.0, "right": False}]
    text = report(rows)
    assert text.splitlines()[0].startswith("4 labelled sentences, 3 asked")
    assert "margin >= 0.5: named 2, rightly 1" in text and "margin >= 1.0: named 1, rightly 1" in text
    assert "margin >= 1.5: named 0, rightly 0" in text


def test_the_labels_say_who_for_every_sentence_and_where_it_is():
    import json
    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()]
    assert rows and all(r["who"] and r["pronoun"] in ("He", "She") for r in rows)
    assert all(r["sentence"].startswith(r["pronoun"]) and r["end"] - r["start"] == len(r["sentence"]) for r in rows)
