"""Points held to their sentence, repeats, scaffolding, language, the notes' grammars. Each named check's own
cases are its examples in the registry (tests/engine/test_checks.py); these are how the pieces meet."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from precis.engine.prompts.notes import (
    HEADING_CHARS,
    POINT_CHARS,
    restate_grammar,
    reword_grammar,
)
from precis.engine.summary.checks import REWORDING, judge, rewording_claim
from precis.engine.summary.checks.conditions import ending_invented, without_invented_ending
from precis.engine.summary.checks.grounding import broken_off
from precis.engine.summary.checks.negation import INVERTED
from precis.engine.summary.checks.stance import (
    act_said_plainly,
    act_unsaid,
    plainly_said,
    proposal_invented,
    proposal_unsaid,
)
from precis.engine.summary.evidence import Note, is_repeat, normalise, numbers_held, point_supported, spelled_numbers
from precis.engine.summary.language import named_language, wrong_language
from precis.engine.summary.notes_extraction import cased_as_shown, first_sentence, numbered_answers, said_plainly
from precis.engine.summary.scaffold import scaffold_lines, strip_scaffold
from precis.engine.summary.writing import heading_problems


def _judged(point: str, sentence: str, language: str | None = None) -> set[str]:
    return set(judge(rewording_claim(point, sentence, sentence, sentence, language), REWORDING).names)


def test_the_word_checks_let_an_inverted_rewording_through_and_negation_dropped_refuses_it():
    """Each of the 1.5B model's inversions keeps its sentence's numbers and most of its words, and brings in no
    negation: only the check for a negation dropped sees it (engine.summary.checks.negation)."""
    for sentence, point in INVERTED:
        refused = _judged(point, sentence)
        assert point_supported(point, sentence) and "words_not_held" not in refused, point
        assert "negation_invented" not in refused and "negation_dropped" in refused, point


def test_an_utterance_broken_off_is_told_from_a_finished_one():
    for quote in ("Project Manager: 'Cause we can't remove the push buttons 'cause they're",
                  "Industrial Designer: Even we can provide many different colours or different fruits , and",
                  "Industrial Designer: and since we're having L_C_D_s there there's no way that we're will be able to"):
        assert broken_off(quote), quote
    for quote in ("Project Manager: We can't remove the push buttons , they're what people use most .",
                  "Marketing: I think the push buttons and the rubber case stay in the design um",
                  "Industrial Designer: you can get the buttons printed in any colour you want to ,"):
        assert not broken_off(quote), quote


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


def test_an_act_the_sentence_does_not_name_is_said_plainly_and_one_it_names_stays():
    # check-half meetings' notes, labelled unfaithful for the act ("he confirms nothing", "she does not announce it")
    college = "Llyr Gruffydd AM: One college was saying it will cost them £1 million if it happens next year."
    assert said_plainly("Llyr Gruffydd AM confirms that one college will cost £1 million", college) == \
        "Llyr Gruffydd AM says that one college will cost £1 million"
    cited = "Michelle Brown AM: Welsh universities have declared £104 million towards equality activity for 2018."
    assert said_plainly("Michelle Brown AM announces Welsh universities' £104 million", cited) == \
        "Michelle Brown AM mentions Welsh universities' £104 million"
    solutions = "Grad A: Well , I mean there are lots of long term solutions ."
    assert said_plainly("Grad A emphasizes the long-term solutions", solutions) == "Grad A mentions the long-term solutions"
    assert said_plainly("Grad A agrees with long-term solutions", solutions) == "Grad A mentions long-term solutions"
    assert said_plainly("PhD D agreed, and suggested new disks", "PhD D: we need new disks .") == \
        "PhD D suggested new disks"
    assert said_plainly("Grad A confirms the back-end works", "Grad A: So the back-end works now .") == \
        "Grad A mentions the back-end works"
    # named in so many words: the act stays
    for point, sentence in [("Marketing emphasizes big buttons", "Marketing: It's really important to make big buttons ."),
                            ("Grad F agrees to the plan", "Grad F: I agree , let's do it ."),
                            ("The company announced a $0.25 dividend", "We announced a quarterly dividend of $0.25."),
                            ("Kirsty Williams AM confirms the figure", "Kirsty Williams AM: That's right, 40 per cent.")]:
        assert act_unsaid(point, sentence) is False and said_plainly(point, sentence) == point, point
    # a word of the fact, not someone's act, stays
    for point in ("The drive to action is emphasized", "The team needs to agree on a budget",
                  "The region reports 5 confirmed cases", "Marketing says the plan was agreed"):
        assert said_plainly(point, "We have a plan with a budget and cases and drive.") == point, point
    # "agrees to" said plainly would be an order: it stays; Japanese is not read
    assert said_plainly("Industrial Designer agrees to change the settings", "the settings to change .") == \
        "Industrial Designer agrees to change the settings"
    assert act_said_plainly("営業は予算に同意") == "営業は予算に同意"
    assert said_plainly("Marketing suggests and emphasizes that the budget is fixed", "Marketing: the budget is fixed .") \
        == "Marketing says that the budget is fixed"


def test_an_ending_the_sentence_does_not_give_is_left_off_and_one_it_gives_stays():
    # check-half and tune-half meetings' notes, labelled unfaithful for their endings ("'for better user
    # experience' is an invented reason", "he never calls it a critical factor")
    lcd = "Marketing: Um research shows that they like to have a little L_C_D_ screen on their on their uh zapping uh device ."
    assert said_plainly("Marketing mentions a LCD screen on their zapping device for better user experience", lcd) == \
        "Marketing mentions a LCD screen on their zapping device"
    rover = "PhD D: Which u actually uses the whole N - best list from both systems to mmm , uh c combine that ."
    assert said_plainly("PhD D combines N-best lists from both systems to improve performance.", rover) == \
        "PhD D combines N-best lists from both systems."
    units = "Professor B: At least a couple thousand hidden units ."
    assert said_plainly("Professor B mentions a couple thousand hidden units as the main concern", units) == \
        "Professor B mentions a couple thousand hidden units"
    tower = "Grad E: The Powder - Tower is made of red limestone ."
    assert said_plainly("Grad E notes that the Powder-Tower is made of red limestone, which could affect delivery times",
                        tower) == "Grad E notes that the Powder-Tower is made of red limestone"
    # the speaker's label is not what was said: "Designer" holds no "design"
    sketch = "Industrial Designer: But it it would be pretty pretty uh nice if we could just draw a simple thing ."
    assert said_plainly("Industrial Designer suggests drawing a simple thing to improve the design", sketch) == \
        "Industrial Designer suggests drawing a simple thing"
    # an ending with a word of the sentence stays: the model said what the sentence says
    assert not ending_invented("Marketing mentions a LCD screen for zapping", lcd)
    assert not ending_invented("PhD D mentions the whole N-best list, which combines both systems", rover)
    # an ending the line needs stays: what it completes ("asks for"), a figure, or a clause of the line's own
    budget = "Mika: Can we have the budget by Friday ?"
    assert not ending_invented("Mika asks the team for the budget", budget)
    assert not ending_invented("Orin mentions a call centre for 1% of callers", "Orin: a call centre would help .")
    assert ending_invented("Orin mentions a call centre for some callers", "Orin: a call centre would help .")
    assert not ending_invented("PhD F got a note from Brian that the tape for the project was completed",
                               "PhD F: I got a note from Brian saying that they finally made the tape .")
    # a line left too short, a reason inside the line rather than at its end, and Japanese: left to the checks
    assert without_invented_ending("Mika agrees for cost reasons", budget) == "Mika agrees for cost reasons"
    assert without_invented_ending("Because of the cost, Mika wants the budget by Friday", budget) == \
        "Because of the cost, Mika wants the budget by Friday"
    assert without_invented_ending("予算は金曜日までに for better results", budget) == "予算は金曜日までに for better results"


def test_a_name_the_model_miscased_is_spelled_as_the_sentence_spells_it():
    shown = "Vaughan Gething AM: It's difficult enough in terms of the challenge in terms of perinatal mental health."
    assert cased_as_shown("VAughan Gething AM discusses perinatal mental health", shown) == \
        "Vaughan Gething AM discusses perinatal mental health"
    # an acronym or a word the sentence does not have stays as written
    assert cased_as_shown("NHs and PHd students", "The NHS helps.") == "NHS and PHd students"
    assert cased_as_shown("PHP is used", shown) == "PHP is used"


def test_the_english_checks_pass_a_japanese_rewording_they_cannot_read():
    # an English review quoted in a Japanese session, said in Japanese: its hedge and negation are Japanese
    sentence = "The filename rule might not be one-to-one, so distinct valid targets can overwrite cache entries."
    said = "ファイル名の規則は一対一ではない可能性があり、valid targets が cache entries を上書きしうる"
    assert not {"hedge_dropped", "negation_dropped"} & _judged(said, sentence, "Japanese")
    assert "hedge_dropped" in _judged("Distinct valid targets overwrite cache entries", sentence)
    # the language asked for does not decide it: a Japanese note of an English sentence is read as Japanese
    assert "condition_swapped" not in _judged("rsync が失敗したら pg_basebackup を使う",
                                              "If rsync fails, the fallback is pg_basebackup.")


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


def test_the_grammar_of_a_sentence_asked_alone_ends_with_its_first_sentence():
    from llama_cpp import LlamaGrammar
    gbnf = restate_grammar()
    LlamaGrammar.from_string(gbnf, verbose=False)          # llama.cpp accepts it
    char_class = gbnf.split("pchar ::= ", 1)[1]
    assert "[^\\n|\"<>\\[\\].!?。]" in char_class and '"." [0-9A-Za-z]' in char_class   # "$2.50" goes on
    assert f"pchar{{{POINT_CHARS[0]},{POINT_CHARS[1]}}} [.!?。]?" in gbnf


def test_a_rewording_is_one_statement():
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
    from precis.engine.summary.writing import HEADING_LONGEST_CHARS, shorter_heading
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
        # no phrase ends within the reading length: the first end after it, or the whole heading where it fits
        "Drilling efficiency improvements drive operator adoption and cost savings":
            "Drilling efficiency improvements drive operator adoption",
        "The captain reassures the crew that there is nothing to worry about":
            "The captain reassures the crew that there is nothing to worry about",
        "ビルドの修正とCLI11_HAS_FILESYSTEMの追加とWindowsのビルドにアーキテクチャを追加":
            "ビルドの修正とCLI11_HAS_FILESYSTEMの追加とWindowsのビルドにアーキテクチャを追加",
    }
    for heading, shown in written.items():
        assert shorter_heading(heading) == shown
        assert len(shown) <= max(HEADING_LONGEST_CHARS, len(heading) * (" " not in heading))


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


def test_the_notes_say_a_proposal_only_of_a_sentence_that_puts_it_forward_in_so_many_words():
    reported = "PhD F: She 's assigned , I think probably five or six more meetings ."
    # "I think", "probably": enough for the check not to refuse it, not enough for the notes to call it a proposal
    assert not proposal_invented("PhD F proposes five or six more meetings", reported)
    assert proposal_unsaid("PhD F proposes five or six more meetings", reported)
    assert said_plainly("PhD F proposes five or six more meetings", reported) == "PhD F mentions five or six more meetings"
    for sentence in ("Grad A: So I think we should edit it out as a post-process step .",
                     "Marketing: Let's move the launch to May .",
                     "Project Manager: How about a rubber case ?",
                     "Professor C: I suggest we start recording subjects within a month ."):
        assert not proposal_unsaid("Someone proposes it", sentence), sentence
        assert said_plainly("Someone proposes it", sentence) == "Someone proposes it"
    assert not proposal_unsaid("PhD F mentions five or six more meetings", reported)     # no proposal said
    assert not proposal_unsaid("営業は発売の 5 月延期を提案", "営業: 発売は 5 月です。")                  # English only
