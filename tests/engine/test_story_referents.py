"""Who a story's sentence is about, read from the words around it (engine.summary.story_referents)."""
from precis.engine.summary.story_referents import opening_referent, teller, told_by, with_referent

# A made-up story, hard-wrapped, paragraphs apart by a line holding a space (as the corpus's stories are)
STORY = (
    '  Captain Orsolya Vance stepped onto the bridge, and Pell looked up from\nthe chart.\n \n'
    '  "Kindly sit down," Vance said coldly. "A number of chores remain. I want\nyou to take the skiff to '
    'the moon tonight."\n \n'
    '  Pell frowned at the chart. He rolled it up and put it under his arm.\n \n'
    '  "Pell, see to it that the crew is fed," she said.\n \n'
    '  "And the engines?" said Pell.\n \n'
    '  "Tomorrow."\n \n'
    '  Vance and Pell walked to the hatch. He opened it for her.\n \n'
    '  He was quite young, Vance saw, with a sailor\'s shoulders.\n \n'
    '  "We leave at dawn," he whistled, watching the sky. "Nobody sleeps."\n'
)


def span(sentence: str) -> tuple[int, int]:
    unwrapped = STORY.replace("\n", " ")
    start = unwrapped.index(sentence)
    return start, start + len(sentence)


def test_a_quotation_is_told_by_its_speech_tag_after_or_before_it():
    assert teller(STORY, *span('"Kindly sit down," Vance said coldly.')) == ""      # the sentence names her
    assert teller(STORY, *span("I want you to take the skiff to the moon tonight.\"")) == "Vance"
    assert teller(STORY, *span('"And the engines?"')) == "Pell"                      # "said Pell"


def test_a_pronoun_tag_is_the_one_person_the_paragraphs_narration_names_else_no_one():
    # "she said": the paragraph's narration names no one, and the paragraph before is not read
    assert teller(STORY, *span('"Pell, see to it that the crew is fed,"')) == ""
    # "he whistled": nobody named in the paragraph either
    assert teller(STORY, *span('"Nobody sleeps."')) == ""
    # no tag at all
    assert teller(STORY, *span('"Tomorrow."')) == ""


def test_a_tags_he_is_the_narrations_one_name_and_a_full_stop_ends_a_quotation_before_the_next_sentence():
    story = ('  Pell looked at Vance, and Vance nodded to Pell.\n \n'
             '  Pell stood by the hatch. "I will go to the moon tonight," he said.\n \n'
             '  "My idea exactly," Vance said. "Take the skiff and the spare fuel." Pell hovered at the hatch.\n')

    def told(sentence: str) -> str:
        start = story.index(sentence)
        return teller(story, start, start + len(sentence))
    assert told('"I will go to the moon tonight,"') == "Pell"
    # the words after a quotation ending in a full stop are the next sentence: the tag is the one before it
    assert told('"Take the skiff and the spare fuel."') == "Vance"


def test_an_opening_pronoun_is_the_one_person_named_before_it_in_its_paragraph():
    assert opening_referent(STORY, *span("He rolled it up and put it under his arm.")) == "Pell"
    # two people named before it: a reader would guess, code does not
    assert opening_referent(STORY, *span("He opened it for her.")) == ""
    # a pronoun is not the name its own sentence gives, and a paragraph's first sentence has nothing before it
    assert opening_referent(STORY, *span("He was quite young, Vance saw, with a sailor's shoulders.")) == ""


def test_the_model_is_shown_the_name_for_an_opening_pronoun_and_else_the_sentence_as_it_was():
    opening = "He rolled it up and put it under his arm."
    assert with_referent(opening, STORY, *span(opening)) == "Pell rolled it up and put it under his arm."
    plain = "Pell frowned at the chart."
    assert with_referent(plain, STORY, *span(plain)) == plain
    unknown = "He opened it for her."
    assert with_referent(unknown, STORY, *span(unknown)) == unknown


def test_a_characters_words_are_noted_under_their_name_unless_the_note_names_them():
    assert told_by("They never come near the cities", "Syme") == "Syme: They never come near the cities"
    assert told_by("Syme says they never come near the cities", "Syme") == "Syme says they never come near the cities"
    assert told_by("They never come near the cities", "") == "They never come near the cities"
    # the model's stand-in for the character's "I" is the name, not a label before it
    assert told_by("The speaker loses hazard pay", "Quade") == "Quade loses hazard pay"
    assert told_by("Nobody believes the speaker", "Quade") == "Nobody believes Quade"
    # a name inside another word is not the name
    assert told_by("Symes never come", "Syme") == "Syme: Symes never come"
    # a Japanese speaker's note: Japanese writes no spaces between a name and its particle
    assert told_by("三つの基金を新設", "和泉なおみ議員") == "和泉なおみ議員: 三つの基金を新設"
    assert told_by("和泉なおみ議員は基金の説明を要求", "和泉なおみ議員") == "和泉なおみ議員は基金の説明を要求"
    # a role is a word of what is said too: the governor's note about the governor's office is still his
    assert told_by("知事就任以来の努力", "知事") == "知事: 知事就任以来の努力"
    assert told_by("増子ひろき議員の質問に答弁", "知事") == "知事: 増子ひろき議員の質問に答弁"


def test_a_word_seen_only_opening_sentences_is_no_speaker():
    """"Eagerly" and "Striding" are capitalised only where they open a sentence: an adverb, a participle."""
    story = '  "Eagerly waiting," Striding said.\n \n  Striding staggered back, and Tom laughed.\n'
    first = '"Eagerly waiting,"'
    assert teller(story, story.index(first), story.index(first) + len(first)) == ""
    story_named = story.replace("and Tom laughed", "and Striding laughed")      # now seen inside a sentence
    assert teller(story_named, story.index(first), story.index(first) + len(first)) == "Striding"


def test_in_a_run_a_characters_words_are_noted_under_their_name_and_a_he_is_shown_named():
    """The notes strategy over a made-up story, the scripted fake runtime rewording: the model is shown a
    character's words as they are (under a name, the 1.5B model handed them back) and a narration sentence's
    opening "He" as the one person its paragraph named; the note of the words is put under the speaker's name,
    its quote the document's own words."""
    import re

    from tests.engine.notes_fixtures import generic_notes_run
    from tests.fake_runtime import diligent

    def rewords(call):
        if call.kind != "reword":
            return diligent(call)
        said = []
        for i, sentence in re.findall(r"^\[(\d+)\] (.+)$", call.content, re.M):
            number = re.search(r"\d+", sentence)
            if "reactor" in sentence:
                said.append(f"[{i}] The reactor of freighter {number.group(0)} must be inspected before the convoy sails")
            elif sentence.startswith("Pell rolled"):
                said.append(f"[{i}] Pell takes the heavy chart down to the engine room")
            else:
                said.append(diligent(call).splitlines()[int(i) - 1])
        return "\n".join(said) + "\n"

    paragraphs = []
    for k in range(3):
        paragraphs += [f'  Captain Vance crossed the bridge of freighter {k} and nodded to Pell, who checked the '
                       f'fuel gauges against the morning log.',
                       f'  "Kindly sit down," Vance said coldly. "The reactor of freighter {k} needs a careful '
                       f'inspection before the convoy leaves the harbour tonight."',
                       f'  Pell frowned at the chart of sector {k}. He rolled the heavy chart up and carried it '
                       f'down to the engine room below the galley.']
    story = "\n \n".join(paragraphs) + "\n"
    rt, state = generic_notes_run(rewords, story)
    asked = "\n".join(c.content for c in rt.calls if c.kind == "reword")
    notes = state.notes["day.txt"]
    words = [n for n in notes if "needs a careful inspection" in n["quote"]]
    assert words and all(n["point"].startswith("Vance: The reactor of freighter") for n in words)
    assert all(n["quote"].startswith("\"The reactor") for n in words)        # the quote: the document's words
    assert "Vance: The reactor" not in asked and "] \"The reactor of freighter" in asked
    rolled = [n for n in notes if n["quote"].startswith("He rolled")]
    assert rolled and all(n["point"].startswith("Pell takes") for n in rolled)
    assert "] Pell rolled the heavy chart up" in asked and "] He rolled" not in asked


def test_a_characters_words_noted_as_anothers_speaking_are_the_characters():
    # the check half's story notes, labelled "wrong actor": the model gave the speaker's words to the one spoken to
    note = "Do you know anything about a Note passed to the Terrestrial Ambassador at Smorbrod?"
    assert told_by("Zubb asks about the Note passed to the Ambassador at Smorbrod", "Retief", note) == \
        "Retief asks about the Note passed to the Ambassador at Smorbrod"
    demand = "Take us directly to the military leaders. I insist on a direct interview."
    assert told_by("Slun mentions direct interview with military leaders", "Magnan", demand) == \
        "Magnan mentions direct interview with military leaders"
    # the words name who speaks in them: a report of another's speaking stays, under the speaker's name
    report = "Zubb asked me about the Note this morning."
    assert told_by("Zubb asks about the Note", "Retief", report) == "Retief: Zubb asks about the Note"
    assert told_by("Flap-jacks mention the oases", "Potter", "The Flap-jacks won't get them.") == \
        "Potter: Flap-jacks mention the oases"
    # a pronoun or an article is no one else; a note that does not open with speaking is labelled as before
    assert told_by("We order heavy equipment", "Hoshick", "We've ordered heavier equipment.") == \
        "Hoshick: We order heavy equipment"
    assert told_by("Zubb escorts the guests", "Retief", note) == "Retief: Zubb escorts the guests"
