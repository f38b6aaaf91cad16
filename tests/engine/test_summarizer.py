"""The rolling engine with the scripted fake runtime: collapse repair, noise, compaction, checkpoints."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from precis.engine.errors import BadInput
from precis.engine.events import (
    CollapseDetected,
    CompactionDone,
    NoiseSkipped,
    RoundFinished,
    RoundRepaired,
    RunFinished,
    RunPlanned,
    TokensGenerated,
)
from precis.engine.runs.outputs import write_outputs
from precis.engine.runs.report import build_ledgers, build_report, static_prefix_tokens
from precis.engine.runs.run import RunOptions, new_state, run_summary
from precis.engine.runs.state import check_resumable, load_state, unfinished_runs
from precis.engine.runtime.protocol import CancelToken
from tests.conftest import REPO_ROOT
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import conversation_day, make_plan, run_all, start


def _finished(events):
    return [e for e in events if isinstance(e, RunFinished)][-1]


def _records(events):
    return [e.record for e in events if isinstance(e, RoundFinished)]


def seed_collapse(at_round: int, retries_fail: bool = False):
    """The seed's round 5: the model answers a meta remark instead of the 6,803-character summary."""
    rounds = {"n": 0}

    def script(call):
        if call.kind == "round" and not call.retry:
            rounds["n"] += 1
        if rounds["n"] == at_round and (not call.retry or retries_fail):
            return "The summary remains unchanged."
        return diligent(call)
    return script


def test_uninterrupted_run_grows_a_summary_and_reuses_the_static_prompt():
    rt = FakeRuntime()
    plan = make_plan(rt, conversation_day())
    state, options = start(rt, plan)
    events = run_all(rt, plan, state, options)
    planned = events[0]
    assert isinstance(planned, RunPlanned) and planned.rounds == plan.rounds >= 6
    records = _records(events)
    assert [r.chunk_index for r in records] == list(range(plan.rounds))
    assert _finished(events).outcome == "finished" and state.status == "finished"
    curve = [r.summary_chars for r in records]
    assert curve == sorted(curve) and curve[-1] > curve[0]        # grows, never collapses
    for r in records:                                             # every round fits its context
        assert r.prompt_tokens + plan.budget.summary_out_cap <= plan.budget.n_ctx
    static = static_prefix_tokens(rt, plan)
    called = [r for r in records if r.attempts]
    assert called[0].first_call_reused == 0
    assert all(r.first_call_reused >= static - 1 for r in called[1:])   # static prefix evaluated once


def test_seed_collapse_is_detected_repaired_and_reported(tmp_path):
    rt = FakeRuntime(script=seed_collapse(at_round=5))
    plan = make_plan(rt, conversation_day(noise_sessions=()))
    state, options = start(rt, plan)
    events = run_all(rt, plan, state, options)
    detected = [e for e in events if isinstance(e, CollapseDetected)]
    assert len(detected) == 1 and detected[0].index == 4
    assert set(detected[0].flags) >= {"meta", "shrank"}
    repaired = [e for e in events if isinstance(e, RoundRepaired)]
    assert [(e.index, e.how) for e in repaired] == [(4, "retry")]
    record = _records(events)[4]
    assert record.attempts == 2 and "repaired" in record.flags and record.collapsed
    assert record.summary_chars > record.summary_in_chars          # the repaired round grew, not collapsed
    assert detected[0].reply_chars == len("The summary remains unchanged.") < detected[0].previous_chars
    report = build_report(plan, state, build_ledgers(plan, state), static_prefix_tokens(rt, plan))
    assert len(report.collapses) == 1
    assert report.collapses[0]["index"] == 4 and report.collapses[0]["repair"] == "retry"
    assert {"meta", "shrank"} <= set(report.collapses[0]["flags"])
    paths = write_outputs(tmp_path, report, state)
    run_json = json.loads(paths[2].read_text(encoding="utf-8"))
    assert run_json["curve"]["summary_chars"] == [r.summary_chars for r in _records(events)]
    assert run_json["rounds"][4]["flags"][-1] == "repaired"


def test_a_collapse_that_persists_keeps_the_previous_summary_and_folds_in_the_part():
    rt = FakeRuntime(script=seed_collapse(at_round=3, retries_fail=True))
    plan = make_plan(rt, conversation_day(noise_sessions=()))
    state, options = start(rt, plan)
    events = run_all(rt, plan, state, options)
    record = _records(events)[2]
    # the model fails the rewordings too here: the part's chosen sentences are taken verbatim instead
    assert "extracted" in record.flags
    assert record.summary.startswith(record.summary_in)            # nothing accumulated is lost
    folded = record.summary[len(record.summary_in):]
    assert re.search(r"budget for project P3 is EUR 30\d\d,00", folded)   # the part's own content, with its label
    assert [e.how for e in events if isinstance(e, RoundRepaired) and e.index == 2] == ["extracted"]


def test_a_reply_that_copies_its_chunk_is_stopped_as_it_copies_and_the_round_repaired():
    """The 1.5B model's commonest failed round copies the new content; the guard refuses it anyway, so its
    stream stops once 600 characters are all copy instead of running to the summary cap."""
    copied = {}

    def copies_round_2(call):
        if call.kind == "round" and call.summary and not copied:
            copied["reply"] = call.content * 3                  # the chunk, over and over, to the cap
            return copied["reply"]
        return diligent(call)
    rt = FakeRuntime(script=copies_round_2)
    plan = make_plan(rt, conversation_day(noise_sessions=()))
    state, options = start(rt, plan)
    events = run_all(rt, plan, state, options)
    detected = [e for e in events if isinstance(e, CollapseDetected)]
    assert len(detected) == 1 and "copied_chunk" in detected[0].flags
    assert "stopped as soon as the reply turned out to copy" in detected[0].detail
    assert 600 <= detected[0].reply_chars < 0.5 * len(copied["reply"])       # stopped early, not at the cap
    assert [e.how for e in events if isinstance(e, RoundRepaired)] == ["retry"]
    assert "- " in state.summaries["day.txt"] and copied["reply"][:600] not in state.summaries["day.txt"]


def test_noise_only_chunk_leaves_the_summary_as_it_was():
    rt = FakeRuntime()
    plan = make_plan(rt, conversation_day(noise_sessions=(4,)))
    state, options = start(rt, plan)
    events = run_all(rt, plan, state, options)
    skipped = [e for e in events if isinstance(e, NoiseSkipped)]
    assert skipped, "the tool-log session should be recognised as noise"
    records = _records(events)
    for e in skipped:
        r = records[e.index]
        assert r.summary == r.summary_in and r.attempts == 0 and r.flags == ["noise_skipped"]
    # Without skipping, the model sees it; a model that follows R1 returns the summary verbatim.
    rt2 = FakeRuntime()
    state2, options2 = start(rt2, plan, RunOptions(skip_noise=False))
    records2 = _records(run_all(rt2, plan, state2, options2))
    r = records2[skipped[0].index]
    assert r.attempts == 1 and r.summary == r.summary_in and not r.collapsed
    assert state2.summaries == state.summaries


def test_cancel_then_resume_gives_the_same_result_as_an_uninterrupted_run():
    text = conversation_day()
    rt = FakeRuntime()
    plan = make_plan(rt, text)
    state, options = start(rt, plan)
    uninterrupted = run_all(rt, plan, state, options)
    expected = _finished(uninterrupted).summaries

    rt2 = FakeRuntime()
    plan2 = make_plan(rt2, text)
    state2, options2 = start(rt2, plan2)
    cancel = CancelToken()
    events = []
    for event in run_summary(rt2, plan2, state2, options2, cancel):
        events.append(event)
        if isinstance(event, RoundFinished) and event.record.index == 2:
            cancel.cancel()
    done = _finished(events)
    assert done.outcome == "cancelled" and "3 finished rounds kept" in done.message
    assert [u.run_id for u in unfinished_runs()] == [state2.run_id]

    saved = load_state(state2.run_id)
    assert saved.status == "cancelled" and len(saved.rounds) == 3
    rt3 = FakeRuntime()
    plan3 = make_plan(rt3, text)
    check_resumable(saved, new_state(plan3, None, {}, options2, ["day.txt"]))
    resumed = run_all(rt3, plan3, saved, options2)
    assert resumed[0].resumed_from == 3
    assert [r.chunk_index for r in _records(resumed)] == list(range(3, plan3.rounds))
    assert _finished(resumed).summaries == expected


def test_resume_refuses_a_changed_document_or_plan():
    rt = FakeRuntime()
    plan = make_plan(rt, conversation_day())
    state, options = start(rt, plan)
    cancel = CancelToken()
    cancel.cancel()
    run_all(rt, plan, state, options, cancel)
    saved = load_state(state.run_id)
    changed = make_plan(rt, conversation_day().replace("point 3", "point three"))
    with pytest.raises(BadInput, match="day.txt changed since run"):
        check_resumable(saved, new_state(changed, None, {}, options, []))
    other_budget = make_plan(rt, conversation_day(), summary_out_cap=300)
    with pytest.raises(BadInput, match="plan of run .* differs"):
        check_resumable(saved, new_state(other_budget, None, {}, options, []))


def test_runaway_growth_triggers_a_marked_compaction_not_a_collapse():
    def tighten(call):
        if call.kind == "compaction":   # shorter wording, every fact kept
            return call.summary.replace("the budget for project", "budget").replace(" signs it off by", " by") \
                .replace("=== Session", "Session").replace(" ===", "")
        return diligent(call)
    rt = FakeRuntime(script=tighten)
    plan = make_plan(rt, conversation_day(sessions=12, noise_sessions=()))
    state, options = start(rt, plan)
    events = run_all(rt, plan, state, options)
    compactions = [e for e in events if isinstance(e, CompactionDone)]
    assert compactions and all(e.accepted for e in compactions)
    records = _records(events)
    for e in compactions:
        r = records[e.index]
        assert r.kind == "compaction" and "compaction" in r.flags and not r.collapsed
        assert r.summary_chars < r.summary_in_chars
    assert all(r.summary_tokens <= plan.budget.summary_out_cap for r in records)


def test_throttled_token_events_stream_the_reply():
    rt = FakeRuntime(token_delay_s=0.002)
    plan = make_plan(rt, conversation_day(sessions=2, noise_sessions=()))
    state, options = start(rt, plan)
    events = run_all(rt, plan, state, options)
    tokens = [e for e in events if isinstance(e, TokensGenerated)]
    assert tokens and all(e.text for e in tokens)
    final = _records(events)[-1]
    assert final.reply.startswith(tokens[-1].text[:20])


def test_map_reduce_merges_level_by_level_with_bounded_depth():
    rt = FakeRuntime()
    plan = make_plan(rt, conversation_day(sessions=10, noise_sessions=()))
    state, options = start(rt, plan, RunOptions(strategy="map-reduce"))
    events = run_all(rt, plan, state, options)
    records = _records(events)
    maps = [r for r in records if r.kind == "map"]
    merges = [r for r in records if r.kind == "merge"]
    assert len(maps) == plan.rounds and merges
    assert len(merges) <= plan.rounds - 1
    final = _finished(events).summaries["day.txt"]
    for s in range(1, 11):
        assert f"session {s}," in final                            # every part survives the merges


def test_stuff_refuses_a_document_that_does_not_fit():
    rt = FakeRuntime()
    plan = make_plan(rt, conversation_day())
    state, options = start(rt, plan, RunOptions(strategy="stuff"))
    done = _finished(run_all(rt, plan, state, options))
    assert done.outcome == "failed" and "does not fit in one call" in done.message and "rolling" in done.message
    small = make_plan(rt, conversation_day(sessions=1, noise_sessions=()), n_ctx=4096)
    state, options = start(rt, small, RunOptions(strategy="stuff"))
    events = run_all(rt, small, state, options)
    assert _finished(events).outcome == "finished" and [r.kind for r in _records(events)] == ["stuff"]


def test_killed_process_resumes_without_losing_a_finished_round(tmp_path, precis_home):
    env = {**os.environ, "PRECIS_HOME": str(precis_home), "PYTHONPATH": str(REPO_ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "tests.run_fake_summary"], cwd=REPO_ROOT, env=env,
                            stdout=subprocess.PIPE, text=True)
    run_id = proc.stdout.readline().strip()
    state_file = precis_home / "data" / "runs" / run_id / "state.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if state_file.exists() and len(json.loads(state_file.read_text())["rounds"]) >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)   # mid-round: the fake writes slowly
    proc.wait(timeout=10)
    proc.stdout.close()
    saved = load_state(run_id)
    assert saved.status == "running" and len(saved.rounds) >= 2   # killed: no chance to say goodbye
    finished_before = [r.summary for r in saved.rounds]

    from tests.run_fake_summary import build
    rt, plan, options = build(delay=0.0)
    check_resumable(saved, new_state(plan, None, {}, options, []))
    resumed = run_all(rt, plan, saved, options)
    assert resumed[0].resumed_from == len(finished_before)
    assert [r.summary for r in saved.rounds[:len(finished_before)]] == finished_before

    rt2, plan2, options2 = build(delay=0.0)
    state2, _ = start(rt2, plan2, options2)
    assert _finished(resumed).summaries == _finished(run_all(rt2, plan2, state2, options2)).summaries


def test_a_rejected_compaction_is_not_retried_on_the_same_summary():
    def stubborn(call):
        if call.kind == "compaction":
            return "Too short."                                   # rejected: drops nearly everything
        if call.summary and len(call.summary) > 1300:
            return call.summary                                   # the model stops adding (summary at the cap)
        return diligent(call)
    rt = FakeRuntime(script=stubborn)
    plan = make_plan(rt, conversation_day(sessions=12, noise_sessions=()))
    state, options = start(rt, plan)
    records = _records(run_all(rt, plan, state, options))
    compactions = [r for r in records if r.kind == "compaction"]
    assert len(compactions) == 1 and "compaction_rejected" in compactions[0].flags
    assert compactions[0].summary == compactions[0].summary_in          # the original was kept
    assert [r.chunk_index for r in records if r.kind == "round"] == list(range(plan.rounds))


def test_a_run_of_the_same_plan_in_the_same_second_gets_its_own_checkpoint_folder(monkeypatch):
    from precis.engine.runs import state as run_state
    monkeypatch.setattr(run_state.time, "strftime", lambda fmt: "120000")
    first = run_state.new_run_id("2026-11-30", "abcdef123")
    (run_state.runs_dir() / first).mkdir(parents=True)
    second = run_state.new_run_id("2026-11-30", "abcdef123")
    assert first == "2026-11-30-120000-abcdef" and second == f"{first}-2"   # not the first run's folder
