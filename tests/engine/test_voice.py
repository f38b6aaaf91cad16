"""A report's note that opens with "We" or "Our" is said of whom its "we" stands for (engine.summary.voice)."""
from __future__ import annotations

import re

from precis.engine.runs.run import RunOptions
from precis.engine.summary.voice import in_voice, speaks_as_we, voice_choices, voice_passage
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import make_plan, meeting_transcript, run_all, start

REPORT = " ".join([
    "Harwick Tools reported revenue of $410 million for the quarter, up 6% from a year ago.",
    "We opened forty new stores in the US and closed twelve in Europe during the quarter.",
    "Our gross margin improved by 80 basis points on lower freight costs across the Harwick Tools network.",
    "COVID still weighed on the Canadian stores, where we expect traffic to recover next year.",
    "We now expect earnings per share of $2.10 to $2.20 for the full year at Harwick Tools.",
    "Slide 4 shows the segment results, and Slide 5 shows the cash flow of the quarter.",
] * 4)


def test_the_choices_are_the_names_a_report_says_often_and_never_in_lower_case():
    names = voice_choices(REPORT)
    assert names[0] == "Harwick Tools" or "Harwick Tools" in names
    assert "Harwick" not in names and "Tools" not in names        # said no more often than the name holding them
    assert "We" not in names and "Our" not in names                # what is asked about is no answer
    assert "Slide" in names                                        # names the model is to tell apart
    assert all(len(n) > 1 for n in names)
    passage = voice_passage(REPORT, names)
    assert "Harwick Tools network" in passage and len(passage) <= 1_200 + 200


def test_a_note_opening_with_we_or_our_is_said_of_the_name():
    assert in_voice("We opened forty stores in the US", "Harwick Tools") == "Harwick Tools opened forty stores in the US"
    assert in_voice("We expect traffic to recover", "NOV") == "NOV expects traffic to recover"
    assert in_voice("We now expect EPS of $2.10", "NOV") == "NOV now expects EPS of $2.10"
    assert in_voice("We currently have a large backlog", "NOV") == "NOV currently has a large backlog"
    assert in_voice("We see demand in Brazil", "NOV") == "NOV sees demand in Brazil"
    assert in_voice("We carry less inventory", "NOV") == "NOV carries less inventory"
    assert in_voice("We will host a question-and-answer session", "NOV") == \
        "NOV will host a question-and-answer session"
    assert in_voice("We're optimistic about Q2", "NOV") == "NOV is optimistic about Q2"
    assert in_voice("We upgraded our Tier four fleet", "NOV") == "NOV upgraded its Tier four fleet"
    assert in_voice("We anticipated absorption challenges but were impacted by COVID-19", "NOV") == \
        "NOV anticipated absorption challenges but was impacted by COVID-19"
    assert in_voice("Our gross margin improved", "Harwick Tools") == "Harwick Tools' gross margin improved"
    assert in_voice("Our Downhole business grew 13%", "NOV") == "NOV's Downhole business grew 13%"
    # no name, or no such opening: as it is
    assert in_voice("We opened forty stores", "") == "We opened forty stores"
    assert in_voice("Revenue rose as we opened stores", "NOV") == "Revenue rose as we opened stores"
    assert in_voice("Wells Fargo lent us money", "NOV") == "Wells Fargo lent us money"


def test_only_english_prose_that_tells_no_story_speaks_as_we():
    assert speaks_as_we(REPORT, None) and speaks_as_we(REPORT, "English")
    assert not speaks_as_we(REPORT, "Japanese")
    assert not speaks_as_we(meeting_transcript() * 3, None)         # a meeting's "we" is its team
    story = ' '.join(['"We leave at dawn," Retief said, and the crew nodded.',
                      '"Our ship is ready," Swarts answered from the hatch.'] * 6)
    assert not speaks_as_we(story, None)                            # a story's "we" is whoever speaks


def _kept_opening(sentence: str) -> str:
    """The sentence's words in another order (as the fake's diligent rewordings), its "We" or "Our" first."""
    words = sentence.rstrip(".").split()
    first = words[0] if words[0] in ("We", "Our") else ""
    return " ".join(([first] if first else []) + list(reversed(words[1 if first else 0:12])))


def _opens_with_we(call):
    """Rewordings that keep the sentence's "We ..." or "Our ..." opening; the voice question answered with the
    letter of "Harwick Tools"."""
    if call.kind == "voice":
        return next(letter for letter, name in re.findall(r"^([A-Z])\) (.+)$", call.content, re.M)
                    if name == "Harwick Tools")
    if call.kind == "reword":
        said = re.findall(r"^\[(\d+)\] (.+)$", call.content, re.M)
        return "".join(f"[{i}] {_kept_opening(s)}\n" for i, s in said)
    if call.kind == "restate":
        return _kept_opening(call.content) + "\n"
    return diligent(call)


def test_a_reports_notes_are_said_of_the_name_the_model_clearly_gives_asked_once():
    rt = FakeRuntime(script=_opens_with_we)
    plan = make_plan(rt, REPORT * 2, preset="generic")
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    points = [n["point"] for n in state.notes["day.txt"]]
    assert any(p.startswith(("Harwick Tools ", "Harwick Tools' ")) and not p.startswith("Harwick Tools reported") for p in points)
    assert not any(re.match(r"(?:We|Our)\b", p) for p in points)
    assert sum(c.kind == "voice" for c in rt.calls) == 1            # once per document, not per part


def test_an_unclear_answer_leaves_the_notes_as_they_were():
    def undecided(call):
        return "" if call.kind == "voice" else _opens_with_we(call)
    rt = FakeRuntime(script=undecided)
    plan = make_plan(rt, REPORT * 2, preset="generic")
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    assert any(re.match(r"(?:We|Our)\b", n["point"]) for n in state.notes["day.txt"])
    assert sum(c.kind == "voice" for c in rt.calls) == 1
