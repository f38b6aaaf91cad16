"""An assembly's summary in sections by who asks: a member's question, then the answers to it.

The Tokyo assembly's minutes are questions and answers: a member asks, over many topics, then the governor
and the officials answer, then the next member. Its own summary of a sitting goes question by question
("【増子ひろき／新型コロナウイルス対策】問：... 答（知事）：..."). Sections of eight consecutive notes headed by
the model crossed those turns ("環境局長の官民連携とZEVの普及" over two officials' answers and five of 東村邦浩's
questions) and misspelt the names they gave ("和泉のおみ議員の政策決定与え"). Who asks and who answers
is in the minutes' labels (engine.documents.spoken_text): here each run of a member's notes is one section,
"<member>の質問", and the officials' notes after it another, "<member>の質問への答弁", or both one section,
"<member>の質問と答弁", when together they are no more than a section holds; a member who asks again after
the answers, "<member>の再質問". What no one said before the first question is the agenda the minutes open
with (its bills' titles, the chair's opening), "議事日程" as the minutes call it (a blind reader: the summary
"opens with a heading that is just the first bill's title. It gives no sign that this part is about the bills
on the agenda"). No model call: the headings are the minutes' own words. Notes no one said later keep
sections headed by the model.
"""
from __future__ import annotations

from collections.abc import Callable

from precis.engine.documents.spoken_text import MIN_ASSEMBLY_MEMBERS, is_member
from precis.engine.planning.summary_length import NOTES_PER_SECTION
from precis.engine.summary.compaction import Bullet

ASKS, ANSWERS, NO_ONE = "asks", "answers", ""
AGENDA = "議事日程"                # the minutes' own word for the agenda they open with


def exchange_sections(bullets: list[Bullet], speaker_at: Callable[[int], str]) -> list[tuple[list[Bullet], str]] | None:
    """The bullets in sections by who asks, each with its heading (the agenda's before the first question; ""
    where the model is to name it: notes no one said later); None where the notes are not an assembly's
    (fewer than MIN_ASSEMBLY_MEMBERS members asking).
    ``speaker_at``: whose turn a document offset is in (engine.documents.spoken_text.TurnIndex.at)."""
    runs: list[tuple[str, str, list[Bullet]]] = []         # (role, member, bullets)
    member = ""
    for bullet in bullets:
        speaker = speaker_at(bullet.notes[0].start_char)
        if is_member(speaker):
            role, member = ASKS, speaker
        elif speaker and member:
            role = ANSWERS
        else:
            role = NO_ONE
        whose = member if role != NO_ONE else ""            # the question a note asks or answers, if any
        if runs and runs[-1][:2] == (role, whose):
            runs[-1][2].append(bullet)
        else:
            runs.append((role, whose, [bullet]))
    if len({m for role, m, _ in runs if role == ASKS}) < MIN_ASSEMBLY_MEMBERS:
        return None
    sections: list[tuple[list[Bullet], str]] = []
    asked: set[str] = set()
    i = 0
    while i < len(runs):
        role, who, group = runs[i]
        if role == ASKS:
            again = who in asked
            asked.add(who)
            question = f"{who}の再質問" if again else f"{who}の質問"
            following = runs[i + 1] if i + 1 < len(runs) else None
            if following and following[:2] == (ANSWERS, who) and len(group) + len(following[2]) <= NOTES_PER_SECTION:
                sections.append((group + following[2], f"{question}と答弁"))
                i += 2
                continue
            sections.append((group, question))
        elif role == ANSWERS:
            sections.append((group, f"{who}の質問への答弁"))
        else:
            sections.append((group, "" if asked else AGENDA))
        i += 1
    return sections
