"""What kind a document is by its shape, and the preset "auto" takes for it."""
from __future__ import annotations

from precis.engine.documents.document_kind import (
    ASSISTANT_CONVERSATION,
    GIT_LOG,
    MEETING_TRANSCRIPT,
    PROSE,
    document_kind,
)
from precis.engine.prompts.presets import DEFAULT_PRESET, preset_for
from tests.summary_fixtures import conversation_day, meeting_transcript

MEETING = meeting_transcript()

GIT_LOG_TEXT = "".join(
    f"commit {h}\nAuthor: tnoho\nDate:   2021-12-{d} 05:38:27 +0000\n\n{subject}\n\n"
    f" src/a.cpp | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n"
    for h, d, subject in [("e326186b", 29, "JetPack を 4.6 に変更"), ("cc0ad7c4", 29, "libwebrtc m97 を最新版にする"),
                          ("4bfad2b1", 30, "m98 対応"), ("bb9a6df8", 30, "RaspberryPi OS bullseye 対応")])

STORY = ("Maitland stirred and opened his eyes. The room was not his own: the walls curved into the ceiling and "
         "there was no latch on the door. Outside the window a river ran through a prairie he had never seen.\n\n"
         "\"Where am I?\" he asked the man who came in. Swarts only smiled and said the tests would begin "
         "tomorrow.\n") * 3

# a roll call of a hundred names before the first turn, as the development minutes open
ASSEMBLY = "\n".join(["（会議録冒頭・出席者等）：出席議員\u3000百二十三名"] + [f"{n}番議員{n}君" for n in range(1, 101)] + [
    line for _ in range(4) for line in (
        "議長（石川良一君）：\u3000これより本日の会議を開きます。",
        "知事（小池百合子君）：\u3000お答えいたします。",
        "\u3000東京二〇二〇大会の準備は着実に進んでおります。",
        "\u3000引き続き全力で取り組んでまいります。",
        "教育長（藤田裕司君）：\u3000学校の対応についてお答えいたします。",
    )])


def test_a_meeting_transcript_is_told_by_its_speakers():
    kind = document_kind(MEETING)
    assert kind.name == MEETING_TRANSCRIPT
    assert "12 turns of 4 speakers" in kind.reason


def test_a_japanese_assembly_is_a_meeting_under_its_roll_call_and_long_answers():
    assert document_kind(ASSEMBLY).name == MEETING_TRANSCRIPT


def test_a_git_log_comes_first_though_its_headers_look_like_labels():
    kind = document_kind(GIT_LOG_TEXT)
    assert kind.name == GIT_LOG and "4 commits" in kind.reason


def test_a_day_with_an_assistant_is_told_by_its_tool_lines():
    assert document_kind(conversation_day(sessions=5)).name == ASSISTANT_CONVERSATION      # session 4: tools
    two_sessions = conversation_day(sessions=2, noise_sessions=())
    assert document_kind(two_sessions).name == MEETING_TRANSCRIPT     # two people talking, nothing of a tool
    assert document_kind(conversation_day(sessions=3, noise_sessions=())).name == ASSISTANT_CONVERSATION  # banners


def test_a_chat_with_roles_is_an_assistant_conversation_not_a_meeting():
    chat = "\n".join(f"{who}: {what}" for who, what in [
        ("Mika", "Can you look at the failing test?"), ("Assistant", "Running the suite now."),
        ("Mika", "It passes locally."), ("Assistant", "It depends on the order of the refunds."),
        ("Mika", "Fix it then."), ("Assistant", "Done: the test sorts them first.")] * 3)
    assert document_kind(chat).name == ASSISTANT_CONVERSATION


def test_a_story_and_an_article_with_a_few_labels_are_prose():
    assert document_kind(STORY).name == PROSE
    article = "Rolling summaries\n\nNote: this is a summary of our experience.\n" + STORY + \
        "Scenario: a day of conversations.\nResult: the summary held.\nNote: the model was small.\n"
    assert document_kind(article).name == PROSE


def test_auto_takes_the_preset_of_the_kind_with_the_most_characters():
    assert preset_for([MEETING]).name == "meeting-minutes"
    assert preset_for([GIT_LOG_TEXT]).name == "project-log"
    assert preset_for([STORY]).name == "generic"
    assert preset_for([conversation_day(sessions=5)]).name == "conversation-archive"
    mixed = preset_for([STORY * 3, MEETING])
    assert mixed.name == "generic" and "2 documents" in mixed.reason
    assert preset_for([]).name == DEFAULT_PRESET


def test_prose_tells_a_story_when_its_people_speak_in_quotes():
    from precis.engine.documents.document_kind import is_narrative
    assert is_narrative(STORY)
    assert is_narrative("「どこへ行くの」とジョバンニが聞いた。「ずっと遠くさ」とカムパネルラが言った。" * 20)
    report = ("Net sales were $412 million, up 6% from a year ago. Our Workshop segment declined 3%, as dealers "
              "reduced their inventory. We expect earnings per share of $2.10 to $2.20. ") * 20
    assert not is_narrative(report)
    # one quoted phrase in a long report does not make it a story
    assert not is_narrative(report + 'Our chief executive called it "a strong quarter".')
