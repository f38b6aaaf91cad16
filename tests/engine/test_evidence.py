"""Points held to their sentence, repeats, scaffolding, language, the notes' grammars."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from precis.engine.prompts.notes import (
    HEADING_CHARS,
    POINT_CHARS,
    restate_grammar,
    reword_grammar,
)
from precis.engine.summary.evidence import (
    Note,
    condition_swapped,
    hedge_dropped,
    is_repeat,
    negation_dropped,
    negation_invented,
    normalise,
    numbers_held,
    plainly_said,
    point_supported,
    proposal_invented,
    qualifier_dropped,
    question_dropped,
    reason_invented,
    spelled_numbers,
)
from precis.engine.summary.language import named_language, wrong_language
from precis.engine.summary.notes_extraction import (
    broken_off,
    cased_as_shown,
    completes_broken_off,
    first_sentence,
    invented_names,
    numbered_answers,
    reporters_dropped,
    says_twice,
    unfinished,
)
from precis.engine.summary.scaffold import scaffold_lines, strip_scaffold
from precis.engine.summary.writing import heading_problems

PART = ("Project Manager: Um, so we we decided to use a wind dynamo, uh, instead of the hand dynamo .\n"
        "Marketing: The LCD costs 12 Euros , which is too much for the budget .\n"
        "Industrial Designer: I will send the drawings by Friday .\n")


def test_points_must_keep_the_parts_numbers_and_words():
    assert point_supported("The team chose a wind dynamo over the hand dynamo", PART)
    assert not point_supported("The LCD costs 15 euros", PART)                 # a changed number
    assert not point_supported("Revenue rose sharply in the third quarter", PART)   # nothing of the part



def test_a_japanese_point_with_latin_words_is_checked_by_its_japanese_too():
    quote = "レビュー指摘の SHA-256 ハッシュキーを反映済み。"
    assert point_supported("SHA-256 のハッシュキーをレビュー指摘どおり反映", quote)
    # what the 1.5B model ran on with: its Latin words are the quote's, its Japanese is not
    assert not point_supported("SHA-256 ハッシュキーは main リポジトリで作成されたブランチに追加され、新しいデータが保存されます",
                               quote)


def test_a_rewording_may_not_bring_in_a_negation_its_sentence_does_not_make():
    # what the 1.5B model made of a development session's sentence: every word its own, the sense inverted
    sentence = "出力も完全に一致しており透過性も問題なし。"
    assert point_supported("出力と完全一致、透過性なし", sentence)             # the word checks let it through
    assert negation_invented("出力と完全一致、透過性なし", sentence)
    assert not negation_invented("出力は完全一致し、透明性も問題なし", sentence)   # what it says now
    assert not negation_invented("問題なし", "テストは全 pass、問題ありません。")    # the polite form said plainly
    assert not negation_invented("エラー結果はキャッシュしない", "エラー結果をキャッシュしません。")
    assert not negation_invented("キャッシュを使わない", "キャッシュを使いません。")    # another verb stem, negated
    assert negation_invented("キャッシュを使わない", "キャッシュを使います。")
    assert negation_invented("不要なファイルを削除", "必要なファイルを削除しました。")
    assert not negation_invented("未実装の機能", "その機能はまだ実装していない。")
    assert negation_invented("The team did not choose the yellow case", "The team chose the yellow case.")
    assert negation_invented("The remote has no screen", "The remote has a small screen.")
    # a negation dropped is mostly the same thing said another way: not refused
    assert not negation_invented("The PM would include them at a reasonable cost",
                                 "I think if we can include them at not too much extra cost, then I'd put them in,")
    assert not negation_invented("The case won't be yellow", "We decided the case will not be yellow.")


# The 1.5B model's rewordings in development runs, as it wrote them (engine/summary/evidence.py, above
# NEGATED_SCOPE_WORDS): what a sentence negated, said un-negated, and the same negation said another way.
INVERTED = [
    ("Mika: Morning. Priya says 13 goes out of support and she does not want to run an unsupported major on the "
     "billing cluster past the end of the year.",
     "Mika proposes moving the billing cluster past the end of the year due to a lack of support for 13"),
    ("Marketing: 'Cause you don't tend to get flat vegetables .", "Marketing states vegetables are flat"),
    ("Industrial Designer: So if if we use uh latex cases , they won't allow us to use solar cells , as an energy "
     "source that is the constraint ,", "Industrial Designer suggests using latex cases instead of solar cells"),
    ("User Interface: without titanium alloy , it's going to be light .",
     "User Interface suggests using titanium alloy for a lightweight UI"),
    ("User Interface: because it's uh otherwise people don't want to flip through all the channels .",
     "User Interface discusses flipping through channels with rubber construction"),
]
SAID_OTHERWISE = [
    ("Industrial Designer: I'm not sure it'll be a good idea to construct the whole thing out of rubber .",
     "Industrial Designer expresses uncertainty about rubber construction idea."),
    ("User Interface: N wood is I can't n how do you uh I mean you can't keep it really small uh",
     "User Interface: N wood is hard to keep small, they suggest channel numbers"),
    ("User Interface: Yeah , but you um I think for for the channel numb uh channel numbers you still need them , "
     "wouldn't you ?", "User Interface: Yes, but you still need channel numbers for the channel numbering system"),
    ("Marketing: Depends how fast your television runs , really , don't don't you think ?",
     "Marketing asks if the television runs fast enough"),
    ("Project Manager: I think if we can include them at not too much extra cost , then I'd put them in ,",
     "The PM would include them at a reasonable cost"),
    ("We decided the case will not be yellow.", "The case won't be yellow"),
]


def test_a_rewording_may_not_say_un_negated_what_its_sentence_negates():
    for sentence, point in INVERTED:
        assert point_supported(point, sentence), point       # the word checks let each through
        assert not negation_invented(point, sentence)        # ... and so did the check for a negation brought in
        assert negation_dropped(point, sentence), point
    for sentence, point in SAID_OTHERWISE:
        assert not negation_dropped(point, sentence), point


def test_a_rewording_may_not_turn_its_sentences_condition_around():
    sentence = ("If rsync fails for any reason, the fallback is pg_basebackup from the new primary, which at the "
                "measured 380 MB/s takes about 19 minutes for 418 GB per replica.")
    swapped = "Orin suggests using rsync as a fallback if pg_basebackup fails, taking about 19 minutes for 418 GB per replica"
    assert point_supported(swapped, sentence) and condition_swapped(swapped, sentence)
    assert not condition_swapped("Orin: pg_basebackup is the fallback if rsync fails, about 19 minutes per replica",
                                 sentence)
    assert not condition_swapped("A fallback to pg_basebackup takes about 19 minutes per replica", sentence)
    # the condition said first or last, with the same words on each side: as its sentence says it
    good = "Marketing: so it's quite good if you like searching quite a lot of stuff ."
    assert not condition_swapped("Marketing states it's quite good for searching if you like searching a lot", good)
    assert not condition_swapped("If he cooperates, Ching will answer questions",
                                 "If you'll cooperate, I'll tell Ching to answer your questions.")


def test_a_japanese_rewording_may_not_say_proposes_or_should_of_what_its_sentence_states():
    # the 1.5B model's rewordings of a development assembly's minutes and a day with an assistant
    stated = "都民の安全を顧みず、羽田新飛行ルートを推進している国の責任は重大です。"
    assert point_supported("羽田新飛行ルートの推進は国が安全を顧みずにすべきです。", stated)
    assert proposal_invented("羽田新飛行ルートの推進は国が安全を顧みずにすべきです。", stated)
    assert not proposal_invented("国は都民の安全を顧みず羽田新飛行ルートを推進している", stated)
    decided = "**レビュー指摘の反映**: 衝突リスクがあるため、実装では SHA-256 ハッシュを使用します。"
    assert proposal_invented("レビュー指摘の反映は SHA-256 ハッシュを使用する設計を提案", decided)
    assert not proposal_invented("実装では SHA-256 ハッシュを使用", decided)
    # a sentence that proposes, asks or needs may be noted as a proposal
    for proposing in ("キャッシュには SHA-256 ハッシュを使う方が安全です。", "SHA-256 ハッシュを使いませんか？",
                      "キャッシュキーは SHA-256 ハッシュにする必要があります。"):
        assert not proposal_invented("SHA-256 ハッシュの使用を提案", proposing), proposing


def test_a_rewording_may_not_give_a_reason_its_sentence_does_not():
    sentence = "User Interface: Then I'd put the LCD next to the wheel."      # the bundled SmolLM2's note of it
    invented = "User Interface proposes putting the LCD next to the wheel because it's a new design."
    assert reason_invented(invented, sentence)
    assert not reason_invented("User Interface would put the LCD next to the wheel.", sentence)
    # the 1.5B model's causes, each said by its sentence in other words
    for point, said in (("Industrial Designer mentions frequent use of email buttons due to boredom.",
                         "Industrial Designer: I find myself hitting the send and receive button on the email a lot , "
                         "just out of boredom ,"),
                        ("Half of the contacts with Childline are due to COVID-19",
                         "And, actually, about 50 per cent of contact with Childline at the moment is to do with "
                         "COVID-19."),
                        ("Grad A: Because the SUN blades are hard drives, they take up space",
                         "Cuz the SUN uh , these SUN - Blades take commodity hard drives .")):
        assert not reason_invented(point, said), point


def test_a_rewording_may_not_give_a_parenthesised_earlier_or_planned_value_as_the_sentences_own():
    sentence = "**Hypothesis 1**: キャッシュヒット時 <100ms (現状 1-3 秒)"
    assert point_supported("キャッシュヒット時 1-3 秒の遅延", sentence)           # every word is the sentence's
    assert qualifier_dropped("キャッシュヒット時 1-3 秒の遅延", sentence)
    assert not qualifier_dropped("キャッシュヒット時は 100ms 未満、現状は 1-3 秒", sentence)
    assert not qualifier_dropped("キャッシュヒット時 <100ms を目指す", sentence)
    revenue = "Revenue was $4.2 million (last year $3.1 million)."
    assert qualifier_dropped("Revenue was $3.1 million", revenue)
    assert not qualifier_dropped("Revenue was $4.2 million, up from $3.1 million last year", revenue)
    # a parenthesis that only adds detail: nothing to leave out
    assert not qualifier_dropped("The tax loss was $4 billion", "We incurred a tax loss (approximately $4 billion).")
    assert not qualifier_dropped("The store has 6 tests", "`store_test.go` (6 tests, SHA-256 keys)")


def test_a_rewording_may_not_state_flat_what_its_sentence_only_guesses():
    guess = ("My hypothesis: the period code compares a naive datetime with an aware one after normalising one "
             "side with the machine's local zone.")
    assert hedge_dropped("Orin normalizes the datetime before comparing it with an aware one.", guess)
    assert hedge_dropped("Orin mentions that comparing naive datetime with aware one requires normalizing one side",
                         guess)                                   # who says it is no stance
    assert not hedge_dropped("Orin suspects the period code compares a naive datetime with an aware one", guess)
    assert hedge_dropped("Industrial Designer explains double curved surfaces as the constraint",
                         "So probably double curved surface is the way to go , yeah , .")
    assert not hedge_dropped("Industrial Designer favours a double curved surface",
                             "So probably double curved surface is the way to go , yeah , .")
    assert not hedge_dropped("The team chose a double curved surface", "We chose a double curved surface .")
    # a month is no stance: "May" in capitals does not keep the guess
    assert hedge_dropped("The supplier delivers the cases in May", "I think the supplier delivers the cases in May .")
    assert not hedge_dropped("The supplier may deliver the cases in May",
                             "I think the supplier delivers the cases in May .")


def test_a_note_of_an_utterance_broken_off_may_not_make_up_its_end():
    # the 1.5B model's rewordings of development meetings' interrupted turns, as it wrote them
    made_up = [
        ("Project Manager: 'Cause we can't remove the push buttons 'cause they're",
         "Project Manager states they can't remove push buttons due to their importance"),
        ("Project Manager: um and we can't get rid of the uh I mean removing the",
         "Project Manager suggests removing the unnecessary item."),
        ("Industrial Designer: and since we're having L_C_D_s there there's no way that we're will be able to",
         "Industrial Designer suggests that LCDs will not be able to fit in the wheel"),
        ("Industrial Designer: the colour of our remote as such , you know , just keep it black , or",
         "Industrial Designer proposes using case colors instead of remote color")]
    fair = [
        ("Industrial Designer: So now we seem to have a consensus that L_C_D_s are definitely the way to go because "
         "of style and", "Industrial Designer proposes consensus on LCDs because of style and aesthetic."),
        ("Industrial Designer: Even we can provide many different colours or different fruits , and",
         "Industrial Designer: We can provide many different colors or fruits")]
    for quote, point in made_up:
        assert broken_off(quote) and completes_broken_off(point, quote, quote)
    for quote, point in fair:
        assert broken_off(quote) and not completes_broken_off(point, quote, quote)
    # a finished sentence may be said in other words: the check is for broken-off ones only
    finished = "Project Manager: We can't remove the push buttons , they're what people use most ."
    assert not broken_off(finished)
    assert not completes_broken_off("Project Manager keeps the push buttons due to their importance", finished,
                                    finished)
    assert not broken_off("Marketing: I think the push buttons and the rubber case stay in the design um")
    assert not broken_off("Industrial Designer: you can get the buttons printed in any colour you want to ,")


def test_a_question_is_not_said_as_a_claim():
    # the 1.5B model's rewordings of questions in development runs, as it wrote them
    said_flat = [
        ("Project Manager: Do you think these pens can give you cancer of the hand ?",
         "Project Manager: Pens could cause cancer of the hand"),
        ("Industrial Designer: What if you get a response two or three months from now ?",
         "Industrial Designer suggests waiting for a response two to three months"),
        ("User Interface: Any new ideas with regard to remote control concepts ?",
         "User Interface proposes remote control concepts"),
        ("How is life on Mars and Venus, and how long does it take to get to those places?",
         "Life on Mars and Venus unknown, time to Mars unknown")]
    for sentence, point in said_flat:
        assert question_dropped(point, sentence)
    asked = [("Project Manager: Do you think these pens can give you cancer of the hand ?",
              "Project Manager doubts pens can cause cancer of the hand"),
             ("User Interface: Any new ideas with regard to remote control concepts ?",
              "User Interface asks about remote control concepts"),
             ("Marketing: Is there enough room for creativity ?", "Marketing wonders whether there is room to create")]
    for sentence, point in asked:
        assert not question_dropped(point, sentence)
    # a question tag asks nothing: the sentence is a statement
    for sentence in ("User Interface: I think you still need the channel numbers , wouldn't you ?",
                     "Industrial Designer: the speaker is for the feedback , right ?",
                     "Project Manager: Plus the design round is still to come huh ?",
                     '"I really hit a semantic push-button there, didn\'t I?'):
        assert not question_dropped("The channel numbers and the speaker stay in the design round", sentence)
    # an exchange whose last turn asks: its note may say what the exchange settled
    assert not question_dropped("Marketing wants a yellow case", "Marketing: I want it yellow . / Project Manager: "
                                "Why not ?")
    # an exchange is told by the transcript's own labels, a parliament's too
    assert not question_dropped("Jenny Kwan wants the care homes named", "Ms. Jenny Kwan (Vancouver East, NDP): Four "
                                "homes . / Hon. Patty Hajdu (Minister of Health): Which homes ?")


def test_a_statement_is_not_reported_as_a_proposal():
    # the 1.5B model's rewordings in development runs, as it wrote them
    made_proposals = [
        ("Project Manager: Um and we've got a rubber skin material basically throughout .",
         "Project Manager proposes using rubber skin material throughout the project"),
        ("So it removes the first silent portion portion of each utterance .",
         "PhD C proposes removing the first silent portion of each utterance"),
        ("We've attempted to put an end to these contests altogether.", "They propose ending these contests altogether"),
        ("Um research shows that they like to have a little L_C_D_ screen on their on their uh zapping uh device .",
         "Marketing recommends a LCD screen on their zapping device for better user experience")]
    for sentence, point in made_proposals:
        assert proposal_invented(point, sentence)
    # the sentence proposes, wishes, needs, hedges or plans: the note may say so
    proposed = [
        ("Marketing: I think you should put more time in the in the design of uh pick up and use , than a manual .",
         "Marketing suggests adding more design time to the pick-up and use process"),
        ("Project Manager: Oh , we can put uh a hand dynamo and a battery if you want .",
         "Project Manager suggests using a hand dynamo and battery"),
        ("So , I think I will maybe train , like , gender - dependent models .",
         "PhD C proposes training gender-dependent models"),
        ("it's very important to first verify if it makes sense , if we have a chance to sell it .",
         "Marketing suggests verifying that the remote control can sell before producing it")]
    for sentence, point in proposed:
        assert not proposal_invented(point, sentence)
    # a note that reports without proposing is not this check's
    assert not proposal_invented("PhD C says the silent portion of each utterance is removed",
                                 "So it removes the first silent portion portion of each utterance .")


def test_a_proposal_the_sentence_does_not_make_is_said_plainly_in_its_tense():
    assert plainly_said("Marketing suggests the theme doesn't fit well") == "Marketing says the theme doesn't fit well"
    assert plainly_said("PhD C proposes removing the first silent portion") == \
        "PhD C mentions removing the first silent portion"
    assert plainly_said("Industrial Designer suggests double curved surfaces as the design option.") == \
        "Industrial Designer mentions double curved surfaces as the design option."
    assert plainly_said("They proposed that the budget is cut") == "They said that the budget is cut"
    assert plainly_said("Project Manager advises against interrupting the viewing") == \
        "Project Manager speaks against interrupting the viewing"
    assert plainly_said("Suggested fix: sort the refunds") == "Mentioned fix: sort the refunds"
    assert plainly_said("Marketing reports the survey") == "Marketing reports the survey"      # nothing to say plainly
    for sentence, point in [("Marketing: That doesn't fit in with the whole vegetable theme though .",
                             "Marketing suggests the theme doesn't fit the vegetable theme"),
                            ("So it removes the first silent portion portion of each utterance .",
                             "PhD C proposes removing the first silent portion of each utterance")]:
        assert proposal_invented(point, sentence) and not proposal_invented(plainly_said(point), sentence)


def test_a_name_the_model_miscased_is_spelled_as_the_sentence_spells_it():
    shown = "Vaughan Gething AM: It's difficult enough in terms of the challenge in terms of perinatal mental health."
    assert cased_as_shown("VAughan Gething AM discusses perinatal mental health", shown) == \
        "Vaughan Gething AM discusses perinatal mental health"
    # an acronym or a word the sentence does not have stays as written
    assert cased_as_shown("NHs and PHd students", "The NHS helps.") == "NHS and PHd students"
    assert cased_as_shown("PHP is used", shown) == "PHP is used"


def test_a_rewording_that_says_the_same_words_twice_ran_on():
    assert says_twice("The volume snapshot is copy-on-write, starting near zero and growing with changed blocks as "
                      "it grows with changed blocks.")
    assert not says_twice("The volume snapshot is copy-on-write: it starts near zero and grows with changed blocks.")
    assert not says_twice("Marketing says it is in the case and it is in the box")      # small words only


def test_the_english_checks_pass_a_japanese_rewording_they_cannot_read():
    # an English review quoted in a Japanese session, said in Japanese: its hedge and negation are Japanese
    sentence = "The filename rule might not be one-to-one, so distinct valid targets can overwrite cache entries."
    said = "ファイル名の規則は一対一ではない可能性があり、valid targets が cache entries を上書きしうる"
    assert not hedge_dropped(said, sentence) and not negation_dropped(said, sentence)
    assert hedge_dropped("Distinct valid targets overwrite cache entries", sentence)
    assert not condition_swapped("rsync が失敗したら pg_basebackup を使う", "If rsync fails, the fallback is pg_basebackup.")


def test_a_rewording_names_whom_its_sentence_reports():
    sentence = INVERTED[0][0]
    assert reporters_dropped(INVERTED[0][1], sentence) == ["Priya"]
    assert reporters_dropped("Priya wants PostgreSQL 13 off the billing cluster by the end of the year",
                             sentence) == []
    assert reporters_dropped("Swarts says to get going.", '"Come on," Swarts said patiently, "let\'s get going.') == []
    assert reporters_dropped("He agrees", '"Yes," said Jacobs.') == ["Jacobs"]
    # a speaker's label names the speaker, not someone reported; a role is named by its words
    assert reporters_dropped("The team keeps the yellow case", "Marketing: We keep the yellow case .") == []
    assert reporters_dropped("The manager wants a yellow case", "Then Project Manager said it must be yellow.") == []
    assert reporters_dropped("Everyone agrees", "Everyone says yes.") == []


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=300))
def test_normalised_offsets_always_point_into_the_text(text):
    n = normalise(text)
    assert len(n.index) == len(n.text)
    assert all(0 <= i < len(text) for i in n.index)
    assert all(text[i].lower() == c for c, i in zip(n.text, n.index) if c != " ")


def test_repeats_are_the_same_span_or_the_same_point_with_the_same_numbers():
    a = Note(1, "The LCD costs 12 euros", "The LCD costs 12 Euros", "m", 0, 100, 125)
    same_span = Note(2, "Marketing finds the LCD expensive", "LCD costs 12 Euros", "m", 0, 104, 125)
    other_number = Note(3, "The LCD costs 14 euros", "x", "m", 1, 900, 930)
    reworded = Note(4, "The LCD costs 12 euros.", "x", "m", 1, 900, 930)
    assert is_repeat(same_span, [a]) and is_repeat(reworded, [a])
    assert not is_repeat(other_number, [a])


def test_scaffolding_is_stripped_and_content_kept():
    reply = ("The existing summary is: (none yet: this is the first part)\n"
             "Priya says the cluster has one primary and two replicas.\n"
             "New content adds:\n- Mika will send the notice by Monday.\n</existing_summary>\n"
             "Do you want to add the additional details?\n## Decisions\n- Use a wind dynamo.")
    text, removed = strip_scaffold(reply)
    assert text.splitlines() == ["Priya says the cluster has one primary and two replicas.",
                                 "- Mika will send the notice by Monday.", "## Decisions", "- Use a wind dynamo."]
    assert len(removed) == 4 and scaffold_lines(text) == []
    assert not scaffold_lines("- The new part is made of rubber, and the case is a new design.")
    # a prompt label as a heading, no colon (a rolling summary of a development log began so)
    assert strip_scaffold("### New Content\n\n#### Area 1: Documentation\n- FAQ.md updated")[1] == ["### New Content"]
    assert not scaffold_lines("## New content management system")


def test_a_sentence_whose_subject_is_the_prompts_content_tag_keeps_its_content():
    """What map-reduce and rolling wrote of a development story: the content is the story's, only the
    subject names the prompt's "new content" tag (the harness counted it as a scaffold line)."""
    reply = ("The new content provides a detailed description of the alien prison where Maitland was abducted. "
             "It describes the room.\n- Marketing wants the new content for the website.")
    text, removed = strip_scaffold(reply)
    assert text.splitlines()[0] == ("The text provides a detailed description of the alien prison where Maitland "
                                    "was abducted. It describes the room.")
    assert "new content for the website" in text and not removed          # not a tag where no verb describes
    assert "new content" not in text.splitlines()[0]


def test_a_reply_in_another_script_than_the_document_is_wrong():
    japanese = "予算は1,200万円です。会議は金曜日に延期されました。リリースは来週で、担当は田中さんです。"
    english = "The budget is 12 million yen. The meeting moved to Friday, and the release is next week."
    assert wrong_language(english, japanese, None)
    assert not wrong_language(japanese, japanese, None)
    assert wrong_language(japanese, english, "English") and not wrong_language(english, japanese, "English")
    # a note or a heading is short: judged when its script is plain, left alone when it is mixed
    commit = "Windows のビルドにアーキテクチャを追加する"
    assert wrong_language("The Windows build gets an architecture", commit, None)
    assert wrong_language("SDL Usage for Windows", "x", "Japanese") and not wrong_language("SDL と Windows", "x", "ja")
    assert not wrong_language("Windows 版", commit, None)                   # too little to tell
    assert named_language(japanese) == "Japanese" and named_language(english) is None


def test_japanese_asked_for_and_chinese_written_is_the_wrong_language():
    # the 1.5B model's notes and headings of a development novel (Night on the Galactic Railroad)
    sentence = "するとどこかで、ふしぎな声が、銀河ステーション、銀河ステーションと言う声がしたと思うと、眼の前が明るくなった。"
    assert wrong_language("银河ステーションでふしぎな声を聞くと明るくなる", sentence, "Japanese")
    assert not wrong_language("銀河ステーションでふしぎな声を聞くと明るくなる", sentence, "Japanese")
    notes = "「切符を拝見いたします」三人の席の横に、赤い帽子をかぶったせいの高い車掌が立っていて言いました。"
    note = Note(1, "赤い帽子の車掌が切符を拝見", notes, "d", 0, 0, len(notes))
    assert "wrong_language" in heading_problems("## 车掌的红帽子と捕食行为\n", [note], "Japanese")[1]
    assert "wrong_language" not in heading_problems("## 車掌の赤い帽子と切符\n", [note], "Japanese")[1]
    assert heading_problems("## 車掌が切符を拝見しました。\n", [note], "Japanese")[0] == "車掌が切符を拝見しました"
    # simplified forms Japanese writes too, and a rare kanji the source itself holds, are Japanese
    assert not wrong_language("次のステップは厨房の準備を実装計画に分解", "厨房の準備", "Japanese")
    assert not wrong_language("鹺の漁を手伝う", "鹺の漁を手伝うことにした。", "Japanese")
    assert wrong_language("鹺をつかまえて包んだ", "鷺をつかまえてせいせいしたとよろこんだ。", "Japanese")
    # not asked for Japanese: a Chinese summary of a Chinese text is not judged by it
    assert not wrong_language("银河铁道之夜的故事", "银河铁道之夜", None)


def test_the_rewording_grammar_bounds_every_repetition_and_numbers_each_line():
    grammar = reword_grammar(3)
    assert grammar.splitlines()[0] == "root ::= line1 line2 line3"         # exactly three lines, in order
    assert 'line2 ::= "[2] " point' in grammar and f"pchar{{{POINT_CHARS[0]},{POINT_CHARS[1]}}}" in grammar
    assert "*" not in grammar and "+" not in grammar                 # nothing unbounded


def test_a_transcripts_spelled_numbers_support_a_notes_digits():
    assert spelled_numbers("on a scale from one to seven, twenty-five euros, ninety nine") >= {"1", "7", "25", "99"}
    said = "Marketing: and together we evaluate it from one to seven ."
    assert point_supported("Marketing evaluates it from 1 to 7", said)
    assert not point_supported("Marketing evaluates it from 1 to 8", said)
    # "point seven" is a decimal: the 1.5B model's "a time of 7:8 seconds" holds numbers the sentence has not
    guessed = "Professor B: I think it 's I would guess , uh , point seven , point eight seconds f uh , R T"
    assert spelled_numbers(guessed) == {"0.7", "0.8"}
    assert not numbers_held("Professor B suggests a time of 7:8 seconds for R T", guessed)
    assert numbers_held("Professor B guesses 0.7 or 0.8 seconds", guessed)
    # a year written short holds the year, in a point or a heading ("Fiscal Year 2021 Recap")
    assert point_supported("Shares were bought back in 2021", "We bought back shares in fiscal '21.")
    assert not point_supported("Shares were bought back in 2022", "We bought back shares in fiscal '21.")


def test_a_point_cut_mid_phrase_left_hanging_or_commented_on_is_unfinished():
    cut = "On a full-year basis, organic net sales increased materially compared to the previous year, adjusted " \
          "operating margin rose significantly, and adjusted"
    assert len(cut) == POINT_CHARS[1] and unfinished(cut)
    assert not unfinished(cut[:-len(", and adjusted")] + ".") and not unfinished("Organic net sales rose")
    assert unfinished("Marketing: Because I don't seem to be convinced,")
    assert unfinished("The commit 81c66d34 corrected the content of a")
    assert unfinished("Industrial Designer suggests new materials and s (likely referring to strawberries) are mentioned")
    assert unfinished("JetPack を 4.6 に変更し、")
    assert not unfinished("Ben prefers a rubber case (titanium costs too much)")
    assert not unfinished("The remote comes in a banana shape, as agreed")
    assert not unfinished("SDL を 2.0.20 に上げる")


def test_the_grammar_of_a_sentence_asked_alone_ends_with_its_first_sentence():
    from llama_cpp import LlamaGrammar
    gbnf = restate_grammar()
    LlamaGrammar.from_string(gbnf, verbose=False)          # llama.cpp accepts it
    char_class = gbnf.split("pchar ::= ", 1)[1]
    assert "[^\\n|\"<>\\[\\].!?。]" in char_class and '"." [0-9A-Za-z]' in char_class   # "$2.50" goes on
    assert f"pchar{{{POINT_CHARS[0]},{POINT_CHARS[1]}}} [.!?。]?" in gbnf


def test_a_rewording_is_one_statement_and_brings_in_no_name():
    assert first_sentence("Anna proposes new materials for the case. This is a short note in the same language") == \
        "Anna proposes new materials for the case."
    assert first_sentence("The budget is 12.50 euros per unit") == "The budget is 12.50 euros per unit"
    # a title's full stop ends no sentence: cut there, the note was "Hon."
    assert first_sentence("Hon. Patty Hajdu says seniors deserve dignity. This is a note.") == \
        "Hon. Patty Hajdu says seniors deserve dignity."
    assert first_sentence("Copy-Item のパスを修正。 (これも短い言葉で) ただし、この行は") == "Copy-Item のパスを修正。"
    assert first_sentence("M99 のビルドを修正 (これも短く)") == "M99 のビルドを修正"
    assert first_sentence("ハッシュキーを反映済み. これは main リポジトリで作成されました") == "ハッシュキーを反映済み."
    assert first_sentence("TTL は 0.5 日、キャッシュは v1.2 から") == "TTL は 0.5 日、キャッシュは v1.2 から"
    assert first_sentence("Venus was a morning star. (Venus is the morning star) (The sentence says") == \
        "Venus was a morning star."
    assert first_sentence("The budget is EUR 12 (VAT included) per unit") == "The budget is EUR 12 (VAT included) per unit"
    assert first_sentence("arm64 (aarch64) の設定を追加") == "arm64 (aarch64) の設定を追加"    # an aside of names stays
    part = "Dave: we invest in our brands to build stronger connections with consumers."
    assert invented_names("Ben invests in brands for consumers", part) == ["Ben"]
    assert invented_names("Dave invests in brands. Consumers matter", part) == []   # sentence starts are no names
    # the example's speaker as a rewording's subject: a word of the part, but no speaker of its sentence
    call = "Dave: we will stay focused on marketing and on the long-term priorities of our business."
    assert invented_names("Marketing plans to stay focused on long-term priorities", call) == []
    assert invented_names("Marketing plans to stay focused on long-term priorities", call, call) == ["Marketing"]
    meeting = "Marketing: I think the remote should be yellow."
    assert invented_names("Marketing wants a yellow remote", meeting, meeting) == []
    japanese = "営業部の鈴木: 納品は 5 月です。"
    assert invented_names("田中は納品を 5 月と報告", japanese) == ["田中"]   # the Japanese example's name
    assert invented_names("営業部の鈴木は納品を 5 月と報告", japanese) == []


def test_a_heading_must_rest_on_its_notes_words_and_script():
    notes = [Note(1, "Marketing proposes a titanium case for the remote", "we could do titanium", "d", 0, 0, 20)]
    assert heading_problems("## Titanium case for the remote\n", notes, None) == ("Titanium case for the remote", [])
    said = Note(9, "Industrial Designer: A titanium case for the remote.", "Industrial Designer: A titanium case "
                "for the remote.", "d", 0, 0, 51)
    assert "speaker" in heading_problems("## Industrial Designer\n", [said], None)[1]     # a name, no topic
    # "vs." ends no sentence, and a cut heading never ends on it (final16: "... Remote Control Concepts vs")
    assert heading_problems("## Titanium Case vs. Rubber Case for the Remote\n", notes, None)[0] == \
        "Titanium Case vs. Rubber Case for the Remote"
    long = "## Titanium Case Decision: Titanium Case for the Remote vs. Rubber Case Input"
    assert heading_problems(long + "\n", notes, None)[0] == "Titanium Case Decision: Titanium Case for the Remote"
    assert "unsupported" in heading_problems("## Quarterly earnings outlook\n", notes, None)[1]
    assert "unsupported" in heading_problems("## Titanium case for the remote, release 14.5\n", notes, None)[1]
    assert "wrong_language" in heading_problems("## Titanium case 蔬菜\n", notes, None)[1]
    assert heading_problems("Here is a heading for you", notes, None)[1] == ["no_heading", "scaffold"]
    assert heading_problems("Titanium case for the remote", notes, None)[1] == ["no_heading"]
    long = "Titanium case for the remote, with a jog wheel for the remote and a titanium shell for the remote"
    cut = long[:HEADING_CHARS[1]]                                      # stopped by the grammar mid-word
    assert cut.endswith("titanium she")
    heading, problems = heading_problems(f"## {cut}\n", notes, None)
    assert problems == [] and heading == "Titanium case for the remote, with a jog wheel"    # its main phrases


def test_a_long_heading_is_cut_where_its_main_phrase_ends_never_on_a_connecting_word():
    from precis.engine.summary.writing import HEADING_SHOWN_CHARS, shorter_heading
    written = {   # the 1.5B model's headings on development meetings, asked for at most 6 words
        "Location System Prototype Evaluation and Nickname Proposal for Remote Controls":
            "Location System Prototype Evaluation",
        "Project Management: Discussing Remote Control Concepts with Marketing Expert":
            "Project Management: Discussing Remote Control Concepts",
        "Financial Guidance Update Based on Release and Market Conditions":
            "Financial Guidance Update Based on Release",
        "Robert Lee Maitland's Strange Encounter and Accusation in the Dark Room (Part":
            "Robert Lee Maitland's Strange Encounter and Accusation",
        "Remote control prototype evaluation of the different materials of the case":
            "Remote control prototype evaluation",
        "Titanium case for the remote": "Titanium case for the remote",
        "Project Management Decision: Remote Control Concepts vs Marketing Expert Input":
            "Project Management Decision: Remote Control Concepts",
        "ビルドの修正とCLI11_HAS_FILESYSTEMの追加とWindowsのビルドにアーキテクチャを追加":
            "ビルドの修正とCLI11_HAS_FILESYSTEMの追加とWindowsのビルドにアーキテクチャを追加",
    }
    for heading, shown in written.items():
        assert shorter_heading(heading) == shown and len(shown) <= max(HEADING_SHOWN_CHARS, len(heading) * (" " not in heading))


def test_a_japanese_heading_says_and_in_japanese_and_is_cut_at_its_list():
    """The 1.5B model's headings of the development project logs: Chinese "与" for "and", and a topic
    followed by the list of everything in it."""
    from precis.engine.summary.writing import JA_HEADING_SHOWN_CHARS, shorter_heading
    written = {
        "コマンドの変更与 setup-python の削除": "コマンドの変更と setup-python の削除",
        "Sora Labo データベースの更新与拡張": "Sora Labo データベースの更新と拡張",
        "装置の更新与修正：AV1 デコーダ追加、タイポ修正、VPL 初期化修正、カメラ管理設定、DMA とメモ": "装置の更新と修正",
        "C++ 版本更新と Boost 更新": "C++ バージョン更新と Boost 更新",
        "権限の付与と寄与度の分析": "権限の付与と寄与度の分析",            # Japanese words with the kanji stay
        "H264 デコーダーの動いてそうな雰囲気になった": "H264 デコーダーの動いてそうな雰囲気になった",
        # a colon inside a code span is no phrase break (a development session's heading was cut to "`/kitchen")
        "`/kitchen:order`でEpic Issueを作成するステップ": "`/kitchen:order`でEpic Issueを作成するステップ",
        "`/kitchen:order`で作成、PR マージ後に Epic Issue を作るステップ": "`/kitchen:order`で作成",
    }
    for heading, shown in written.items():
        assert shorter_heading(heading) == shown and len(shown) <= max(JA_HEADING_SHOWN_CHARS, len(heading))


def test_the_last_line_of_a_reply_that_ran_out_of_tokens_is_no_answer():
    from precis.engine.runtime.protocol import CallStats
    from precis.engine.summary.strategies.base import CallResult
    raw = "[1] The team chose a wind dynamo\n[2] Marketing finds the LCD too expensive for the"
    stopped = CallStats()
    stopped.stopped_by = "max_tokens"
    assert numbered_answers(CallResult(raw, raw, stopped, 1.0), 3) == ["The team chose a wind dynamo", "", ""]
    ended = CallStats()
    ended.stopped_by = "eos"
    assert numbered_answers(CallResult(raw, raw, ended, 1.0), 2)[1] == "Marketing finds the LCD too expensive for the"
