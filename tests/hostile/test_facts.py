"""Issue 40, the fact ledger and the TODO list (engine.summary.facts): full-width amounts whole, Japanese
tasks found, a TODO item cut at its sentences, not at its line."""
from __future__ import annotations

import pytest

from precis.engine.prompts.presets import load_preset
from precis.engine.summary.account_shape import AccountLine, account_text
from precis.engine.summary.facts import FactLedger, extract_facts, is_task


def _todos(text: str) -> list[str]:
    return [f.text for f in extract_facts(text) if f.kind == "todo"]


def _amounts(text: str) -> list[str]:
    return [f.text for f in extract_facts(text) if f.kind == "amount"]


@pytest.mark.parametrize("text, amount", [
    ("価格は３，０００円です。", "３，０００円"),            # was "０００円"
    ("送料は￥3,000です。", "￥3,000"),                       # was "3,000": the sign lost
    ("手数料は＄1,250です。", "＄1,250"),
    ("利用率は１２．５％でした。", "１２．５％"),
    ("予算は1,200万円と決まりました。", "1,200万円"),         # the half-width forms as before
    ("The budget is $4.2 million.", "$4.2 million"),
])
def test_full_width_amounts_are_found_whole(text, amount):
    assert _amounts(text) == [amount]


def test_a_full_width_amount_said_half_width_in_the_summary_is_kept():
    ledger = FactLedger()
    ledger.add_chunk("価格は３，０００円です。送料は￥3,000です。", 0)
    assert ledger.check("価格は3,000円、送料は¥3,000。") == {"kept": 2, "changed": 0, "lost": 0}


@pytest.mark.parametrize("sentence", ["田中さんは金曜日までに請求書を送ります。", "来週までに報告書を提出します。",
                                      "佐藤さんが見積書を作成します。", "明日までに議事録を共有してください。"])
def test_japanese_task_sentences_are_tasks(sentence):
    assert is_task(sentence)
    assert _todos(sentence + "\n") == [sentence]


@pytest.mark.parametrize("sentence", ["ファイルを確認します。", "予算は1,200万円と決まりました。",
                                      "会議は2026年3月1日に行われました。"])
def test_a_japanese_verb_alone_or_a_statement_is_no_task(sentence):
    assert not is_task(sentence) and _todos(sentence + "\n") == []


def test_the_short_japanese_notes_task_is_its_own_sentence_not_its_line():
    line = "会議は2026年3月1日に行われました。予算は1,200万円と決まりました。田中さんは金曜日までに請求書を送ります。\n"
    assert _todos(line) == ["田中さんは金曜日までに請求書を送ります。"]


def test_an_english_todo_line_is_cut_at_its_sentences():
    line = ("- [ ] it is scheduled for 22 December. Decision: the migration goes ahead. Action: Dan prepares the "
            "rollback plan.\n")
    assert _todos(line) == ["Dan prepares the rollback plan."]


def test_a_checkbox_line_without_a_task_sentence_gives_its_first_sentence():
    assert _todos("- [ ] Send the invoice. It is overdue.\n") == ["Send the invoice."]


def test_a_later_task_sentence_keeps_its_speaker():
    assert _todos("Mika: The plan is approved. I will send the notice by Monday.\n") == \
        ["Mika: I will send the notice by Monday."]


def test_the_account_puts_a_japanese_task_under_its_action_items():
    """engine.summary.account_shape reads is_task too: a Japanese task line goes under the task section."""
    preset = load_preset("meeting-minutes")
    lines = [AccountLine("予算は1,200万円と決まりました。", 0, [1]), AccountLine("田中さんは金曜日までに請求書を送ります。", 0, [2])]
    text = account_text(lines, preset, "Japanese")
    told, tasks = text.split("\n## ", 1)[0], text.split("\n## ")[-1]
    assert "予算" in told and "田中さん" not in told and "田中さんは金曜日までに請求書を送ります" in tasks
