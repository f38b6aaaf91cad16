"""A meeting note's quote said inside a turn names who said it in the sources (Note.speaker)."""
from __future__ import annotations

import re

from precis.engine.documents.spoken_text import TurnIndex, labels_are_timed
from precis.engine.runs.outputs import sources_markdown
from precis.engine.runs.run import RunOptions
from precis.engine.summary.cast import speakers_of
from precis.engine.summary.notes_extraction import quote_speaker
from precis.engine.summary.salience import sentences_of
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import make_plan, run_all, start

# Turns of two or three sentences each: all but a turn's first are quoted without the label
TURNS = [
    ("Project Manager", "Okay, this is the evaluation meeting for the remote control prototype. The industrial "
                        "designer built the clay model with the kinetic battery inside it."),
    ("Marketing", "The survey says people want a scroll wheel and fewer buttons on the remote. Younger buyers "
                  "also asked for a spongy rubber case in bright fruit colours."),
    ("Industrial Designer", "A scroll wheel needs the advanced chip, which costs two euros more per unit. The "
                            "kinetic battery keeps the remote working without any charging cable."),
    ("User Interface", "Then I would put the small LCD screen right next to the scroll wheel. Voice recognition "
                       "waits for a bigger budget in the next product line."),
    ("Project Manager", "Agreed, the wheel and the LCD stay in the prototype design. Marketing will check the "
                        "production costs against the twelve fifty euro target by Friday."),
]


def transcript(repeats: int = 3) -> str:
    return "\n".join(f"{who}: {what}" for who, what in TURNS * repeats) + "\n"


def test_a_sentence_inside_a_turn_is_said_by_the_turns_label_one_that_opens_it_shows_its_own():
    text = transcript(1)
    said = {s.text: quote_speaker(s) for s in sentences_of(text)}
    assert said["The industrial designer built the clay model with the kinetic battery inside it."] == \
        "Project Manager"
    assert said["Voice recognition waits for a bigger budget in the next product line."] == "User Interface"
    opening = next(t for t in said if t.startswith("Marketing: The survey says"))
    assert said[opening] == ""                                  # the quote shows its label itself
    # no label at all: a story's sentence is said by no one the document labels
    assert all(quote_speaker(s) == "" for s in sentences_of("Jacobs frowned slyly at Bruce across the cabin. "
                                                            "He thought the inquest had been a waste of time."))


def test_a_runs_notes_keep_who_said_a_quote_from_inside_a_turn_and_the_sources_name_them():
    rt = FakeRuntime(script=diligent)
    plan = make_plan(rt, transcript(), preset="meeting-minutes")
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    notes = state.notes["day.txt"]
    text = transcript()
    inside = [n for n in notes if not re.match(r"[A-Z][\w ]*: ", n["quote"])]
    assert inside, "the fixture's turns should give notes quoted from inside a turn"
    for n in notes:
        line = text[text.rfind("\n", 0, n["start_char"]) + 1:]
        label = line.split(":", 1)[0]
        assert n["speaker"] == ("" if n["quote"].startswith(label + ":") else label)
    sources = "\n".join(sources_markdown(state.summaries["day.txt"], notes))
    cited = [n for n in inside if f"[{n['id']}]" in state.summaries["day.txt"]]
    assert cited
    for n in cited:
        assert re.search(rf"^- \[{n['id']}\] part \d+, lines? [\d–]+[^:]*, said by {n['speaker']}: “",
                         sources, re.M)


def test_a_sources_row_without_a_speaker_reads_as_before():
    notes = [{"id": 1, "quote": "Marketing: The survey says people want a wheel.", "part": 0, "start_line": 2,
              "end_line": 2, "origin": "reworded"},
             {"id": 2, "quote": "It needs the advanced chip.", "part": 1, "start_line": 7, "end_line": 7,
              "origin": "reworded", "speaker": "Industrial Designer"}]
    rows = sources_markdown("- Marketing says people want a wheel [1]\n- The wheel needs a chip [2]", notes)
    assert rows[2] == "- [1] part 1, line 2 (reworded): “Marketing: The survey says people want a wheel.”"
    assert rows[3] == "- [2] part 2, line 7 (reworded), said by Industrial Designer: “It needs the advanced chip.”"


TIMED = """[08:55] Mika: Then the window is Saturday, two hours, and we announce two and a half.

[08:56] Orin: Noted. Decision: pg_upgrade with hard links in the Saturday window.
Rollback: with hard links, once the new cluster has started, the old cluster cannot be started safely any more.

[08:58] Mika: Snapshot, yes. How big is the snapshot going to be and how long do we keep it?

[09:01] Orin: It grows with the changed blocks only, so a day of writes at most.
"""


def test_in_a_timed_transcript_a_line_that_only_looks_labelled_is_no_speaker():
    assert labels_are_timed(TIMED) and not labels_are_timed(TIMED.replace("[08:5", "").replace("[09:01] ", ""))
    rollback = next(s for s in sentences_of(TIMED) if "old cluster" in s.text)
    assert rollback.speaker == "" and rollback.body().startswith("Rollback: with hard links")
    assert quote_speaker(rollback) == ""
    assert set(speakers_of(TIMED)) == {"Mika", "Orin"}
    assert TurnIndex(TIMED).at(TIMED.index("Rollback")) == ""
    assert TurnIndex(TIMED).at(TIMED.index("Noted")) == "[08:56] Orin"
    # without times on its labels, a transcript keeps every "Name:" line as a turn, as before
    untimed = "\n\n".join(f"{speaker}: {said}" for speaker, said in TURNS)
    assert not labels_are_timed(untimed)
    assert {s.speaker for s in sentences_of(untimed)} == {speaker for speaker, _ in TURNS}
