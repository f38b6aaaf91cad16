"""A note that shortens its speaker's label ("PM: ...", "UI says ...") is named as the transcript names them."""
from __future__ import annotations

import re

from precis.engine.runs.run import RunOptions
from precis.engine.summary.notes_extraction import as_noted
from precis.engine.summary.speaker_labels import label_in_full, sentence_labels, short_form_of
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import make_plan, meeting_transcript, run_all, start


def test_a_short_form_of_the_sentences_own_speaker_is_spelled_as_the_label():
    assert label_in_full("PM: It's a pity we need to reach people under 30",
                         "Project Manager: So that's a shame, because we need to reach people under thirty.") == \
        "Project Manager: It's a pity we need to reach people under 30"
    assert label_in_full("UI says most remotes have space left at the bottom",
                         "User Interface: 'Cause most remotes have some space left at the bottom.") == \
        "User Interface says most remotes have space left at the bottom"
    assert label_in_full("Designer: Important for designing things",
                         "Industrial Designer: That's important to know when you design a thing.") == \
        "Industrial Designer: Important for designing things"
    assert label_in_full("Eluned Morgan suggested FE colleges fund it",
                         "Eluned Morgan AM: Or at least it falls to FE colleges to fund that.") == \
        "Eluned Morgan AM suggested FE colleges fund it"
    # an exchange: the speaker of the turn the short form stands for
    assert label_in_full("ID explains the chip's cost",
                         "Project Manager: What does it cost? / Industrial Designer: About two euros more.") == \
        "Industrial Designer explains the chip's cost"


def test_a_short_form_that_names_a_thing_or_another_speaker_stays_as_written():
    shown = "User Interface: Then I'd put the LCD next to the wheel."
    assert label_in_full("UI design puts the LCD next to the wheel", shown) == \
        "UI design puts the LCD next to the wheel"                      # a thing, not the speaker
    assert label_in_full("UI team puts the LCD next to the wheel", shown) == "UI team puts the LCD next to the wheel"
    assert label_in_full("PM says the LCD goes next to the wheel", shown) == \
        "PM says the LCD goes next to the wheel"                        # not this sentence's speaker
    assert label_in_full("User Interface says the LCD goes next to the wheel", shown) == \
        "User Interface says the LCD goes next to the wheel"            # already in full
    assert label_in_full("Mika says so", "Mika: I think so.") == "Mika says so"     # one word has no short form
    assert label_in_full("The LCD goes next to the wheel", "The LCD goes next to the wheel.") == \
        "The LCD goes next to the wheel"                                # no speaker at all
    # a sentence that only opens like a label names no speaker: nothing is taken for a short form of it
    assert label_in_full("Retief says the fleet is ready", "Retief said: the fleet is ready.") == \
        "Retief says the fleet is ready"
    assert label_in_full("Next steps: Marketing sends the survey", "Next steps: Marketing sends the survey.") == \
        "Next steps: Marketing sends the survey"
    # a letter is no short form: an article, or the letter of "Grad A"
    assert label_in_full("A process runs overnight", "Grad A: The process runs overnight.") == \
        "A process runs overnight"
    # two labels the short form fits: neither is chosen
    assert label_in_full("Grad says the net works", "Grad A: It works? / Grad B: The net works.") == \
        "Grad says the net works"


def test_what_counts_as_a_short_form_and_a_label():
    assert short_form_of("PM", "Project Manager") and short_form_of("ID", "Industrial Designer")
    assert short_form_of("Manager", "Project Manager") and short_form_of("Kirsty Williams", "Kirsty Williams AM")
    assert not short_form_of("Interface User", "User Interface") and not short_form_of("PM", "Marketing")
    assert not short_form_of("Williams Kirsty", "Kirsty Williams AM") and not short_form_of("IU", "User Interface")
    assert sentence_labels("[00:12:01] Ms. Jenny Kwan (Vancouver East, NDP): Thank you.") == ["Ms. Jenny Kwan"]
    assert sentence_labels("Mr. Chris d'Entremont (West Nova, CPC): Thank you.") == ["Mr. Chris d'Entremont"]
    assert sentence_labels("知事（小池百合子君）：お答えします。") == []                       # Latin-script labels only
    assert as_noted("PM: the L_C_Ds go left", "Project Manager: The L_C_D_s go left.") == \
        "Project Manager: the LCDs go left"


def test_a_meetings_rewordings_that_shorten_the_labels_reach_the_summary_with_the_labels_in_full():
    shorts = {"Project Manager": "PM", "User Interface": "UI", "Industrial Designer": "ID"}

    def shortens(call):                  # every rewording opens with its speaker's initials, as the 1.5B model's do
        if call.kind == "reword":
            speakers = dict(re.findall(r"^\[(\d+)\] ([A-Z][\w ]*?): ", call.content, re.M))
            return "".join(f"[{i}] {shorts.get(speakers.get(i), speakers.get(i, 'Someone'))} says {said}\n"
                           for i, said in re.findall(r"^\[(\d+)\] (.+)$", diligent(call), re.M))
        return diligent(call)
    rt = FakeRuntime(script=shortens)
    plan = make_plan(rt, meeting_transcript() * 3, preset="meeting-minutes")
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    reworded = [n for n in state.notes["day.txt"] if n["origin"] == "reworded"]
    assert any(n["point"].startswith(("Project Manager says", "User Interface says", "Industrial Designer says"))
               for n in reworded)
    assert not any(re.match(r"(?:PM|UI|ID) says", n["point"]) for n in reworded)
    assert not re.search(r"^- (?:PM|UI|ID) says", state.summaries["day.txt"], re.M)
