"""The words before a chosen sentence, shown beside it when the model says it as a note
(engine.summary.words_before), and the numbered ask that shows them (engine.prompts.notes)."""
from __future__ import annotations

from precis.engine.prompts.notes import NotesLayout
from precis.engine.prompts.presets import load_preset
from precis.engine.summary.words_before import words_before
from tests.engine.notes_fixtures import generic_notes_run
from tests.fake_runtime import diligent

STORY = ("The crew had landed at dawn. Jacobs walked to the ridge and looked down at the valley,\n"
         "where the old station stood.\n\nHe'd thought so when they first hit Mars.")


def test_the_sentences_before_are_whole_and_on_one_line():
    start = STORY.index("He'd")
    assert words_before(STORY, start) == ("The crew had landed at dawn. Jacobs walked to the ridge and looked down "
                                          "at the valley, where the old station stood.")
    # a shorter window keeps only the whole sentences that fit
    assert words_before(STORY, start, 90) == ("Jacobs walked to the ridge and looked down at the valley, where the "
                                              "old station stood.")


def test_one_sentence_longer_than_the_window_gives_its_last_words():
    text = "Jacobs walked to the ridge and looked down at the valley where the old station stood. He ran."
    said = words_before(text, text.index("He ran"), 30)
    assert said.startswith("…") and said.endswith("station stood.") and len(said) <= 31


def test_nothing_before_a_documents_first_sentence():
    assert words_before(STORY, 0) == ""


def test_a_transcripts_turns_keep_their_speakers_and_lose_their_fillers():
    meeting = ("Marketing: Um so what about the price then?\nBen: Mm-hmm.\nProject Manager:\n"
               "Ben: It stays at twenty-five euros, we agreed on that.")
    said = words_before(meeting, meeting.index("Ben: It stays"))
    assert said == "Marketing: so what about the price then? Ben: Mm-hmm."
    # a turn's later sentence shown without its first keeps the speaker's name
    turn = "Marketing: I looked at the figures yesterday evening. The price is too high for students.\nBen: No."
    assert words_before(turn, turn.index("Ben: No"), 45) == "Marketing: The price is too high for students."


def test_the_numbered_ask_shows_the_words_before_each_sentence_and_says_what_they_are_for():
    layout = NotesLayout(load_preset("meeting-minutes"), "2026-12-05")
    messages = layout.reword_messages(["Ben: It stays at 25 euros.", "Ben: Fine."],
                                      before=["Marketing: What about (the) price?", ""])
    ask = messages[-1]["content"]
    assert "[1] (Before: Marketing: What about the price?) Ben: It stays at 25 euros." in ask
    assert "[2] Ben: Fine." in ask
    assert "(Before: ...)" in messages[1]["content"]                   # the rule, in the reused prefix
    assert "(Before: Anna found the key under the mat.)" in messages[1]["content"]     # the worked example
    plain = layout.reword_messages(["Ben: It stays at 25 euros."])
    assert "Before" not in plain[1]["content"] + plain[-1]["content"]
    japanese = NotesLayout(load_preset("meeting-minutes"), "2026-12-05", "Japanese")
    assert "Before" not in japanese.reword_messages(["田中: はい。"], before=["営業: 価格は？"])[-1]["content"]


def test_a_story_run_shows_the_model_the_words_before_its_sentences():
    story = "\n\n".join(f"Captain Orin walked to ridge {i} and looked down at the valley of the old station {i}. "
                         f"He signalled the crew to follow him down the slope towards the river {i}."
                         for i in range(1, 40))
    rt, state = generic_notes_run(diligent, story)
    asks = [c.content for c in rt.calls if c.kind == "reword"]
    assert asks and any("(Before: " in ask for ask in asks)
    assert all(n["point"] and "Before" not in n["point"] for notes in state.notes.values() for n in notes)
