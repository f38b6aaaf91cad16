"""After parts in a row whose rewrite failed twice, the rest of the document goes straight to its notes."""
from __future__ import annotations

import pytest

from precis.engine.errors import BadInput
from precis.engine.events import RoundFinished, RoundRepaired
from precis.engine.runs.report import build_ledgers, build_report, static_prefix_tokens
from precis.engine.runs.run import RunOptions, run_summary
from precis.engine.runs.state import load_state
from precis.engine.runtime.protocol import CancelToken
from precis.engine.summary.guard import GuardSettings
from precis.models.session.request import RunRequest
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import conversation_day, make_plan, run_all, start

UNCHANGED = "The summary remains unchanged."     # fails the checks (meta, shrank) every time


def _failing(passes_at=()):
    """A script whose rewrites (rolling rounds, and maps: the fake runtime names a map call "round" too)
    fail, except the first attempts numbered in ``passes_at`` (1-based, counted over first attempts)."""
    asked = {"n": 0}

    def script(call):
        if call.kind == "round":
            if not call.retry:
                asked["n"] += 1
            if asked["n"] not in passes_at:
                return UNCHANGED
        return diligent(call)
    return script


def _records(events):
    return [e.record for e in events if isinstance(e, RoundFinished)]


def _options(strategy="rolling", after=GuardSettings.notes_after_failed_parts):
    return RunOptions(strategy=strategy, guard=GuardSettings(notes_after_failed_parts=after))


def _run(script, strategy="rolling", after=GuardSettings.notes_after_failed_parts):
    rt = FakeRuntime(script=script)
    plan = make_plan(rt, conversation_day(noise_sessions=()))
    state, options = start(rt, plan, _options(strategy, after))
    return rt, plan, state, run_all(rt, plan, state, options)


def test_after_two_failed_rounds_the_remaining_parts_go_to_their_notes_without_a_rewrite_asked():
    rt, plan, state, events = _run(_failing())
    records = [r for r in _records(events) if r.kind == "round"]
    chunks = plan.documents[0].chunks
    assert len(records) == len(chunks) >= 5
    assert all("notes_fallback" in r.flags and "notes_direct" not in r.flags for r in records[:2])
    assert all(r.attempts == 3 for r in records[:2])               # two rewrites, then the notes call
    assert all("notes_direct" in r.flags and "notes_fallback" in r.flags for r in records[2:])
    assert all(r.attempts == 1 for r in records[2:])               # the notes call only
    rewrites = [c for c in rt.calls if c.kind == "round"]
    assert len(rewrites) == 4                                       # parts 1 and 2, twice each
    # no part lost: every part gave notes, each quoting that part, all in the summary
    notes = state.notes["day.txt"]
    assert {n["part"] for n in notes} == set(range(len(chunks)))
    assert all(f"[{n['id']}]" in state.summaries["day.txt"] for n in notes)
    said = [e for e in events if isinstance(e, RoundRepaired) and e.index == records[2].index]
    assert said and "not asked to rewrite" in said[0].detail and "2 parts before" in said[0].detail
    report = build_report(plan, state, build_ledgers(plan, state), static_prefix_tokens(rt, plan))
    assert report.as_json()["notes_direct"] == [r.index for r in records[2:]]
    assert report.salvaged_rounds == len(chunks)


def test_a_round_that_passes_breaks_the_run_of_failures():
    # first attempts 1 and 3 pass: failures at parts 2, 4, 5 -> the sixth part onward goes direct
    rt, plan, state, events = _run(_failing(passes_at=(1, 3)))
    records = [r for r in _records(events) if r.kind == "round"]
    direct = [i for i, r in enumerate(records) if "notes_direct" in r.flags]
    assert "notes_fallback" not in records[0].flags and "notes_fallback" not in records[2].flags
    assert "notes_fallback" in records[1].flags and "notes_direct" not in records[3].flags
    assert direct == list(range(5, len(records)))


def test_zero_keeps_asking_every_part_to_be_rewritten():
    rt, plan, state, events = _run(_failing(), after=0)
    records = [r for r in _records(events) if r.kind == "round"]
    assert not any("notes_direct" in r.flags for r in records)
    assert len([c for c in rt.calls if c.kind == "round"]) == 2 * len(records)


def test_map_reduce_maps_go_to_their_notes_after_two_failed_maps():
    rt, plan, state, events = _run(_failing(), strategy="map-reduce")
    maps = [r for r in _records(events) if r.kind == "map"]
    assert len(maps) == len(plan.documents[0].chunks) >= 5
    assert not any("notes_direct" in r.flags for r in maps[:2])
    assert all("notes_direct" in r.flags for r in maps[2:])
    assert len([c for c in rt.calls if c.kind == "round"]) == 4
    assert {n["part"] for n in state.notes["day.txt"]} == set(range(len(maps)))


def test_a_resumed_run_goes_on_without_rewrites_as_it_stopped():
    rt = FakeRuntime(script=_failing())
    plan = make_plan(rt, conversation_day(noise_sessions=()))
    state, options = start(rt, plan, _options())
    cancel = CancelToken()
    for event in run_summary(rt, plan, state, options, cancel):
        if isinstance(event, RoundFinished) and event.record.index == 2:
            cancel.cancel()
    saved = load_state(state.run_id)
    assert saved.status == "cancelled" and "notes_direct" in saved.rounds[2].flags
    rt2 = FakeRuntime(script=_failing())
    events = run_all(rt2, make_plan(rt2, conversation_day(noise_sessions=())), saved, options)
    resumed = [r for r in _records(events) if r.kind == "round"]
    assert resumed and all("notes_direct" in r.flags for r in resumed)
    assert not [c for c in rt2.calls if c.kind == "round"]


def test_the_option_reaches_the_guard_and_refuses_a_negative_count():
    from precis.models.session.job import run_options
    assert run_options(RunRequest(files=["a.txt"], strategy="rolling", notes_after_failures=0)).guard.notes_after_failed_parts == 0
    assert run_options(RunRequest(files=["a.txt"], strategy="rolling")).guard.notes_after_failed_parts == 2
    with pytest.raises(BadInput, match="notes-after-failures"):
        RunRequest(files=["a.txt"], notes_after_failures=-1).validate()


def test_each_model_call_of_a_round_says_why_it_stopped():
    def first_runs_on(call):
        if call.kind == "round" and not call.retry:
            return "- the same line again and again\n" * 400           # cut by max_tokens
        return UNCHANGED if call.kind == "round" else diligent(call)
    rt, plan, state, events = _run(first_runs_on)
    first = [r for r in _records(events) if r.kind == "round"][0]
    assert first.attempts == 3 and len(first.call_stops) == 3
    assert first.call_stops[0] in ("max_tokens", "loop") and first.call_stops[1:] == ["eos", "eos"]
    assert first.stopped_by == first.call_stops[-1]
    direct = [r for r in _records(events) if "notes_direct" in r.flags][0]
    assert direct.call_stops == ["eos"]


def test_a_failed_first_part_keeps_the_sentences_the_notes_strategy_takes_from_it():
    """A failed part's sentences are chosen as the notes strategy chooses a part's at the start of its run:
    its share of the length over the share of a sentence a note keeps. Before, without that division, a
    failed part reached the rewrite strategies thinner than the notes strategy reads it (in final12 the
    first meeting's first part reached map-reduce as one note)."""
    text = conversation_day(noise_sessions=())
    first_notes = []
    for strategy, script in (("rolling", _failing()), ("notes", diligent)):
        rt = FakeRuntime(script=script)
        plan = make_plan(rt, text)
        state, options = start(rt, plan, RunOptions(strategy=strategy, summary_words=400))
        run_all(rt, plan, state, options)
        first = [r for r in state.rounds if r.chunk_index == 0][0]
        assert "notes_fallback" in first.flags if strategy == "rolling" else first.kind == "notes"
        first_notes.append([d["quote"] for d in state.notes["day.txt"]][:first.notes_kept])
    failed, noted = first_notes
    assert len(failed) >= 3 and failed == noted
