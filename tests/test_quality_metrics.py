"""bench.quality_metrics: the shares of a summary's lines that cite a quote, and whose quotes hold them."""
from __future__ import annotations

from bench.quality_metrics import linked_share, supported_share

SUMMARY = """## The inquest
- Passwyn tells the pilot to go back. [2]
- The pilot ducks out of sight [4]
- 知事は多摩地域に相談拠点を新たに開設します。 [3]
The team met at the dome [1]. Then nothing happened. The inquest ended with a verdict [2]."""
NOTES = [{"id": 1, "quote": "The team met at the dome."}, {"id": 2, "quote": "Passwyn said: tell the pilot to go back."},
         {"id": 3, "quote": "来年度は、多摩地域にも相談拠点を新たに開設をいたします。"},
         {"id": 4, "quote": "The pilot ducked out of sight."}]


def test_a_notes_references_after_its_full_stop_are_its_sentences():
    # a note that ends as a sentence does ("... back. [2]") was split from its references: 0.54 of a
    # development story's notes counted as linked, though every one cites its quote
    assert linked_share(SUMMARY) == round(5 / 6, 4)                 # "Then nothing happened." cites nothing
    # of the five cited sentences, the inquest's verdict is not in quote 2
    assert supported_share(SUMMARY, NOTES) == round(4 / 5, 4)
    assert linked_share("- Passwyn tells the pilot to go back. [2]\n- 知事は開設します。 [3]") == 1.0


def test_a_stop_inside_a_number_or_a_name_ends_no_sentence():
    # an earnings call's "17.3%" was read as two sentences, the first without its reference
    summary = ("- Same-store sales increased by 5.7% in February, reflecting comp sales growth of 11.2%. [3]\n"
               "- キャッシュは `os.UserCacheDir()` に置く。 [4]")
    assert linked_share(summary) == 1.0
    notes = [{"id": 3, "quote": "Same-store sales increased 5.7% in February, reflecting comp sales growth of 11.2%."},
             {"id": 4, "quote": "キャッシュは os.UserCacheDir() の下に置きます。"}]
    assert supported_share(summary, notes) == 1.0


def test_a_quote_counts_with_who_said_it_and_the_claim_only_share_leaves_the_name_to_the_label():
    notes = [{"id": 1, "quote": "I dunno about you guys but I felt like a bit under-stimulated .",
              "speaker": "Project Manager"},
             {"id": 2, "quote": "Project Manager: That's sorted , go ahead and take it away guys ."},
             {"id": 3, "quote": "Um research shows they like a little L_C_D_ screen on their zapping device ."}]
    felt = "- Project Manager feels under-stimulated [1]"
    # the label's words held: inside a turn, as the labelled quote always had them
    assert supported_share(felt, notes) == 1.0
    assert supported_share(felt, [{**notes[0], "speaker": ""}]) == 0.0      # 1 of 4 words without its speaker
    # the name left to the label: "feel" is not in the quote, "under-stimulated" is: half, held
    assert supported_share(felt, notes, claim_only=True) == 1.0
    orders = "- Project Manager orders UI team to take over [2]"
    assert supported_share(orders, notes) == 1.0                             # carried by the name
    assert supported_share(orders, notes, claim_only=True) == 0.0            # take of order, ui, team, take
    # spelled letters read as the model was shown them
    assert supported_share("- Buyers like an LCD [3]", notes) == 1.0         # like, LCD of buyers, like, LCD
