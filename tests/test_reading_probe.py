"""bench.reading_probe's pieces that need no model: where a row's quotes are, how a transcript's passage says
whose turn it is, the masked line, and the area under the curve."""
from __future__ import annotations

from bench.reading_probe import _passage_with_turns, auc, masked, passage_speakers, quote_spans

TRANSCRIPT = ("Project Manager: Welcome, let us begin with the budget.\n"
              "Marketing: Users want a remote that is easy to find.\n"
              "Industrial Designer: " + " ".join(f"Point {i:02d} about the case." for i in range(30)) + "\n"
              "Project Manager: So the kinetic battery stays.\n")


def test_quotes_are_found_exactly_or_across_other_whitespace():
    text = "He rose.\n  Retief took a bearing\non a treetop."
    assert quote_spans(text, ["He rose."]) == [(0, 8)]
    (start, end), = quote_spans(text, ["Retief took a bearing on a treetop."])
    assert text[start:end].startswith("Retief") and text[start:end].endswith("treetop.")
    assert quote_spans(text, ["Not in the text."]) == []


def test_a_transcripts_passage_says_whose_turn_each_stretch_is_in():
    far = TRANSCRIPT.index("Point 25")
    passage = _passage_with_turns(TRANSCRIPT, [(far, far + 10)])
    assert passage.startswith("Industrial Designer: ... ") and "Point 25" in passage
    near = TRANSCRIPT.index("Users want")
    assert _passage_with_turns(TRANSCRIPT, [(near, near + 10)]).startswith("Project Manager: Welcome")
    assert passage_speakers(_passage_with_turns(TRANSCRIPT, [(near, near + 10)]))[:2] == [
        "Project Manager", "Marketing"]


def test_the_masked_line_keeps_what_is_said_without_who_said_it():
    assert masked("The Project Manager asks about the budget.", "Project Manager") == "Someone asks about the budget."
    assert masked("Grad B agrees.", "Grad B") == "Someone agrees."


def test_the_area_counts_unfaithful_lines_ranked_above_faithful_ones():
    assert auc([(1.0, False), (-1.0, True)]) == 1.0
    assert auc([(-1.0, False), (1.0, True)]) == 0.0
    assert auc([(0.0, False), (0.0, True)]) == 0.5
