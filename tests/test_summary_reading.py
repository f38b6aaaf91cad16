"""bench.summary_reading: the "reads as a summary" counts of issue 38, each on lines of the kind the issue
quoted, and what each leaves alone."""
from bench.summary_reading import reading_counts, reading_problems


def _counts(*lines: str) -> dict:
    return reading_counts("\n".join(["## A heading", *(f"- {line} [1]" for line in lines)]))


def test_each_count_sees_the_lines_the_issue_quoted():
    counts = _counts("I yelled and ran after him.", "You can say what you think now.",
                     "He thought Mars was a waste of time.", "Is the basic design fulfilling its functions?")
    assert counts["first_second_person"] == 2 and counts["pronoun_openers"] == 1 and counts["questions"] == 1
    assert reading_counts("## Parts 2 to 3\n- Bruce invites them in [1]")["part_headings"] == 1
    assert reading_problems(counts) == 4


def test_a_pronoun_after_a_sentence_naming_someone_and_a_quote_opening_with_i_are_not_counted():
    summary = "Bruce invites the crew in. He thinks Mars is a waste of time.\n\n- \"I yelled,\" Bruce says [2]"
    counts = reading_counts(summary)
    assert counts["pronoun_openers"] == 0 and counts["first_second_person"] == 0
    # a bullet does not follow on from the one above it
    assert _counts("Bruce invites the crew in", "He thinks Mars is a waste of time")["pronoun_openers"] == 1


def test_an_it_that_stands_for_nothing_is_no_pronoun_opener_and_one_that_stands_for_a_thing_is():
    expletive = ("It seemed obvious that men could reach the planets", "It was ten minutes before he saw movement",
                 "It seemed obvious to Maitland that men would reach the planets",
                 "It's important to note that the plans include brand-building investments")
    assert _counts(*expletive)["pronoun_openers"] == 0
    referring = ("It is a remote that has a scroll wheel", "It's easy to use", "It looked good, like home",
                 "It's tough; every service breaks people down now and then", "It makes a bitter rip between them")
    assert _counts(*referring)["pronoun_openers"] == len(referring)


def test_japanese_counts_only_questions_and_part_headings():
    counts = reading_counts("## パート 2〜3\n- 彼は走った。[1]\n- どう対応する?[2]")
    assert counts["first_second_person"] is None and counts["pronoun_openers"] is None
    assert counts["part_headings"] == 1 and counts["questions"] == 1
