"""How the evidence pane says where a note's point comes from."""
from __future__ import annotations

from precis.gui.evidence_view import evidence_html

TEXT = "議長：これより会議を開きます。\n知事：新型コロナウイルス感染症対策として、検査体制を強化し、医療体制も整えてまいります。\n"


def _note(origin: str, point: str) -> dict:
    start = TEXT.index("新型")
    return {"id": 1, "document": "minutes.txt", "part": 0, "start_line": 2, "end_line": 2, "start_char": start,
            "end_char": TEXT.index("\n", start), "point": point, "origin": origin, "score": 100.0}


def test_a_shortening_in_the_sentences_own_words_is_told_apart_from_a_rewording_and_a_verbatim_sentence():
    shortened = evidence_html([_note("shortened", "知事は検査体制を強化する")], TEXT)
    assert "shortened by the model, mostly in the sentence's own words" in shortened
    assert "知事は検査体制を強化する" in shortened
    assert "taken verbatim" in evidence_html([_note("extract", TEXT.split("：")[2].strip())], TEXT)
    assert "reworded by the model" in evidence_html([_note("reworded", "知事は検査を増やす")], TEXT)


def test_a_quote_said_inside_a_turn_is_headed_with_who_said_it():
    said = evidence_html([{**_note("reworded", "知事は検査を増やす"), "speaker": "知事"}], TEXT)
    assert "line 2, said by 知事 (reworded by the model)" in said
    assert "said by" not in evidence_html([_note("reworded", "知事は検査を増やす")], TEXT)
