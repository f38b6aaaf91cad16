"""An assembly's summary in sections by who asks and who answers (engine.summary.exchanges)."""
from __future__ import annotations

import re

from precis.engine.documents.spoken_text import is_assembly, is_member
from precis.engine.planning.run_plan import estimate_run
from precis.engine.runs.run import RunOptions
from precis.engine.summary.compaction import Bullet
from precis.engine.summary.evidence import Note
from precis.engine.summary.exchanges import exchange_sections
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import make_plan, run_all, start


def _bullets(speakers: list[str]) -> tuple[list[Bullet], dict[int, str]]:
    """A bullet per speaker, each note at its own offset; and whose turn each offset is in."""
    bullets = [Bullet(f"{who or '議事'}: 点 {i}", (Note(i, f"点 {i}", f"文 {i}", "d", 0, 10 * i, 10 * i + 5, i, i,
                                                         1.0, "reworded"),)) for i, who in enumerate(speakers)]
    return bullets, {10 * i: who for i, who in enumerate(speakers)}


def test_a_members_question_and_the_answers_to_it_are_sections_headed_by_the_minutes_names():
    asks = ["", "", "増子ひろき議員"] + ["増子ひろき議員"] * 6 + ["知事"] * 5 + ["教育長"] * 2 + \
        ["東村邦浩議員"] * 3 + ["知事"] * 2 + ["東村邦浩議員"]
    bullets, speakers = _bullets(asks)
    sections = exchange_sections(bullets, speakers.get)
    assert [(len(group), heading) for group, heading in sections] == [
        (2, "議事日程"),                           # the agenda the minutes open with: no one's
        (7, "増子ひろき議員の質問"),               # too many with the answers for one section
        (7, "増子ひろき議員の質問への答弁"),       # the governor's and the superintendent's answers
        (5, "東村邦浩議員の質問と答弁"),           # few enough for one
        (1, "東村邦浩議員の再質問"),
    ]
    assert [b for group, _ in sections for b in group] == bullets       # every bullet, in order, once
    # what no one said after the first question (a recess, a stage direction) is headed by the model
    later, at = _bullets(["", "増子ひろき議員", "知事", "", "東村邦浩議員"])
    assert [h for _, h in exchange_sections(later, at.get)] == ["議事日程", "増子ひろき議員の質問と答弁", "",
                                                                 "東村邦浩議員の質問"]


def test_notes_of_one_member_or_none_are_no_assembly():
    one, at = _bullets(["増子ひろき議員"] * 3 + ["知事"] * 3)
    assert exchange_sections(one, at.get) is None
    meeting, at = _bullets(["Marketing", "Project Manager"] * 4)
    assert exchange_sections(meeting, at.get) is None
    assert is_member("和泉なおみ議員") and not is_member("議員") and not is_member("知事")


MINUTES = """議長（石川良一君）：これより本日の会議を開きます。
百十六番（増子ひろき君）：都は、今年度の予算で防災と福祉と環境のための三つの基金を新設しました。
　基金の使い道を都民に詳しく説明し、予算の透明性を確保することが必要です。
知事（小池百合子君）：増子ひろき議員の代表質問にお答えをいたします。
　都は、来年度から介護職員の宿舎借り上げ支援を拡充し、人材の確保と定着を進めてまいります。
百八番（東村邦浩君）：多胎児の家庭が利用しやすい支援制度を都として新たに設けるべきと考えます。
　犯罪被害者や遺族への転居費用を助成する制度を新たに盛り込むよう強く求めます。
教育長（藤田裕司君）：都立学校の全ての普通教室に無線の通信環境を来年度中に整備いたします。
　特別支援学校では一人一人の障害の状態に応じた端末を用意してまいります。
"""


def test_in_a_run_an_assemblys_sections_are_headed_by_who_asks_without_a_heading_call():
    rt = FakeRuntime(script=diligent)
    plan = make_plan(rt, MINUTES * 2, preset="generic")
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    headings = re.findall(r"^## (.+)$", state.summaries["day.txt"], re.M)
    assert "増子ひろき議員の質問と答弁" in headings and "東村邦浩議員の質問と答弁" in headings
    assert not [c for c in rt.calls if c.kind == "write"]        # no heading call: the minutes' own words


def test_the_plan_counts_no_heading_calls_for_an_assemblys_sections():
    # the same minutes with the members' seat labels read as officials' roles: a meeting, headed by the model
    officials = MINUTES.replace("百十六番（増子ひろき君）", "財務局長（増子ひろき君）").replace("百八番（東村邦浩君）",
                                                                                  "建設局長（東村邦浩君）")
    assert is_assembly(MINUTES) and not is_assembly(officials)
    rt = FakeRuntime()
    assembly, meeting = (make_plan(rt, text * 12, preset="generic") for text in (MINUTES, officials))
    assert [len(p.documents[0].chunks) for p in (assembly, meeting)] == [len(assembly.documents[0].chunks)] * 2
    generated = [estimate_run(p.budget, p.documents, None, "notes").generated_tokens for p in (assembly, meeting)]
    assert generated[0] < generated[1]
