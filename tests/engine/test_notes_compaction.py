"""Compaction of the notes: related neighbours merged while the notes outgrow the summary's length, each
merge checked by the named checks of a merge (engine.summary.checks) and citing both notes."""
from __future__ import annotations

import re

from precis.engine.events import CompactionDone
from precis.engine.planning.summary_length import merges_expected, summary_chars_for
from precis.engine.prompts.notes import POINT_CHARS
from precis.engine.runs.run import RunOptions
from precis.engine.summary.compaction import Bullet, merge_problems
from precis.engine.summary.evidence import Note
from precis.engine.summary.strategies.notes import compact_notes
from tests.engine.notes_fixtures import every_line_says, finished_records, report_of
from tests.fake_runtime import FakeRuntime
from tests.summary_fixtures import conversation_day, make_plan, run_all, start


def test_notes_that_outgrow_the_summary_are_compacted_into_bullets_that_keep_both_sources():
    rt = FakeRuntime()
    plan = make_plan(rt, conversation_day(sessions=4, noise_sessions=()))
    state, options = start(rt, plan, RunOptions(strategy="notes", summary_words=30))   # 180 characters
    events = run_all(rt, plan, state, options)
    records = finished_records(events)
    compactions = [r for r in records if r.kind == "compaction"]
    assert compactions and "compaction_rejected" not in compactions[0].flags
    assert [r.kind for r in records].index("compaction") > max(i for i, r in enumerate(records) if r.kind == "notes")
    done = [e for e in events if isinstance(e, CompactionDone)]
    assert done and all(e.after_chars < e.before_chars for e in done)
    lines = report_of(rt, plan, state).as_json()["evidence"]["day.txt"]["lines"]
    cited = [i for line in lines for i in line["notes"]]
    assert any(len(line["notes"]) >= 2 for line in lines)                  # a merged bullet cites both notes
    assert sorted(cited) == sorted(n["id"] for n in state.notes["day.txt"])   # and no note's source is lost
    assert len(lines) < len(cited) + 2


def test_a_merge_that_invents_or_drops_a_note_is_refused_and_the_notes_stay_apart():
    rt = FakeRuntime(script=every_line_says("merge_notes", "The budget is EUR 99,99"))
    plan = make_plan(rt, conversation_day(sessions=4, noise_sessions=()), preset="generic")
    state, options = start(rt, plan, RunOptions(strategy="notes", summary_words=30))
    events = run_all(rt, plan, state, options)
    compactions = [r for r in finished_records(events) if r.kind == "compaction"]
    assert compactions and all("compaction_rejected" in r.flags and r.notes_unsupported >= 1 for r in compactions)
    # every merge refused, each for a number neither note holds: counted by that check's name
    assert all(r.refused_by.get("words_not_held") == r.notes_unsupported for r in compactions)
    asked = [pair for c in rt.calls if c.kind == "merge_notes" for pair in re.findall(r"^\[\d+\] (.+)$", c.content, re.M)]
    assert len(asked) == len(set(asked))                                    # a refused pair is not asked again
    lines = report_of(rt, plan, state).as_json()["evidence"]["day.txt"]["lines"]
    assert all(len(line["notes"]) <= 1 for line in lines) and "99,99" not in state.summaries["day.txt"]


def test_a_merge_is_judged_by_the_merge_checks_and_in_the_accounts_prose_must_end_as_a_sentence():
    """merge_problems names the checks of a merge that refuse it (each check's own cases are its examples in
    engine.summary.checks); in the account's prose (``whole_sentence``) it must also end as a sentence does."""
    def bullet(i, point):
        return Bullet(point, (Note(i, point, point, "d", 0, 0, len(point)),))
    a = bullet(1, "Mika proposes moving the launch of the remote to May")
    b = bullet(2, "Mika says the supplier cannot deliver the cases before May")
    fair = "Mika proposes a May launch as the supplier cannot deliver the cases earlier"
    assert merge_problems(fair, a, b, None) == [] and merge_problems(fair + ".", a, b, None, whole_sentence=True) == []
    cut = "Mika proposes a May launch as the supplier is la"
    assert merge_problems(cut, a, b, None) == [] and merge_problems(cut, a, b, None, whole_sentence=True) == \
        ["no_sentence_end"]
    assert {"side_by_side", "name_not_in_part"} <= set(merge_problems("Ben proposes a May launch / the supplier is late",
                                                                       a, b, None))
    assert "truncated" in merge_problems(("Mika proposes a May launch " * 9)[:POINT_CHARS[1]], a, b, None)


def test_notes_a_little_over_the_length_are_written_as_they_are_not_merged():
    """The length is a target: a merge is a model call that can lose a fact, so the plan counts none for
    notes 6% over it and some for notes 23% over (compact_notes leaves notes as they are by the same
    COMPACTION_SLACK)."""
    assert summary_chars_for(10_000) == 2_700
    assert merges_expected(10_000, 34) == 0          # 34 notes of 75 characters and 5 headings: 2,868
    assert merges_expected(10_000, 40) > 0           # 3,330


def test_a_document_of_40_to_70k_characters_is_read_in_at_most_3000_characters():
    """The summary a person reads first: 3,000 characters at most for a document of 40-70k characters (up to
    READER_TOKENS), even where its notes run over the length by all COMPACTION_SLACK lets them; growing with
    the document below that and again past it, for a day with an assistant, up to MAX_WORDS."""
    from precis.engine.planning.summary_length import (
        CHARS_PER_WORD,
        COMPACTION_SLACK,
        MAX_WORDS,
        READER_CHARS,
        READER_TOKENS,
    )
    lengths = [summary_chars_for(tokens) for tokens in range(0, 80_001, 250)]
    assert lengths == sorted(lengths)                                    # never shorter for a longer document
    for tokens in range(10_000, READER_TOKENS + 1, 250):
        assert summary_chars_for(tokens) * (1 + COMPACTION_SLACK) <= READER_CHARS
    assert summary_chars_for(13_500) < 3_636                             # the 64k-character meeting's, before
    assert summary_chars_for(8_000) == 2_160                             # shorter documents as before
    assert summary_chars_for(40_000) > summary_chars_for(READER_TOKENS)  # a long day says more
    assert summary_chars_for(200_000) == MAX_WORDS * CHARS_PER_WORD
    assert summary_chars_for(13_500, 600) == 3_600                       # a length asked for is the length


def test_compact_notes_leaves_notes_a_little_over_the_length_as_they_are():
    """No merge call is made for notes within COMPACTION_SLACK of the length: compact_notes returns them
    before it touches the run (a context with nothing but the length asked for would fail on a merge)."""
    from types import SimpleNamespace

    from precis.engine.planning.summary_length import COMPACTION_SLACK, reading_chars_for
    length = summary_chars_for(0, 150)                                   # 900 characters asked for
    point = "x" * 70
    bullets = [Bullet(point, (Note(i, point, point, "d", 0, i, i + 1),)) for i in range(12)]
    over = reading_chars_for(12 * 70, 12) / length - 1
    assert 0 < over < COMPACTION_SLACK                                   # 6% over the length
    run = compact_notes(SimpleNamespace(summary_words=150), SimpleNamespace(said_tokens=0), bullets, 1, None)
    try:
        next(run)
        raise AssertionError("compact_notes started a merge round")
    except StopIteration as done:
        assert done.value == bullets
