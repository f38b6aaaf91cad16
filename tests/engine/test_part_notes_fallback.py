"""The part fallback of every strategy: a part whose rewrite fails twice reaches the summary as its
checked notes (the notes strategy's), its sentences, or a git log's commit subjects."""
from __future__ import annotations

import re

from precis.engine.events import CollapseDetected, RoundRepaired
from precis.engine.runs.run import RunOptions
from precis.engine.summary.guard import GuardSettings
from tests.engine.notes_fixtures import (
    GIT_LOG_COMMITS,
    finished_records,
    git_log,
    report_of,
    rolling_run_whose_third_round_collapses,
)
from tests.fake_runtime import FakeRuntime, diligent, numbered_lines
from tests.summary_fixtures import make_plan, run_all, start


def test_a_rolling_round_that_fails_twice_folds_in_the_parts_checked_notes():
    rt, plan, state, events = rolling_run_whose_third_round_collapses()
    record = finished_records(events)[2]
    assert "notes_fallback" in record.flags and record.attempts == 3      # two rounds, then one rewording call
    assert [c.kind for c in rt.calls].count("reword") == 1 and "notes" not in {c.kind for c in rt.calls}
    assert record.summary.startswith(record.summary_in)                   # nothing accumulated is lost
    doc = plan.documents[0]
    part = doc.text[doc.chunks[2].sent_start_char:doc.chunks[2].end_char]
    folded = [ln for ln in record.summary[len(record.summary_in):].splitlines() if ln.strip()]
    assert folded and all(re.search(r"\[\d+\]$", ln) for ln in folded)   # the part's notes, cited
    assert record.notes_kept == len(folded)                                # and counted in the run record
    assert report_of(rt, plan, state).as_json()["notes"]["kept"] >= len(folded)
    notes = {n["id"]: n for n in state.notes["day.txt"]}
    cited = [notes[int(re.search(r"\[(\d+)\]$", ln).group(1))] for ln in folded]
    # each a sentence code chose from the part, said in the model's words (checked), the sentence its quote
    assert all(n["quote"] in part and n["origin"] == "reworded" and n["point"] not in part for n in cited)
    repaired = [e for e in events if isinstance(e, RoundRepaired) and e.index == 2]
    assert [e.how for e in repaired] == ["notes_fallback"]
    assert re.search(rf"folded {len(folded)} of this part's {len(folded)} checked notes? ", repaired[0].detail)


def test_a_reply_in_the_wrong_language_is_a_failed_round():
    def english_only(call):
        reply = diligent(call)
        return reply if call.retry else "The meeting discussed the budget and the schedule for the next release."
    text = "".join(f"第{i}回：予算は{i},200万円で、田中さんが{i}月{i}日までに承認します。会議は金曜日に延期されました。\n\n"
                   for i in range(1, 40))
    rt = FakeRuntime(script=english_only)
    plan = make_plan(rt, text, preset="generic")
    state, options = start(rt, plan)
    events = run_all(rt, plan, state, options)
    flagged = [e for e in events if isinstance(e, CollapseDetected)]
    assert flagged and all("wrong_language" in e.flags for e in flagged)
    assert all("repaired" in r.flags for r in finished_records(events) if r.attempts == 2)


def test_a_failed_rolling_round_whose_rewordings_invent_folds_in_its_sentences_instead():
    def invents(call):
        numbers = re.findall(r"^\[(\d+)\] ", call.content, re.M) or ["1"]
        if call.kind == "restate":
            return "The team agreed to move to Mars next spring\n"
        return "".join(f"[{i}] The team agreed to move to Mars next spring\n" for i in numbers)
    rt, plan, state, events = rolling_run_whose_third_round_collapses(invents)
    record = finished_records(events)[2]
    repaired = [e for e in events if isinstance(e, RoundRepaired) and e.index == 2]
    assert [e.how for e in repaired] == ["extracted"] and "taken verbatim" in repaired[0].detail
    assert "Mars" not in record.summary and "Mars" not in state.summaries["day.txt"]
    assert record.notes_unsupported >= 1                                # the refused rewordings, counted
    part = plan.documents[0].text[plan.documents[0].chunks[2].sent_start_char:plan.documents[0].chunks[2].end_char]
    kept = [n for n in state.notes["day.txt"] if n["part"] == 2]
    assert kept and all(n["quote"] in part and n["origin"] == "extract" for n in kept)


def test_a_failed_rolling_round_of_a_japanese_document_folds_in_japanese_notes():
    """The fallback's notes are checked in the document's language: English rewordings of Japanese
    sentences are refused, the Japanese ones asked again are kept."""
    def fails_then_english(call):
        if call.kind == "round":
            return "The meeting discussed the budget."
        sentences = dict(numbered_lines(call.content))
        if call.kind == "reword" and not call.retry:
            return "".join(f"[{i}] The budget was approved by Tanaka\n" for i in sentences)
        if call.kind == "reword":
            amounts = {i: re.search(r"[0-9,]+万円", s).group() for i, s in sentences.items()}
            return "".join(f"[{i}] 田中さんが予算{amount}を承認（要約）\n" for i, amount in amounts.items())
        return diligent(call)
    text = "".join(f"第{i}回：予算は{i},200万円で、田中さんが{i}月{i}日までに承認します。会議は金曜日に延期されました。\n\n"
                   for i in range(1, 40))
    rt = FakeRuntime(script=fails_then_english)
    plan = make_plan(rt, text, preset="generic")
    state, options = start(rt, plan, RunOptions(guard=GuardSettings(notes_after_failed_parts=0)))   # every part asked
    run_all(rt, plan, state, options)
    notes = state.notes["day.txt"]
    assert notes and all(n["origin"] == "reworded" and "要約" in n["point"] for n in notes)
    assert "budget" not in state.summaries["day.txt"] and "要約" in state.summaries["day.txt"]


def test_a_failed_rolling_round_of_a_git_log_folds_in_its_commit_subjects_with_no_model_call():
    def every_round_fails(call):
        if call.kind == "round":
            return "The summary remains unchanged."
        return diligent(call)
    log = git_log()
    rt = FakeRuntime(script=every_round_fails)
    plan = make_plan(rt, log, preset="project-log")
    state, options = start(rt, plan)
    events = run_all(rt, plan, state, options)
    assert not [c for c in rt.calls if c.kind != "round"]              # the subjects need no model call
    repaired = [e for e in events if isinstance(e, RoundRepaired) and e.how == "notes_fallback"]
    assert len(repaired) == len(plan.documents[0].chunks) and "commit subject" in repaired[0].detail
    summary = state.summaries["day.txt"]
    subjects = {s for s, _ in GIT_LOG_COMMITS}
    folded = [re.sub(r"^- | \[\d+\]$", "", ln) for ln in summary.splitlines() if ln.strip()]
    assert folded and all(point in subjects for point in folded) and "JetPack version" not in summary
    assert all(n["origin"] == "subject" for n in state.notes["day.txt"])


def test_an_english_rolling_round_of_a_japanese_git_log_is_in_the_wrong_language():
    """A log's parts are mostly Latin letters (hashes, authors, diffstat paths), its prose Japanese: a
    rolling round that summarised the development log in English passed the language check when the
    part's letters were judged instead of its sentences."""
    from precis.engine.summary.language import script_of
    files = "".join(f" src/hwenc_jetson/jetson_v4l2_capturer_{n}.cpp | 4 ++--\n" for n in range(6))
    log = "".join(f"commit {i:07x}f\nAuthor: tnoho\nDate:   2021-12-29 05:38:27 +0000\n\n{subject}\n- {body}\n\n"
                  f"{files} 6 files changed, 12 insertions(+)\n" for i, (subject, body) in enumerate(GIT_LOG_COMMITS))
    english = "- Updated JetPack to version 4.6 and SDL to 2.0.20 in the build configuration files."

    def english_rounds(call):
        return english if call.kind == "round" else diligent(call)
    rt = FakeRuntime(script=english_rounds)
    plan = make_plan(rt, log, preset="project-log")
    doc = plan.documents[0]
    assert script_of(log[doc.chunks[0].start_char:doc.chunks[0].end_char]) == "latin"     # the trap
    state, options = start(rt, plan)
    events = run_all(rt, plan, state, options)
    flagged = [e for e in events if isinstance(e, CollapseDetected)]
    assert flagged and all("wrong_language" in e.flags for e in flagged)
    assert "Updated JetPack" not in state.summaries["day.txt"]
