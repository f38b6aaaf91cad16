"""Who a story's opening "He" or "She" is, asked of the model where code cannot tell (engine.summary.story_who)."""
import re

from precis.engine.summary.story_who import Answer, ask_opening_referent, choices_for, named_opening, people

# A made-up story: Vance is "she", Pell and Orm "he"; Venus and Kettering are places
STORY = (
    "  Captain Vance stepped onto the bridge of the Kettering, and Pell looked up from his chart. Then Vance\n"
    "said she was tired and she sat down. Then Pell checked his gauges and he frowned. Then Orm laughed at his\n"
    "joke and he shook his head. Then Orm turned to Pell. She walked to the window and looked at Venus.\n \n"
    "  They flew on to Venus for a week, far from Kettering, and the crew slept.\n \n"
    "  He woke first.\n"
)


def span(sentence: str) -> tuple[int, int]:
    start = STORY.index(sentence)
    return start, start + len(sentence)


def test_people_are_the_names_that_act_with_the_pronouns_that_follow_them():
    cast = people(STORY)
    assert cast == {"Vance": "she", "Pell": "he", "Orm": "he"}        # Venus, Kettering: after "to", "of", "at"


def test_the_choices_are_the_people_named_before_nearest_first_none_of_the_other_pronoun():
    start, end = span("He woke first.")
    assert choices_for(STORY, start, end, "he") == ["Pell", "Orm"]    # Vance is "she"
    assert choices_for(STORY, start, end, "she") == ["Vance"]
    assert choices_for(STORY, 0, 10, "he") == []


def test_one_the_sentence_itself_names_is_no_choice():
    # "He darted a glance at Syme's face" is not Syme: a pronoun and a name in one sentence are two people
    story = STORY + "  He stood, and Pell slept on.\n"
    start = story.index("He stood")
    assert choices_for(story, start, start + len("He stood, and Pell slept on."), "he") == ["Orm"]


class Weighs:
    """A run's ``weigh``: the letters' log-probabilities given, the question kept."""

    def __init__(self, found):
        self.found, self.asked = found, []

    def weigh(self, messages, answers):
        self.asked.append((messages, list(answers)))
        return (None if self.found is None else {a: self.found.get(a, -9.0) for a in answers}), "call"


def test_the_models_answer_names_the_pronoun_only_when_clearly_likelier_than_every_other_choice():
    sentence = span("He woke first.")
    sure = Weighs({"A": -0.1, "B": -2.0, "C": -3.0})                  # A) Pell, B) Orm, C) someone else
    answer, call = ask_opening_referent(sure, STORY, *sentence)
    assert answer == Answer("Pell", 1.9) and answer.name == "Pell" and call == "call"
    messages, letters = sure.asked[0]
    assert letters == ["A", "B", "C"] and "A) Pell\nB) Orm\nC) someone else" in messages[-1]["content"]
    assert messages[-1]["content"].index("flew on to Venus") < messages[-1]["content"].index('who is "He"')
    unsure = Weighs({"A": -0.6, "B": -1.2})
    assert ask_opening_referent(unsure, STORY, *sentence)[0].name == ""         # 0.6 < WHO_MARGIN
    nobody = Weighs({"C": -0.1})
    assert ask_opening_referent(nobody, STORY, *sentence)[0].name == ""         # "someone else"


def test_no_question_without_an_opening_pronoun_a_person_to_choose_or_a_runtime_that_weighs():
    assert ask_opening_referent(Weighs({}), STORY, *span("Then Orm turned to Pell.")) == (None, None)
    # before "She" this story names only men: no one to choose, nothing asked
    men = "  Then Pell sighed and he sat on his bunk. Then Orm sighed and he sat on his chair. She waved.\n"
    waved = men.index("She waved.")
    asked = Weighs({"A": 0.0})
    assert choices_for(men, waved, waved + 10, "she") == [] and choices_for(men, waved, waved + 10, "he") == ["Orm", "Pell"]
    assert ask_opening_referent(asked, men, waved, waved + len("She waved.")) == (None, None) and asked.asked == []
    assert ask_opening_referent(Weighs(None), STORY, *span("He woke first."))[0] is None


def test_the_named_opening_replaces_only_the_first_pronoun():
    assert named_opening("He woke first and he ate.", "Pell") == "Pell woke first and he ate."
    assert named_opening("He woke first.", "") == "He woke first."


def test_in_a_run_a_he_its_paragraph_leaves_unnamed_is_shown_named_when_the_model_is_sure():
    """The notes strategy over a made-up story with the scripted fake runtime: a paragraph of one sentence
    opening "He" is asked about; the script makes Pell clearly likeliest, so the model rewords "Pell ...", the
    quote stays the document's "He ...", and the question is counted in the round's calls."""
    from tests.engine.notes_fixtures import generic_notes_run
    from tests.fake_runtime import diligent

    def sure_of_pell(call):
        if call.kind == "who":
            choices = dict(re.findall(r"^([A-Z])\) (.+)$", call.content, re.M))
            return next((letter for letter, name in choices.items() if name == "Pell"), "")
        return diligent(call)

    paragraphs = []
    for k in range(3):
        paragraphs += [f"  Captain Vance crossed the bridge of freighter {k}, and Pell checked the fuel gauges "
                       f"against the morning log of the reactor.",
                       f"  He carried the heavy chart of sector {k} down to the engine room below the galley "
                       f"and locked it in the cabinet."]
    story = "\n \n".join(paragraphs) + "\n"
    rt, state = generic_notes_run(sure_of_pell, story)
    asked = "\n".join(c.content for c in rt.calls if c.kind == "reword")
    carried = [n for n in state.notes["day.txt"] if n["quote"].startswith("He carried")]
    assert carried and "] Pell carried the heavy chart" in asked and "] He carried" not in asked
    assert any(c.kind == "who" for c in rt.calls)
    rounds = [r for r in state.rounds if r.kind == "notes"]
    assert sum(r.attempts for r in rounds) == sum(1 for c in rt.calls if c.kind in ("reword", "restate", "who"))

    undecided = generic_notes_run(diligent, story)[0]
    assert "] He carried the heavy chart" in "\n".join(c.content for c in undecided.calls if c.kind == "reword")


def test_the_plan_counts_a_question_for_each_he_code_cannot_name():
    from precis.engine.planning.summary_length import WHO_PROMPT_TOKENS, notes_call_tokens
    from precis.engine.summary.story_who import question_share
    story = ("  Captain Pell walked slowly along the bridge of the freighter and looked down at the chart.\n \n"
             "  He checked every gauge on the panel twice before the long watch at the helm began.\n \n"
             "  Pell sat down at the helm and Orm brought him a mug of hot coffee from the galley.\n"
             "  He thanked his first mate for the coffee and went back to reading the chart.\n")
    # two of the story's four sentences are asked about: the second (its paragraph names no one before it) and
    # the last (its paragraph names two, Pell and Orm)
    assert question_share(story) == 2 / 4
    # a "He" its paragraph names is not asked about, nor a transcript's turn
    named = ("  Captain Pell walked slowly along the bridge of the freighter and looked down at the chart. He checked "
             "every gauge on the panel twice before the long watch at the helm began.\n")
    assert question_share(named) == 0
    assert question_share("Marketing: He said the price is fine for the students in the target group.\n"
                          "Ben: He did say that the price was fine for every student we asked last week.\n") == 0
    plain = notes_call_tokens(4000, [1000] * 4)
    asking = notes_call_tokens(4000, [1000] * 4, who_share=0.25)
    assert asking[2] == plain[2]                                     # weighed: nothing generated
    # four parts, a question for a quarter of each part's 1-8 chosen sentences
    assert WHO_PROMPT_TOKENS <= asking[1] - plain[1] <= 8 * WHO_PROMPT_TOKENS


# thirty watches: each "He" in a paragraph of its own, Pell named before it
WATCHES = "\n \n".join(f"  Captain Pell walked slowly along the bridge of freighter {i} and looked at the chart.\n"
                       f" \n  He checked every gauge on the panel twice before the long watch at helm {i} began.\n"
                       for i in range(30))


def test_the_estimate_counts_the_questions_when_given_their_share():
    from precis.engine.planning.run_plan import build_plan
    from precis.engine.prompts.layout import RoundLayout
    from precis.engine.prompts.presets import load_preset
    from precis.engine.summary.story_who import question_share
    from tests.fake_runtime import FakeRuntime
    layout = RoundLayout(load_preset("generic"), "2026-12-05")
    rt = FakeRuntime()
    without = build_plan(rt, layout, 2048, [("story.txt", WATCHES, ())], strategy="notes").estimate
    asked = build_plan(rt, layout, 2048, [("story.txt", WATCHES, ())], strategy="notes",
                       question_share=question_share).estimate
    assert question_share(WATCHES) > 0.3
    assert asked.evaluated_tokens > without.evaluated_tokens and asked.generated_tokens == without.generated_tokens


def test_a_long_texts_share_is_read_from_spread_stretches_of_it():
    """The plan reads the share from at most QUESTION_SAMPLE_CHARS of a long text, in stretches spread over
    it, each from a line's start to a line's end: about the share of the whole (a story whose first half asks
    about every "He" and whose second half names each in its paragraph is read from both halves)."""
    from precis.engine.summary.story_who import (
        QUESTION_SAMPLE_CHARS,
        _share_asked,
        question_sample,
        question_share,
    )
    named = "\n \n".join(f"  Captain Pell walked slowly along the bridge of freighter {i} and looked at the chart. He "
                          f"checked every gauge on the panel twice before the long watch at helm {i} began.\n"
                          for i in range(1200))
    long = WATCHES * 30 + "\n \n" + named
    assert len(long) > 1.5 * QUESTION_SAMPLE_CHARS
    sample = question_sample(long)
    assert len(sample) <= QUESTION_SAMPLE_CHARS and "Captain Pell walked" in sample.split("\n")[0]
    assert all(line in long for line in sample.split("\n") if line)             # whole lines of the text
    assert 0 < question_share(long) and abs(question_share(long) - _share_asked(long)) < 0.05
    assert question_sample(WATCHES) == WATCHES                                   # a short text is read whole


def test_the_plans_of_the_window_and_the_cli_count_the_questions(tmp_path):
    from precis.engine.documents.bundle import load_documents
    from precis.models.session.planner import plan_run
    from precis.models.session.request import RunRequest
    from tests.fake_runtime import FakeRuntime
    (tmp_path / "story.txt").write_text(WATCHES, encoding="utf-8")
    docs = load_documents([tmp_path / "story.txt"]).documents
    plan = plan_run(RunRequest(files=[], n_ctx=2048, date="2026-12-05", strategy="notes"), FakeRuntime(), docs, None)
    replanned = estimate_without_questions(plan)
    assert plan.estimate.evaluated_tokens > replanned.evaluated_tokens


def estimate_without_questions(plan):
    from precis.engine.planning.run_plan import estimate_run
    return estimate_run(plan.budget, plan.documents, None, "notes")
