"""engine/summary/doers.py: a line's doer and verb, and who does that verb in a sentence of the document."""
from __future__ import annotations

from precis.engine.summary.doers import antecedent, line_doer, sayings, uses, verb_stem


def test_one_stem_for_a_verbs_forms_regular_and_irregular():
    groups = [("hand", "hands", "handed", "handing"), ("close", "closes", "closed", "closing"),
              ("drop", "drops", "dropped", "dropping"), ("cry", "cries", "cried"), ("hold", "holds", "held"),
              ("give", "gives", "gave", "given"), ("say", "says", "said"), ("tell", "tells", "told")]
    for forms in groups:
        assert len({verb_stem(f) for f in forms}) == 1, forms
    assert len({verb_stem(group[0]) for group in groups}) == len(groups)


def test_a_lines_doer_is_its_opening_name_or_role_and_its_verb_the_word_after_with_a_verbs_ending():
    line = line_doer("Retief hands the pilot a power pistol.")
    assert line.words == ("Retief",) and line.named and line.verb == "hands" and "pilot" in line.after_verb
    role = line_doer("The tall man quietly loitered in front of a window.")
    assert role.key == ("man",) and not role.named and role.verb == "loitered"
    assert line_doer("Retief is dropping rapidly.").verb == "dropping"
    assert line_doer("The Industrial Designer will show the prototype.").verb == "show"


def test_a_line_it_would_read_wrongly_has_no_doer():
    for text in ("Syme Rector is approached by a young boy.",        # a passive: the doer is after "by"
                 "Retief's left fist shot out.",                     # a possessive
                 "Syme and Tate learn about the harpoon gun.",       # two doers
                 "He hands the pilot a pistol.",                     # a pronoun
                 "The Diabetes Care business has tremendous potential.",   # "has" alone
                 "Profitability trend expected to be similar."):     # a headline's passive
        assert line_doer(text) is None, text


def test_quoted_words_are_the_doers_only_where_they_follow_its_verb_closely():
    assert line_doer('Magnan smiles and says "Small thanks to you" to Qornt.').quote == "Small thanks to you"
    assert line_doer('Grad B reports on the email about intentions, including the words "go to see".').quote == ""
    assert line_doer('Retief hears Magnan say "Small thanks to you".').quote == ""


def test_who_does_the_verb_in_a_sentence_by_the_words_around_it():
    retief = line_doer("Retief hands the pilot a power pistol.")
    [use] = uses("The pilot ducked out of sight, came back, handed Retief a heavy power pistol.", "hand", retief)
    assert use.doer_after and not use.doer_before and use.someone_before
    assert uses("Retief raised his hands.", "hand", retief) == []                  # a noun
    assert uses("Retief watched the screen, hands on the controls.", "hand", retief) == []
    assert uses("Retief was handed a pistol by the pilot.", "hand", retief) == []  # a passive
    [by_name] = uses("Lemuel handed Retief a cup.", "hand", retief)
    assert by_name.subject == "Lemuel" and by_name.subject_named and by_name.finite
    [with_them] = uses("The pilot shook hands with Retief.", "shak", line_doer("Retief shakes hands."))
    assert not with_them.doer_after                                                # beside, not done to
    hoshick = line_doer("Hoshick says he must go.")
    [inverted] = uses('"I fear I must go now, Retief," said Hoshick.', verb_stem("says"), hoshick)
    assert inverted.doer_before and not inverted.doer_after                        # "said Hoshick": he says it


def test_who_says_a_quote_is_read_beside_it_in_its_paragraph():
    part = ('  "It\'s not broken," he whistled nasally, eyeing Magnan through the goggles. "Small thanks to\n'
            'you."\n\n  Magnan smiled loftily.')
    [said] = sayings(part, "Small thanks to you", line_doer('Magnan says "Small thanks to you".'))
    assert said.speaker == "he" and said.doer_after and not said.doer_says
    named = sayings('  "Go home," Retief said to Magnan.', "Go home", line_doer('Retief says "Go home".'))
    assert named[0].doer_says


def test_he_is_the_name_opening_the_sentence_before_only_where_nothing_else_can_be_meant():
    bert = line_doer("Bert holds out a hand.")
    cast = frozenset({"lemuel", "bert", "retief"})
    assert antecedent("Lemuel came forward, one eye black.", "He held out a hand.", bert, cast) == "Lemuel"
    assert antecedent("Lemuel came forward to Bert.", "He held out a hand.", bert, cast) == ""   # Bert named
    assert antecedent('Lemuel laughed, "Come on."', "He held out a hand.", bert, cast) == ""    # a quote
    assert antecedent("Suddenly the door opened.", "He held out a hand.", bert, cast) == ""     # no name
