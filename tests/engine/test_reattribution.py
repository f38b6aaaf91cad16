"""A line that gives one speaker's words to another is said by code with the speaker whose turns hold them."""
from __future__ import annotations

import re

from precis.engine.events import RoundFinished
from precis.engine.summary.alignment import PartIndex
from precis.engine.summary.checks import ACCOUNT_LINE, Claim, judge
from precis.engine.summary.reattribution import reattributed, without_the_question
from tests.engine.test_account_strategy import _run
from tests.fake_runtime import diligent
from tests.summary_fixtures import meeting_transcript

DESIGN = ("Project Manager: So first, let's see the prototype.\nIndustrial Designer: Yeah .\nUser Interface: and "
          "then we'll give some technical specifications .\nIndustrial Designer: Uh, here we have our prototype "
          "model. It has a kinetic battery.\nMarketing: The Project Manager asked for a vote, so seven for me.\n")
CHAT_JA = ("[ユーザー] コミットが失敗しました。\n"
           "[アシスタント] フックが終了コード 1 を返しています。原因は設定の不具合です。\n"
           "[ユーザー] テストは後回しにすると決めました。\n")
CHAT_EN = ("[user] The nightly backup failed again, can you look at the log?\n"
           "[assistant] The log shows the disk filled up at 02:10, so I rotated the old archives.\n"
           "[user] Good. Tomorrow let's move the archives to the NAS.\n")


def _claim(text: str, part: str) -> Claim:
    return Claim(text, part, PartIndex(part).align(text))


def test_a_turn_given_to_the_wrong_speaker_opens_with_the_one_who_said_it_and_then_passes():
    claim = _claim("The User Interface Designer shows the prototype model with its kinetic battery.", DESIGN)
    assert judge(claim, ACCOUNT_LINE).names == ["speaker_swapped"]
    fixed = reattributed(claim)
    assert fixed == "The Industrial Designer shows the prototype model with its kinetic battery."
    assert judge(_claim(fixed, DESIGN), ACCOUNT_LINE).passed


def test_a_label_with_a_letter_is_written_as_the_transcript_writes_it():
    part = DESIGN.replace("Industrial Designer:", "Grad B:").replace("User Interface:", "Professor C:")
    fixed = reattributed(_claim("Professor C shows the prototype model with its kinetic battery.", part))
    assert fixed == "Grad B shows the prototype model with its kinetic battery."


def test_a_line_held_by_several_speakers_or_naming_the_right_one_is_left_refused():
    both = ("Marketing: The prototype needs a kinetic battery.\nIndustrial Designer: A kinetic battery, yes, in "
            "the prototype.\nProject Manager: Okay.\nUser Interface: Fine.\n")
    assert reattributed(_claim("The Project Manager wants a kinetic battery in the prototype.", both)) is None
    # the opener is who agrees; the Industrial Designer's turn holds what they agree with
    assert reattributed(_claim("Marketing agrees with the Industrial Designer's prototype model with a kinetic "
                               "battery.", DESIGN)) is None
    # a line that is the speaker's own is no business of this
    assert reattributed(_claim("The Industrial Designer shows the prototype model.", DESIGN)) is None


def test_a_chats_user_and_assistant_are_turned_back_in_either_language():
    assert reattributed(_claim("ユーザーが、フックが終了コード 1 を返すと報告する。", CHAT_JA)) == \
        "アシスタントが、フックが終了コード 1 を返すと報告する。"
    assert reattributed(_claim("The user finds the disk filled up at 02:10 and rotates the old archives.",
                               CHAT_EN)) == \
        "The assistant finds the disk filled up at 02:10 and rotates the old archives."
    assert reattributed(_claim("ユーザーが、テストを後回しにすると決める。", CHAT_JA)) is None


# Other speakers' turns of tests.summary_fixtures.meeting_transcript, each told as the Project Manager's
SAID_BY_OTHERS = {
    "The survey says people want a scroll wheel": "reports a survey wanting a scroll wheel and fewer buttons.",
    "A scroll wheel needs the advanced chip": "explains that a scroll wheel needs the costlier advanced chip.",
    "Then I'd put the LCD next to the wheel": "proposes putting the LCD beside the wheel.",
    "I'll draw the case in rubber": "will draw the rubber case for the next meeting.",
}


def gives_every_turn_to_the_project_manager(call):
    """A model that tells what others said in a meeting's part as the Project Manager's."""
    if call.kind != "account":
        return diligent(call)
    count = int(re.search(r"\(\[1\] to \[(\d+)\]\):\s*$", call.prompt.rsplit("<|im_end|>", 1)[0]).group(1))
    told = [f"The Project Manager {line}" for turn, line in SAID_BY_OTHERS.items() if turn in call.content]
    return "".join(f"[{i}] {line}\n" for i, line in enumerate(told[:count], 1))


def test_an_account_keeps_a_swapped_line_with_its_speaker_without_asking_the_model_again():
    text = meeting_transcript() * 3
    rt, plan, state, events = _run(text, gives_every_turn_to_the_project_manager, preset="meeting-minutes")
    records = [e.record for e in events if isinstance(e, RoundFinished) and e.record.kind == "account"]
    fixed = [x for r in records for x in r.refused if x.get("reattributed")]
    assert fixed and all(x["checks"] == ["speaker_swapped"] for x in fixed)
    assert all(x["text"].startswith("The Project Manager") and not x["kept_instead"].startswith("The Project")
               for x in fixed)
    assert any("reattributed" in r.flags for r in records)
    summary = state.summaries["day.txt"]
    assert all(x["kept_instead"].rstrip(".") in re.sub(r" \[[\d, ]+\]", "", summary) for x in fixed)
    # what the checks refused for the speaker alone cost no second ask
    assert len([c for c in rt.calls if c.kind == "account_again"]) < len(fixed)


MAP = ("Grad E: Is the intention implicit in the scenario ?\nGrad B: No , not really .\n"
       "Grad B: Additionally , you have a sort of a map type display .\nGrad E: OK .\n")


def test_a_speaker_said_to_ask_what_they_stated_is_said_to_talk_about_it_and_then_passes():
    claim = _claim("Grad B asks if the system has a map type display.", MAP)
    assert judge(claim, ACCOUNT_LINE).names == ["asks_unasked"]
    fixed = without_the_question(claim)
    assert fixed == "Grad B talks about whether the system has a map type display."
    assert judge(_claim(fixed, MAP), ACCOUNT_LINE).passed
    assert without_the_question(_claim("Grad B asks about the map type display.", MAP)) == \
        "Grad B talks about the map type display."
    assert without_the_question(_claim("Grad B asks how the map type display works?", MAP)) == \
        "Grad B talks about how the map type display works."


def test_an_ask_of_someone_or_a_line_not_opening_with_its_speaker_is_left_refused():
    assert without_the_question(_claim("Grad B asks Grad E if the system has a map type display.", MAP)) is None
    assert without_the_question(_claim("The map type display is asked about by Grad B.", MAP)) is None


def asks_what_marketing_said(call):
    """A model that tells Marketing's survey in the meeting's part as Marketing's question."""
    if call.kind != "account":
        return diligent(call)
    if "The survey says people want a scroll wheel" not in call.content:
        return diligent(call)
    return "[1] Marketing asks if users want fewer buttons and a scroll wheel.\n"


def test_an_account_keeps_an_unasked_question_as_talk_without_asking_the_model_again():
    text = meeting_transcript() * 3
    rt, plan, state, events = _run(text, asks_what_marketing_said, preset="meeting-minutes")
    records = [e.record for e in events if isinstance(e, RoundFinished) and e.record.kind == "account"]
    fixed = [x for r in records for x in r.refused if x.get("act_restated")]
    assert fixed and all(x["checks"] == ["asks_unasked"] for x in fixed)
    assert all(x["kept_instead"] == "Marketing talks about whether users want fewer buttons and a scroll wheel."
               for x in fixed)
    assert any("act_restated" in r.flags for r in records)
    assert "Marketing talks about whether users want fewer buttons" in state.summaries["day.txt"]
    assert not [c for c in rt.calls if c.kind == "account_again"]


def asks_the_project_managers_question_as_marketing(call):
    if call.kind != "account" or "What does the advanced chip cost us per unit?" not in call.content:
        return diligent(call)
    return "[1] Marketing asks what the advanced chip costs per unit.\n"


def test_a_question_given_to_the_wrong_speaker_is_given_back_to_the_one_who_asked_it():
    rt, plan, state, events = _run(meeting_transcript() * 3, asks_the_project_managers_question_as_marketing,
                                   preset="meeting-minutes")
    records = [e.record for e in events if isinstance(e, RoundFinished) and e.record.kind == "account"]
    fixed = [x for r in records for x in r.refused if x.get("reattributed")]
    assert fixed and all(set(x["checks"]) == {"speaker_swapped", "asks_unasked"} for x in fixed)
    assert all(x["kept_instead"] == "Project Manager asks what the advanced chip costs per unit."
               and not x.get("act_restated") for x in fixed)
