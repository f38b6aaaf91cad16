"""Choosing a part's sentences by what they add (engine.summary.salience): no model involved."""
from __future__ import annotations

from precis.engine.documents.spoken_text import clean_utterance, said_alone, said_share, unspell
from precis.engine.summary.salience import (
    DocumentWeights,
    joined_letters,
    prose_language,
    select_sentences,
    sentences_of,
    subject_sentences,
    units_of,
)

MEETING = """Project Manager: Um so today we look at the remote control prototype and the budget.
Marketing: Yeah.
Industrial Designer: The prototype uses a titanium case and a rubber jog wheel for the remote control.
Marketing: I think the titanium case is too expensive for the budget, we should use plastic instead.
User Interface: The LCD screen shows the channel list and the remote control has two push buttons.
Industrial Designer: Okay.
Project Manager: The budget is 12.50 euros per remote control and the titanium case costs 4.20 euros.
Marketing: The LCD screen and the jog wheel make the remote control look modern and fancy.
"""


def test_sentences_carry_their_speaker_and_skip_fillers_and_banners():
    text = "=== Session 1 · 2026-11-27 11:00 · topic 1 ===\n" + MEETING
    found = sentences_of(text)
    assert all("Session 1" not in s.text for s in found)                  # a banner is structure
    assert all(s.text != "Marketing: Yeah." for s in found)                # a filler says nothing
    first = found[0]
    assert first.speaker == "Project Manager" and first.shown().startswith("Project Manager: Um so today")
    assert text[first.start:first.start + len(first.text)] == first.text


def test_a_sentence_inside_a_turn_keeps_words_that_look_like_a_label():
    # the sample day's: taken for a speaker's label, "My hypothesis:" was cut from what the model was
    # shown, and the hypothesis came back as a fact ("Orin normalizes the datetime before comparing it")
    text = ("[09:07] Orin: I looked at the failing reconciliation test on the billing branch. "
            "My hypothesis: the period code compares a naive datetime with an aware one.\n"
            "Decision: the window is Saturday 2026-12-05 from 02:00 to 04:00 UTC.\n"
            "- Priya Raman: rehearse the upgrade on staging by Wednesday.\n")
    found = {s.text.split(":")[0]: s for s in sentences_of(text)}
    guess = found["My hypothesis"]
    assert not guess.opens_line and guess.speaker == "[09:07] Orin"
    assert guess.shown() == "[09:07] Orin: My hypothesis: the period code compares a naive datetime with an aware one."
    assert guess.said().startswith("Orin: My hypothesis: ")          # who said it, without the time
    assert found["Priya Raman"].said().startswith("Priya Raman: rehearse")  # an assignee, not a speaker
    opening = found["[09"]                                                  # a label where a line opens
    assert opening.opens_line
    assert opening.shown() == "[09:07] Orin: I looked at the failing reconciliation test on the billing branch."
    assert opening.said() == "Orin: I looked at the failing reconciliation test on the billing branch."


def test_the_sentence_that_adds_the_most_new_weight_is_chosen_first_and_the_budget_holds():
    weights = DocumentWeights(MEETING)
    covered: set[str] = set()
    one = select_sentences(MEETING, weights, covered, budget_chars=10, max_sentences=5)
    assert len(one) == 1                                  # the first always fits, nothing after it does
    assert covered == set(one[0].units)
    two = select_sentences(MEETING, weights, covered, budget_chars=400, max_sentences=5)
    assert one[0] not in two                              # what is covered adds nothing the second time
    assert sum(s.reading_chars for s in two) <= 400
    assert [s.start for s in two] == sorted(s.start for s in two)          # in the part's order


def test_numbers_are_facts_even_when_said_once_and_a_part_with_nothing_new_still_gives_a_sentence():
    assert "#12.50" in units_of("The budget is 12.50 euros") and "#3" not in units_of("point 3 of the plan")
    weights = DocumentWeights(MEETING)
    covered: set[str] = set()
    chosen = select_sentences(MEETING, weights, covered, budget_chars=2000, max_sentences=10)
    assert any("12.50" in s.text for s in chosen)
    again = select_sentences(MEETING, weights, covered, budget_chars=2000, max_sentences=10)
    assert len(again) == 1                                # no part is lost, even when it says nothing new


def test_japanese_is_weighed_by_its_kanji_and_katakana_words_not_its_grammar():
    text = "予算は千二百万円で、田中さんが来週までに承認します。\n会議は金曜日に延期されました、予算の承認は田中さんです。\n"
    units = units_of("予算は千二百万円で、田中さんが来週までに承認します。")
    assert {"予算", "承認", "田中", "来週"} <= units
    assert not {"します", "まで", "さん"} & units                       # hiragana is grammar
    assert units_of("SDL のビルド定義を修正") == {"sdl", "ビルド", "定義", "修正"}   # Latin words in Japanese count
    chosen = select_sentences(text, DocumentWeights(text), set(), budget_chars=200, max_sentences=3)
    assert chosen and all(s.units for s in chosen)


def test_what_a_tool_wrote_is_never_chosen():
    log = ("Fix the green line when Simulcast is received with SDL on Jetson boards.\n"
           "src/rtc/screen_video_capturer.cpp | 2 +-\n"
           "2 files changed, 12 insertions(+), 17 deletions(-)\n"
           "update-type: version-update:semver-minor\n"
           "  - dependency-name: actions/create-release\n"
           "build/{windows => windows_x86_64}/install_deps.ps1 | 0\n"
           "Signed-off-by: dependabot[bot] <support@github.com>\n"
           "- [Commits](https://github.com/actions/upload-release-asset/compare/v1.0.1...v1.0.2)\n")
    assert [s.text for s in sentences_of(log)] == \
        ["Fix the green line when Simulcast is received with SDL on Jetson boards."]


def test_an_articles_example_code_is_no_sentence_but_a_setting_it_explains_is():
    # a seed article saved as text, its code blocks unfenced
    article = ("まずmap-reduceのような単純な構成で基準線を作り、評価セットで測りながら一要素ずつ変えていく。\n"
               'MAP_PROMPT = """以下は議事録の一部です。\n'
               'llm = ChatOpenAI(model="gpt-4o", temperature=0)\n'
               'config = {"configurable": {"thread_id": "user-session-abc123"}}\n'
               "loop_count = 25: covers approximately 300k characters, enough for the largest daily volume.\n")
    assert [s.text for s in sentences_of(article)] == [
        "まずmap-reduceのような単純な構成で基準線を作り、評価セットで測りながら一要素ずつ変えていく。",
        "loop_count = 25: covers approximately 300k characters, enough for the largest daily volume."]


SESSION = """[user] <command-message>kitchen:prep</command-message>
<command-name>/kitchen:prep</command-name>

[user] # Prep Command

You are a planning and decomposition specialist who turns feature specs into actionable implementation plans.
Always ask for user confirmation before generating files, and read the existing code before asking questions.
Create task-level items for each phase of the implementation plan and keep the TODO list in tasks/todo.md.

[assistant] 実装計画を作成する前に、既存のキャッシュ設計を確認します。

[tool_call] Read: {"file_path": "docs/specs/cache/scope.md"}

[tool_result] 1→# Scope: Disk Cache
2→
3→- In Scope: a disk cache under the user cache directory with a TTL of 24 hours for every provider.
4→- Out of Scope: an in-memory cache, a per-provider TTL and LRU eviction of old entries.

[assistant] キャッシュキーは SHA-256 のハッシュにして、TTL は 24 時間で実装計画を 5 つのタスクに分けました。

[user] LRU eviction はスコープ外のままで、キャッシュの削除は遅延削除にしてください。
"""


def test_a_chat_transcripts_sentences_are_its_peoples_own_words_in_any_part():
    found = [s.text for s in sentences_of(SESSION)]
    assert found == ["実装計画を作成する前に、既存のキャッシュ設計を確認します。",
                     "キャッシュキーは SHA-256 のハッシュにして、TTL は 24 時間で実装計画を 5 つのタスクに分けました。",
                     "LRU eviction はスコープ外のままで、キャッシュの削除は遅延削除にしてください。"]
    # the English command prompt and the file a tool read are most of its letters: not its language
    assert prose_language(SESSION) == "Japanese"
    weights = DocumentWeights(SESSION)
    start = SESSION.index("3→- In Scope")                      # a part that starts inside the tool's output
    part = SESSION[start:]
    assert [s.text for s in weights.sentences_in(part, start)] == found[1:]
    assert any("In Scope" in s.text for s in sentences_of(part))   # on its own it cannot tell


def test_markdowns_bold_marks_are_not_shown_nor_kept_in_a_verbatim_point():
    said = "**次のステップ**: エンジニアが `/kitchen:recipe #10` を実行して、要件定義に進めます。"
    sentence = sentences_of(f"[assistant] {said}\n\n" * 4)[0]
    assert sentence.text == said                                   # the quote stays verbatim
    assert sentence.shown().startswith("次のステップ: エンジニアが `/kitchen:recipe #10`")
    assert clean_utterance(said).startswith("次のステップ: ") and clean_utterance("a **b** in __init__") == "a b in __init__"
    # the sentence after a bold one that ends with its full stop starts with the closing mark
    told = "[assistant] **Epic #10 完了。** ロードマップ上の次は P3 (registries: crates / PyPI / Go modules) です。\n\n"
    after = [s for s in sentences_of(told * 4) if "P3" in s.text][0]
    assert after.text.startswith("** ")
    assert clean_utterance(after.text) == after.shown() == "ロードマップ上の次は P3 (registries: crates / PyPI / Go modules) です。"
    assert clean_utterance("2 ** 8 is 256") == "2 ** 8 is 256"                     # no bold mark at either end


def test_a_tables_row_taken_verbatim_reads_as_a_line():
    assert clean_utterance("| npm 2回目 (HIT) | **0.026s** | キャッシュから即応答 |") == "npm 2回目 (HIT): 0.026s、キャッシュから即応答"
    assert clean_utterance("| `npm:react` (JSON) | weekly_downloads: 95M, v19.2.4, MIT |") == \
        "`npm:react` (JSON): weekly_downloads: 95M, v19.2.4, MIT"
    assert clean_utterance("| Revenue | $4.5 billion | up 3% |") == "Revenue: $4.5 billion, up 3%"
    assert clean_utterance("Use a | b to pipe, as in `ls | wc`.") == "Use a | b to pipe, as in `ls | wc`."


def test_a_list_items_marker_is_not_part_of_its_sentence():
    text = "FAQ.md に記載を追加\n- Windows での SDL の利用についての記載を H.264 の記載に修正しました。\n"
    found = [s for s in sentences_of(text) if "SDL" in s.text]
    assert found and found[0].text.startswith("Windows での SDL")
    assert text[found[0].start:found[0].start + len(found[0].text)] == found[0].text


GIT_LOG = "".join(
    f"commit {sha}\nAuthor: {who}\nDate:   2021-12-29 05:38:27 +0000\n\n    {subject}\n\n    {body}\n\n"
    f" src/{sha}.cpp | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n"
    for sha, who, subject, body in [
        ("1a2b3c4d", "tnoho", "JetPack を 4.6 に変更", "- ビルド設定の JetPack のバージョンを 4.6 に変更しました"),
        ("5e6f7a8b", "voluntas", "SDL を 2.0.20 に上げる", "- SDL のバージョンを上げました"),
        ("9c0d1e2f", "torikizi", "1.1", "- バージョン番号を更新しました"),
        ("0a1b2c3d", "voluntas", "RaspberryPi OS bullseye 対応", "- bullseye 向けのビルドを追加しました"),
    ])


def test_a_git_logs_sentences_are_its_commit_subjects_and_a_word_one_commit_says_weighs():
    subjects = subject_sentences(GIT_LOG)
    assert [s.text for s in subjects] == ["JetPack を 4.6 に変更", "SDL を 2.0.20 に上げる",
                                          "RaspberryPi OS bullseye 対応"]           # "1.1" says nothing
    assert all(GIT_LOG[s.start:s.start + len(s.text)] == s.text for s in subjects)
    weights = DocumentWeights(GIT_LOG)
    assert weights.weight("bullseye") > 0                   # in a log, what one commit changed is a fact
    assert DocumentWeights(MEETING).weight("fancy") == 0    # in a meeting, a word said once is not
    chosen = select_sentences(GIT_LOG, weights, set(), budget_chars=40, max_sentences=8, candidates=subjects)
    assert chosen and all(c in subjects for c in chosen) and sum(c.reading_chars for c in chosen) <= 40
    assert subject_sentences(MEETING) == []


def test_letters_a_transcript_spells_out_are_shown_and_cleaned_as_the_word():
    text = "Industrial Designer: We can use the L_C_D_ screen and put A_ or B_ on the my_var_ button in T_V_ mode.\n"
    sentence = sentences_of(text)[0]
    assert sentence.shown() == "Industrial Designer: We can use the LCD screen and put A or B on the my_var_ button in TV mode."
    assert "L_C_D_" in sentence.text                          # the quote stays the transcript's own text
    assert unspell("a_b_c and X_Y_Z") == "a_b_c and X_Y_Z"     # identifiers are not spelled letters
    assert joined_letters("It is impossible with L_C_Ds or two L_C_D_s, not L_C_D_sx") == \
        "It is impossible with LCDs or two LCDs, not L_C_D_sx"  # as the model writes a spelled plural


QUOTATION = """Project Manager: So the price of the whole thing is here .
Marketing: Titanium ?
User Interface: Mm-hmm .
Marketing: That's expensive .
Project Manager: But she wanted the titanium .
Industrial Designer: One scroll wheel .
Marketing: Okay .
Industrial Designer: The prototype uses a titanium case and a rubber jog wheel for the remote control .
Marketing: Yeah .
Project Manager: Seventeen dollars .
Marketing: Too much .
"""


def test_short_turns_in_a_row_are_taken_together_as_one_exchange_that_quotes_the_transcript():
    """A meeting says much in short turns, none long enough to note alone: together they say that the
    titanium the designer wanted is expensive. A long sentence ends an exchange; fillers do not."""
    found = sentences_of(QUOTATION)
    exchanges = [s for s in found if s.turns]
    # the last two turns say too few words to be worth a note even together
    assert len(exchanges) == 1 and len(found) == 2 and not any("Seventeen" in s.text for s in found)
    first, second = exchanges[0], found[1]
    assert first.shown() == ("Project Manager: So the price of the whole thing is here. / Marketing: Titanium? / "
                             "Marketing: That's expensive. / Project Manager: But she wanted the titanium. / "
                             "Industrial Designer: One scroll wheel.")
    assert first.said() == first.shown() and "Mm-hmm" not in first.shown()          # fillers left out
    assert QUOTATION[first.start:first.start + len(first.text)] == first.text        # the verbatim quote
    assert first.text.startswith("Project Manager: So the price") and first.text.endswith("One scroll wheel .")
    assert second.text.startswith("Industrial Designer: The prototype") and not second.turns
    # a lone short turn is no exchange, nor are short sentences outside a transcript
    assert not [s for s in sentences_of("Marketing: That's expensive titanium .\n") if s.turns]
    assert not [s for s in sentences_of("That's expensive. But she wanted the titanium. One scroll wheel.\n")
                if s.turns]
    # chosen like any sentence, for what it adds ("expensive" is said in the rest of the meeting too)
    weights = DocumentWeights(MEETING + QUOTATION)
    chosen = select_sentences(QUOTATION, weights, set(), 400, 8)
    assert first in chosen and second in chosen


def test_a_meeting_transcripts_said_share_leaves_out_its_speaker_labels_and_fillers():
    """What a meeting said is what its summary's length follows: QUOTATION is mostly labels and fillers."""
    lines = [ln for ln in QUOTATION.splitlines() if ln.strip()]
    share = said_share(QUOTATION)
    said = [said_alone(ln) for ln in lines]
    assert share == sum(len(s) for s in said if s not in ("Okay.", "Yeah.")) / sum(len(ln) for ln in lines)
    assert 0.3 < share < 0.6
    assert said_share(MEETING + MEETING) > share + 0.2                 # long sentences, few fillers
    filled = "".join(f"{ln}\nMarketing: Um , yeah .\nProject Manager: Mm-hmm . Okay .\n" for ln in lines)
    assert said_share(filled) < share * 0.75                           # the same words amid more fillers
    # not a meeting transcript: all of it counts
    assert said_share(QUOTATION.replace(": ", " said ")) == 1.0        # no labels
    assert said_share("Note: the budget is 12.50 euros.\nMarketing: Too much .\n") == 1.0   # two lines
    assert said_share(GIT_LOG * 3) == 1.0 and said_share(SESSION) == 1.0


# A Project Gutenberg story as SQuALITY ships it: wrapped at 72 columns, paragraphs indented, blank lines
# between them (three of the development corpus's five stories are)
WRAPPED_STORY = """  Retief altered course to the south. The blip followed.
~
  He checked instrument readings, gripped the controls, watching. This
was going to be tricky. The missile bored closer. At five miles Retief
threw the light skiff into maximum acceleration, straight toward the
oncoming bomb. Crushed back in the padded seat, he watched the screen,
correcting course minutely. The proximity fuse should be set for no
more than 1000 yards.
~
  At a combined speed of two miles per second, the skiff flashed past
the missile, and Retief was slammed violently against the restraining
harness in the concussion of the explosion ... a mile astern, and
harmless.
~
  Then the planetary surface was rushing up with frightening speed.
Retief shook his head, kicked in the emergency retro-drive. Points
of light arced up from the planet face below. If they were ordinary
chemical warheads the skiff's meteor screens should handle them.
""".replace("\n~\n", "\n \n")   # SQuALITY's blank lines hold a space


def test_a_hard_wrapped_story_gives_whole_sentences_at_their_offsets():
    found = sentences_of(WRAPPED_STORY)
    texts = [s.text for s in found]
    assert ("At five miles Retief threw the light skiff into maximum acceleration, straight toward the oncoming "
            "bomb.") in texts
    assert not any(t.endswith(("toward the", "for no")) for t in texts)       # no sentence cut at a line end
    for s in found:          # the quote is where the document has it, the line breaks read as spaces
        assert WRAPPED_STORY[s.start:s.start + len(s.text)].replace("\n", " ") == s.text
    # the paragraphs stay apart: no sentence runs from the end of one into the next
    assert not any("harmless. Then" in t or "followed. He" in t for t in texts)



PAUSED_STORY = (  # a check-half story's words, a paragraph a line
    "  Coughing, Retief disengaged himself from the shock-webbing. A wave of hot jungle air struck him. He lowered "
    "himself to a bed of shattered foliage, got to his feet ... and dropped flat as a bullet whined past his ear.\n"
    " \n"
    '  "I ... ah ... wish to request seventy-two hours in which to evacuate Headquarters," Nitworth plowed on. He '
    "lay listening... Then the jungle was quiet again around them, and nothing moved in the undergrowth.\n")


def test_a_pause_the_sentence_goes_on_after_in_lower_case_does_not_end_it():
    texts = [s.text for s in sentences_of(PAUSED_STORY)]
    assert ("He lowered himself to a bed of shattered foliage, got to his feet ... and dropped flat as a bullet "
            "whined past his ear.") in texts
    assert any(t.startswith('"I ... ah ... wish to request seventy-two hours') for t in texts)
    assert not any(t[:1].islower() for t in texts)                  # no sentence opens mid-way, without its doer
    # a pause before a capital ends its sentence as a full stop does
    assert "Then the jungle was quiet again around them, and nothing moved in the undergrowth." in texts


COMMITTEE = """Lynne Neagle AM: I think we'll move on to the next section.
Lynne Neagle AM: We're going to go on now to some questions about mental health from Siân Gwenllian.
Julie Morgan AM: One local authority reported a drop of 27 per cent in safeguarding referrals compared to last year.
Lynne Neagle AM: As usual, you will receive a transcript to check for accuracy following the meeting.
Julie Morgan AM: Moving on to perinatal mental health, this morning I hosted a round-table with the NSPCC where we heard about lots of good practice in health boards across Wales.
"""


def test_a_chairs_formulas_weigh_less_than_what_the_meeting_said():
    by_text = {s.body(): s for s in sentences_of(COMMITTEE)}
    formulas = ["I think we'll move on to the next section.",
                "We're going to go on now to some questions about mental health from Siân Gwenllian.",
                "As usual, you will receive a transcript to check for accuracy following the meeting."]
    for formula in formulas:
        assert by_text[formula].gain_factor < 1
    said = [s for s in by_text.values() if s.body() not in formulas]
    assert len(said) == 2 and all(s.gain_factor == 1 for s in said)      # a long sentence says more than its opening
    weights = DocumentWeights(COMMITTEE)
    chosen = select_sentences(COMMITTEE, weights, set(), 200, 2)
    assert not {s.body() for s in chosen} & set(formulas)


PARLIAMENT = """The Chair (Hon. Anthony Rota (Nipissing, Lib.)): We will now go to Ms. Kwan for the next round of questions.
Ms. Jenny Kwan (Vancouver East, NDP): Four of the care homes in my riding have reported cases of COVID-19 this week.
Hon. Patty Hajdu: Mr. Chair, what is happening to seniors in Ontario is completely unacceptable to this government.
"""


def test_a_parliaments_labels_and_titles_are_read_as_who_said_it():
    found = sentences_of(PARLIAMENT)
    assert [s.speaker for s in found] == ["The Chair (Hon. Anthony Rota (Nipissing, Lib.))",
                                          "Ms. Jenny Kwan (Vancouver East, NDP)", "Hon. Patty Hajdu"]
    # "Mr. Chair" and "Lib.)" end no sentence: each line is one, its label left out of what it said
    assert [s.body() for s in found] == [line.split("): ", 1)[-1].split("Hajdu: ")[-1]
                                         for line in PARLIAMENT.splitlines()]
    assert found[2].shown().startswith("Hon. Patty Hajdu: Mr. Chair, what is happening")


MINUTES = """議長（石川良一君）：これより本日の会議を開きます。
〔知事小池百合子君登壇〕
知事（小池百合子君）：和泉なおみ議員の代表質問にお答えをいたします。
　中国武漢市での感染拡大に端を発しました新型コロナウイルス感染症は、感染経路が明らかでない患者が多く発生している状況にあります。
　都は、区市町村のサービス見込み量等を踏まえまして、特別養護老人ホーム等の整備目標を定めております。
百二十七番（和泉なおみ君）：横田基地及び基地周辺の深刻な環境汚染を知事はどう認識し、対応するのですか。
"""


def test_a_japanese_assemblys_turn_is_its_speakers_over_every_paragraph():
    long = [s for s in sentences_of(MINUTES) if not s.turns]
    # a member by name, as the members call each other, an official by role; not the seat nor the honorific
    assert [s.speaker for s in long] == ["知事", "知事", "和泉なおみ議員"]
    assert long[0].shown().startswith("知事: 中国武漢市")
    assert long[2].said().startswith("和泉なおみ議員: 横田基地")
    assert long[2].body().startswith("横田基地")                         # the label is not what was said
    # a paragraph after a line of no one's (a heading, a stage direction) is no one's
    assert all(s.speaker == "" for s in sentences_of("〔休憩〕\n　" + MINUTES.splitlines()[3].strip() + "\n"))
    # a paragraph of the answer that lost its opening space is still the governor's, and so is the next
    unindented = MINUTES.replace("\n　都は、", "\n都は、")
    assert [s.speaker for s in sentences_of(unindented) if not s.turns] == ["知事", "知事", "和泉なおみ議員"]


def test_a_part_cut_from_inside_a_long_turn_is_still_its_speakers():
    # a member's question runs over a dozen parts of the development minutes: each part after its first, read
    # alone, was said by no one
    document = MINUTES + "〔休憩〕\n　この段落は議事録に残るだけで、誰の発言でもない長い説明の文章です。\n"
    weights = DocumentWeights(document)
    governor = document.index("　都は、区市町村")               # a paragraph of the governor's answer
    mid_line = document.index("感染経路が明らかでない")         # a part cut inside a paragraph
    member = document.index("基地周辺の深刻な")                 # inside the member's labelled line
    for offset in (governor, mid_line):
        part = document[offset:document.index("百二十七番（")]
        assert [s.speaker for s in weights.sentences_in(part, offset)][:1] == ["知事"]
        assert sentences_of(part)[0].speaker == ""                  # the part alone cannot tell
    part = document[member:]
    found = weights.sentences_in(part, member)
    assert found[0].speaker == "和泉なおみ議員"
    # the turn ends where the minutes' lines stop being anyone's, as in the whole document
    assert found[-1].speaker == "" and found[-1].text.startswith("この段落は")
