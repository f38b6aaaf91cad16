"""The notes strategy's choice of sentences: code chooses what each part adds, within the length the notes
still have room for; a git log gives its commit subjects, a chat its people's words, a meeting its exchanges."""
from __future__ import annotations

import re

from precis.engine.planning.run_plan import build_plan
from precis.engine.planning.summary_length import (
    NOTES_FILL,
    POINT_SHARE_PRIOR,
    notes_chars_for,
    pace_room_chars,
    part_sentence_chars,
    summary_chars_for,
)
from precis.engine.prompts.layout import RoundLayout
from precis.engine.prompts.presets import load_preset
from precis.engine.runs.outputs import summary_markdown
from precis.engine.runs.run import RunOptions
from precis.engine.summary.evidence import Note
from precis.engine.summary.strategies.notes import written_chars
from tests.engine.notes_fixtures import (
    GIT_LOG_COMMITS,
    finished_records,
    git_log,
    notes_run,
    quotation_meeting,
    refuses_every_fourth_point,
    report_of,
)
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import claude_code_day, conversation_day, make_plan, run_all, start


def test_code_chooses_the_sentences_and_the_model_only_rewords_them():
    rt, plan, state, events = notes_run(diligent, sessions=4)
    kinds = [c.kind for c in rt.calls]
    assert "notes" not in kinds and kinds.count("reword") == plan.rounds     # one short call per part
    records = [r for r in finished_records(events) if r.kind == "notes"]
    assert all(r.attempts == 1 and "reworded" in r.flags for r in records)
    text = plan.documents[0].text
    kept = state.notes["day.txt"]
    for n in kept:       # every note's quote is a whole sentence of its own part, its point the rewording
        chunk = plan.documents[0].chunks[n["part"]]
        assert chunk.sent_start_char <= n["start_char"] and n["end_char"] <= chunk.end_char
        assert text[n["start_char"]:n["end_char"]] == n["quote"] and n["origin"] == "reworded"
    # each part adds what the earlier ones did not say: no two notes carry the same amount
    amounts = [re.search(r"EUR (\d+,\d+)", n["quote"]).group(1) for n in kept]
    assert len(amounts) == len(set(amounts))


def test_the_notes_fill_the_summarys_length_when_rewordings_are_shorter_than_their_sentences():
    """The fake model's rewordings keep a sentence's first 12 words, about half of it, as the 1.5B model's
    notes are shorter than their sentences: each part chooses sentences for what the notes still have room
    for, divided by the share of a sentence this document's notes keep, so the notes come out at the
    summary's length, not at the 60-86% of it that choosing sentences for the whole length gave on the
    development set (docs/quality.md, final9)."""
    rt = FakeRuntime()
    plan = make_plan(rt, conversation_day(sessions=6, noise_sessions=()))
    state, options = start(rt, plan, RunOptions(strategy="notes", summary_words=150))
    records = finished_records(run_all(rt, plan, state, options))
    notes = [Note.from_dict(d) for d in state.notes["day.txt"]]
    points, sentences = written_chars(notes)
    assert points < 0.7 * sentences                              # the notes are shorter than their sentences
    target = notes_chars_for(plan.documents[0].tokens, 150)
    assert 0.85 * target <= points <= target                      # and still fill the length asked for
    assert not any(r.kind == "compaction" for r in records)        # without overshooting into merges

    rt = FakeRuntime(script=refuses_every_fourth_point)
    plan = make_plan(rt, conversation_day(sessions=6, noise_sessions=()))
    state, options = start(rt, plan, RunOptions(strategy="notes", summary_words=150))
    records = finished_records(run_all(rt, plan, state, options))
    assert sum(r.notes_unsupported for r in records) >= 4                    # refusals dropped sentences
    points, _ = written_chars([Note.from_dict(d) for d in state.notes["day.txt"]])
    assert 0.7 * target <= points <= target                       # the later parts chose more for them


def test_a_parts_sentence_budget_follows_what_is_left_to_write_and_the_share_a_note_keeps():
    # the first part of two: half the length, divided by the prior share of a sentence a note keeps
    assert part_sentence_chars(1000, 500, 1000, 1000) == round(1000 * NOTES_FILL * 0.5 / POINT_SHARE_PRIOR)
    # the last part, the notes so far keeping half their sentences: what is left, twice over in sentences
    assert part_sentence_chars(1000, 500, 500, 1000, points_chars=300, sentences_chars=600) == round(
        (1000 * NOTES_FILL - 300) / 0.5)
    # the last of ten parts, every earlier one refused: at most twice the part's even share
    assert part_sentence_chars(1000, 100, 100, 1000) == round(2 * 1000 * NOTES_FILL * 0.1 / POINT_SHARE_PRIOR)
    # the length already written: one sentence at most, so the part is still read
    assert part_sentence_chars(1000, 500, 500, 1000, points_chars=1200, sentences_chars=2000) == 1


def test_the_room_a_part_keeps_for_sentences_kept_for_their_figures_is_what_the_notes_pace_leaves():
    # the second of four parts read, the notes so far at 300 characters: half the length is their pace
    assert pace_room_chars(1000, 500, 1000, 300) == round(1000 * NOTES_FILL * 0.5 - 300)
    # at or past their pace, no room; the last part's room is what is left of the whole length
    assert pace_room_chars(1000, 250, 1000, 300) == 0
    assert pace_room_chars(1000, 1000, 1000, 900) == round(1000 * NOTES_FILL - 900)


def test_a_meetings_summary_length_follows_what_was_said_not_its_speaker_labels_and_fillers():
    """The same meeting with two filler turns after every line is nearly twice as many tokens, and says the
    same: its plan sets the same length, and its notes come out at that length (the second development
    meeting is 46% labels and fillers: at its raw tokens its notes ran 50% longer than the plain loop's
    summary, final11)."""
    layout = RoundLayout(load_preset("meeting-minutes"), "2026-11-27")
    text = quotation_meeting(40)
    filled = "".join(f"{ln}\nMarketing: Um , yeah .\nUser Interface: Mm-hmm . Okay .\n" for ln in text.splitlines())
    lengths, said = [], []
    for meeting in (text, filled):
        rt = FakeRuntime()
        plan = build_plan(rt, layout, 2048, [("meeting.txt", meeting, ())], strategy="notes")
        doc = plan.documents[0]
        said.append((doc.tokens, doc.said_tokens))
        state, options = start(rt, plan, RunOptions(strategy="notes"))
        run_all(rt, plan, state, options)
        points, _ = written_chars([Note.from_dict(d) for d in state.notes["meeting.txt"]])
        assert points <= notes_chars_for(doc.said_tokens)
        lengths.append(len(state.summaries["meeting.txt"]))
    (tokens, said_tokens), (filled_tokens, filled_said) = said
    assert filled_tokens > 1.4 * tokens and said_tokens < 0.9 * tokens
    assert abs(filled_said - said_tokens) <= 0.05 * said_tokens
    assert summary_chars_for(said_tokens) > summary_chars_for(0)           # above the shortest summary
    assert abs(lengths[1] - lengths[0]) <= 0.15 * lengths[0], lengths


def test_a_meetings_short_turns_reach_the_summary_as_a_note_quoting_the_exchange_with_its_lines():
    rt = FakeRuntime()
    text = quotation_meeting()
    layout = RoundLayout(load_preset("meeting-minutes"), "2026-11-27")
    plan = build_plan(rt, layout, 2048, [("meeting.txt", text, ())], strategy="notes")
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    shown = [line for c in rt.calls if c.kind == "reword" for line in c.content.splitlines()]
    assert any("Marketing: That's expensive. / Project Manager: But she wanted" in line for line in shown)
    exchange_notes = [n for n in state.notes["meeting.txt"] if "\n" in n["quote"]]
    assert exchange_notes and all(n["origin"] == "reworded" for n in exchange_notes)
    for n in exchange_notes:                             # the quote is the transcript, turn to turn
        assert text[n["start_char"]:n["end_char"]] == n["quote"] and n["end_line"] > n["start_line"]
    md = summary_markdown(report_of(rt, plan, state), state)
    assert f"lines {exchange_notes[0]['start_line']}–{exchange_notes[0]['end_line']} (reworded)" in md


def test_a_chat_transcripts_notes_quote_only_its_peoples_words_and_are_in_their_language():
    rt = FakeRuntime()
    text = claude_code_day(steps=8)
    plan = make_plan(rt, text)
    assert plan.rounds >= 3                         # parts that start inside tool outputs
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    notes = state.notes["day.txt"]
    assert notes
    for n in notes:
        turn_start = text.rfind("\n[", 0, n["start_char"]) + 1
        assert text.startswith(("[assistant] ", "[user] タスク"), turn_start), n["quote"]
        assert not n["quote"].startswith("[")       # the turn's marker is not its sentence
    rewords = [c for c in rt.calls if c.kind == "reword"]
    assert rewords and all("in Japanese" in c.prompt for c in rewords)
    assert not any(w in c.content for c in rewords for w in ("planning specialist", "coverage:"))


def test_a_git_log_is_noted_by_its_commit_subjects_without_asking_the_model_to_reword_them():
    log = git_log()
    rt = FakeRuntime()
    plan = make_plan(rt, log, preset="project-log")
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    events = run_all(rt, plan, state, options)
    assert len(plan.documents[0].chunks) > 1 and not [c for c in rt.calls if c.kind == "reword"]
    notes = state.notes["day.txt"]
    subjects = {s for s, _ in GIT_LOG_COMMITS}
    assert notes and all(n["origin"] == "subject" and n["point"] == n["quote"] in subjects for n in notes)
    assert all(log[n["start_char"]:n["end_char"]] == n["quote"] for n in notes)
    assert len({n["quote"] for n in notes}) == len(notes)                 # the same subject again is a repeat
    parts = [r for r in finished_records(events) if r.kind == "notes"]
    assert all("commit_subjects" in r.flags or "nothing_to_note" in r.flags for r in parts)
    summary = state.summaries["day.txt"]
    assert "### 変更\n" in summary and "### 修正\n- Jetson のデコーダーの切り抜きを修正 [" in summary  # the log's shape
    assert summary.startswith("## 2021-12-29\n") and not rt.calls        # headed by its commits' day, no call
    assert "(the commit's subject line)" in summary_markdown(report_of(rt, plan, state), state)


def test_a_git_logs_notes_leave_out_what_the_log_undoes_or_replaces_even_parts_apart():
    """A commit reverted in a later part, and a version bump a later part bumps again, are in no note:
    the release did not ship them. The whole log's weights decide, not the part's."""
    def commit(sha, subject, body, path="src/main.cpp"):
        return (f"commit {sha}\nAuthor: tnoho\nDate:   2021-12-29 05:38:27 +0000\n\n{subject}\n{body}\n\n"
                f" {path} | 4 ++--\n 1 file changed, 2 insertions(+)\n")
    log = (commit("0e17c218", "Create codeql-analysis.yml", "", ".github/workflows/codeql-analysis.yml")
           + commit("1d2e3f4a", "Boost を 1.81.0 に上げる", "- Boost を上げました", "VERSION")
           + git_log()
           + commit("7433a393", 'Revert "Create codeql-analysis.yml"',
                    "\nThis reverts commit 0e17c218326b9c3c85e824a4b9d29aadba535357.", ".github/workflows/codeql-analysis.yml")
           + commit("8d14bbb8", "Boost のバージョンを 1.83.0 に上げる", "- Boost を上げました", "VERSION"))
    rt = FakeRuntime()
    plan = make_plan(rt, log, preset="project-log")
    chunks = plan.documents[0].chunks
    assert log.index("Create codeql") < chunks[0].end_char <= log.index("Revert")    # parts apart
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    quotes = [n["quote"] for n in state.notes["day.txt"]]
    assert not [q for q in quotes if "codeql" in q or "1.81.0" in q]
    assert "Boost のバージョンを 1.83.0 に上げる" in quotes
