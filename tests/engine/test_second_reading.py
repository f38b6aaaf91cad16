"""The second reading: each account line the checks pass is weighed by the model beside its passage (a yes/no
question), refused when "No" comes near "Yes", and a spare line read in its place. The scripted runtime
answers the question; the real model's weighing is tested in test_runtime_real.py, a server's below."""
from __future__ import annotations

import pytest

from precis.engine.runtime.server.runtime import ServerRuntime, ServerSettings
from precis.engine.summary.guard import GuardSettings
from precis.engine.summary.second_reading import DENY_MARGIN, PASSAGE_PAD_CHARS, Reading, passage_of
from tests.engine.test_account_strategy import STORY, _records, _run
from tests.fake_runtime import diligent
from tests.openai_server import FakeOpenAIServer, Script


def test_the_passage_is_each_reference_with_the_part_around_it_and_apart_stretches_marked():
    part = "".join(f"Sentence {i:02d} of the part, padded out to forty chars. " for i in range(40))
    first, second, third = (part.index("Sentence 05"), part.index("Sentence 06"), part.index("Sentence 30"))
    passage = passage_of(part, [(third, third + 20), (first, first + 20), (second, second + 20)])
    near, far = passage.split("\n...\n")
    assert "Sentence 05" in near and "Sentence 06" in near and "Sentence 30" in far
    assert len(far) == 20 + 2 * PASSAGE_PAD_CHARS
    assert passage_of(part, [(0, 10)]) == part[:10 + PASSAGE_PAD_CHARS]


def test_a_line_is_refused_when_no_comes_within_the_margin_of_yes():
    assert Reading(DENY_MARGIN + 0.01).denies and Reading(2.0).denies
    assert not Reading(DENY_MARGIN - 0.01).denies and not Reading(-4.0).denies
    assert "not said there" in Reading(0.5).reason


def _doubts_brass(call):
    if call.kind == "reading":
        return "No" if "brass" in call.content else "Yes"
    return diligent(call)


def test_a_line_the_model_finds_not_said_is_refused_by_name_and_a_spare_line_read_in_its_place():
    rt, plan, state, events = _run(STORY, _doubts_brass)
    records = _records(events)
    denied = [x for r in records for x in r.refused if x["checks"] == ["second_reading"]]
    assert denied and all("brass" in x["text"] and "not said there" in x["reasons"][0] for x in denied)
    assert all("read_again_refused" in r.flags for r in records if any(x in denied for x in r.refused))
    summary = state.summaries["day.txt"]
    assert "brass" not in summary
    readings = [c for c in rt.calls if c.kind == "reading"]
    # every kept line was read, beside a passage of its part that holds its references, not the whole part
    kept = state.evidence["day.txt"]
    assert kept and all(line["doubt"] is not None and line["doubt"] < DENY_MARGIN for line in kept)
    assert len(readings) == len(kept) + len(denied)
    part_chars = len(plan.documents[0].text) / len(plan.documents[0].chunks)
    assert all("Maitland" in c.summary and len(c.summary) < part_chars for c in readings)
    # the spare lines stand in: as many lines kept as when nothing is refused
    _, _, trusting, _ = _run(STORY)
    assert len(kept) == len(trusting.evidence["day.txt"])


def test_without_the_second_reading_no_question_is_asked_and_the_lines_stay_unread():
    rt, _, state, events = _run(STORY, _doubts_brass, guard=GuardSettings(second_reading=False))
    assert not [c for c in rt.calls if c.kind == "reading"]
    assert "brass" in state.summaries["day.txt"]
    assert all(line["doubt"] is None for line in state.evidence["day.txt"])


@pytest.mark.parametrize("kind", ["llama.cpp", "vllm", "ollama"])
def test_a_server_weighs_the_answers_from_its_top_logprobs(kind):
    script = Script(kind=kind, top_logprobs=[{"token": "Yes", "logprob": -0.3}, {"token": " no", "logprob": -1.4},
                                             {"token": "No", "logprob": -1.9}])
    with FakeOpenAIServer(script) as server:
        rt = ServerRuntime.connect(ServerSettings(url=server.url))
        prompt = rt.render_chat([{"role": "user", "content": "Is the sky blue? Answer Yes or No."}])
        found = rt.answer_logprobs(prompt, ("Yes", "No"))
        rt.close()
    assert found == {"Yes": -0.3, "No": -1.4}           # " no" and "No" are one answer: the likelier stands
    body = [b for m, p, b, _ in script.requests if m == "POST" and p in ("/v1/chat/completions", "/api/chat")][-1]
    assert body["stream"] is False and body["logprobs"] is True


@pytest.mark.parametrize("script", [Script(top_logprobs=None), Script(fail_status=400, fail_times=5,
                                                                      fail_message="logprobs is not supported")],
                         ids=["no logprobs sent", "logprobs refused"])
def test_a_server_that_cannot_weigh_answers_is_asked_once_and_the_lines_stay_unread(script):
    with FakeOpenAIServer(script) as server:
        rt = ServerRuntime.connect(ServerSettings(url=server.url))
        prompt = rt.render_chat([{"role": "user", "content": "Is the sky blue? Answer Yes or No."}])
        assert rt.answer_logprobs(prompt, ("Yes", "No")) is None
        asked = script.generations
        assert rt.answer_logprobs(prompt, ("Yes", "No")) is None and script.generations == asked
        rt.close()


def test_lines_a_runtime_cannot_weigh_are_kept_unread_and_the_round_says_so(monkeypatch):
    import tests.engine.test_account_strategy as account_tests
    from tests.fake_runtime import FakeRuntime

    class NoWeights(FakeRuntime):
        def answer_logprobs(self, prompt, answers, cancel=None):
            return None

    monkeypatch.setattr(account_tests, "FakeRuntime", NoWeights)
    _, _, state, events = _run(STORY, _doubts_brass)
    assert "brass" in state.summaries["day.txt"]
    assert all(line["doubt"] is None for line in state.evidence["day.txt"])
    assert all("lines_unread" in r.flags for r in _records(events))


def test_the_plan_counts_the_readings_prompts_in_the_accounts_cost(monkeypatch):
    from precis.engine.planning import summary_length as sl
    chunks = [1_800, 1_800, 900]
    sent, evaluated, generated = sl.account_call_tokens(4_500, chunks)
    monkeypatch.setattr(sl, "ACCOUNT_READINGS_PER_LINE", 0)
    sent0, evaluated0, generated0 = sl.account_call_tokens(4_500, chunks)
    lines = sum(sl.account_lines_for_part(sl.account_chars_for(4_500), c, sum(chunks)) for c in chunks)
    assert generated == generated0                      # a reading generates nothing: one logit is weighed
    assert evaluated - evaluated0 == sent - sent0 >= lines * sl.ACCOUNT_READING_TOKENS


def test_japanese_lines_are_not_read_again_the_wording_was_measured_on_english():
    from tests.engine.test_account_strategy import tells_the_session
    from tests.summary_fixtures import claude_code_day
    rt, _, state, _ = _run(claude_code_day(steps=8), tells_the_session, preset="conversation-archive")
    assert [c for c in rt.calls if c.kind == "account"]
    assert not [c for c in rt.calls if c.kind == "reading"]
    assert state.evidence["day.txt"] and all(line["doubt"] is None for line in state.evidence["day.txt"])
