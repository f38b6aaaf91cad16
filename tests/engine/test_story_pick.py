"""A story part's sentences picked by the model among code's wider choice (engine.summary.story_pick)."""
from __future__ import annotations

import re

from precis.engine.prompts.story_pick import pick_grammar
from precis.engine.runtime.protocol import SamplingParams
from precis.engine.summary.salience import DocumentWeights, sentences_of
from precis.engine.summary.story_pick import picked_numbers, story_sentences
from precis.engine.summary.strategies.base import CallResult
from tests.engine.notes_fixtures import generic_notes_run
from tests.fake_runtime import diligent
from tests.summary_fixtures import meeting_transcript


def test_the_numbers_kept_are_the_ones_that_name_a_sentence_once_each_in_the_replys_order():
    assert picked_numbers("3, 3, 12, 0, 5", 10) == [2, 4]
    assert picked_numbers("", 10) == []
    assert pick_grammar(3).startswith('root ::= num ", " num ", " num "\\n"')


# A part of a story: each paragraph an event and a description whose words the next descriptions share, so
# that code's weight of the words a sentence adds prefers the descriptions.
_THINGS = ("lanterns railings silhouettes balustrades tapestries chandeliers goblets mosaics banners shutters "
           "cushions").split()
_CREW = "Pell Orlov Zimmer Haskins Marrow Quill Tobin Yates".split()
STORY = "\n \n".join(
    f"  Vance sent {_CREW[k]} with {_CREW[k + 1]} to the engine room. Crimson {_THINGS[k]} swayed above copper {_THINGS[k + 1]}, "
    f"glittering {_THINGS[k + 2]} dancing across {_THINGS[k + 3]}." for k in range(7)) + "\n"


def _picked(reply_for):
    """The sentences story_sentences keeps of STORY (two of them), the model answering ``reply_for(listed)``
    (listed: the numbered sentences it was shown); and what it was asked."""
    asked = []

    class Ctx:
        strict_sampling = SamplingParams()

        def call(self, index, messages, max_tokens, params):
            content = messages[-1]["content"]
            asked.append(content)
            yield from ()
            listed = re.findall(r"^\[(\d+)\] (.+)$", content, re.M)
            return CallResult(reply_for(listed), reply_for(listed), None, 0.0)

    weights = DocumentWeights(STORY)
    results: list = []
    chosen = story_sentences(Ctx(), 0, STORY, weights, set(), 2_000, 2, sentences_of(STORY), results)
    try:
        while True:
            next(chosen)
    except StopIteration as done:
        return [s.text for s in done.value], asked, results


def test_the_sentences_the_model_picks_as_what_happens_are_noted_instead_of_codes_first_choice():
    events = lambda listed: ", ".join(i for i, s in listed if s.startswith("Vance sent"))  # noqa: E731
    kept, asked, results = _picked(events)
    assert len(asked) == 1 and len(results) == 1
    assert "Crimson" in asked[0] and "Vance sent" in asked[0]         # code's wider choice was offered
    assert len(kept) == 2 and all(t.startswith("Vance sent") for t in kept)
    # no number that names a sentence: code's own choice stands, a weightier description among it
    own, _, _ = _picked(lambda listed: "0, 99")
    assert len(own) == 2 and any(t.startswith("Crimson") for t in own)


def test_a_meeting_is_not_asked():
    rt, _state = generic_notes_run(diligent, meeting_transcript() * 3)
    assert not [c for c in rt.calls if c.kind == "pick"]
