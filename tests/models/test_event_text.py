"""One description of each event (models/session/event_text.py): `precis summarize`'s progress and a
batch's log say the same words for the same events (the window's notes: tests/gui/test_main_window.py)."""
from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

from precis.engine import events as ev
from precis.engine.errors import BadInput
from precis.models.cli.batch_log import BatchLog
from precis.models.cli.progress_line import ProgressLine
from precis.models.session.event_text import event_text, note_text, planned_text, round_done_text
from precis.models.session.progress import ProgressModel


def _record(index: int, kind: str = "round", chars: int = 400, flags=()) -> ev.RoundRecord:
    return ev.RoundRecord(index, kind, "day.txt", index, 0, 10, 100, 0, 0, chars, 100, 200, 200, 0, 50, 1.0,
                       flags=list(flags))


def _a_run() -> list:
    """A rolling run of 3 parts: a failed check repaired by a retry, a compaction, a skipped noisy part."""
    return [ev.RunPlanned("run-1", "/runs/run-1", "rolling", 3, [900, 900, 400], {}, preset="meeting-minutes",
                       preset_chosen_for="a meeting transcript (4 speakers)"),
            ev.RoundStarted(0, "round", 0, 3, 900, 0), ev.TokensGenerated(0, "Alice", 1, 10.0),
            ev.RoundFinished(_record(0)),
            ev.RoundStarted(1, "round", 1, 3, 900, 400),
            ev.CollapseDetected(1, ["shrank", "meta"], 400, 30, 1, "the summary fell from 400 to 30 characters"),
            ev.RoundRepaired(1, "retry", 420, "retry passed"),
            ev.RoundFinished(_record(1, chars=420, flags=["shrank", "meta", "repaired"])),
            ev.CompactionDone(2, 420, 200, True), ev.RoundFinished(_record(2, "compaction", 200)),
            ev.NoiseSkipped(3, 2, "only logs, tool calls or greetings: nothing to add"),
            ev.RoundFinished(_record(3, flags=["noise_skipped"]))]


def test_the_command_line_and_a_batch_say_the_same_words_for_the_same_events():
    err = io.StringIO()
    progress_line = ProgressLine(err)
    doc = SimpleNamespace(path=Path("day.txt"))
    batch_err = io.StringIO()
    batch_log = BatchLog([doc], err=batch_err)
    item = SimpleNamespace(file=str(Path("day.txt").resolve()), name="day.txt", out="out/day", seconds=3.0)
    for event in _a_run():
        progress_line(event)
        batch_log(item, event)
    single = err.getvalue().splitlines()
    batch = [line.removeprefix("precis: [1/1] day.txt: ") for line in batch_err.getvalue().splitlines()]
    assert len(batch) == len(single) == 9            # the plan, four rounds, four notes; started rounds say nothing
    # The batch line is the single run's, without the bar and the curve a log of many documents leaves out.
    assert all(one.startswith(other) for one, other in zip(single, batch)), list(zip(single, batch))
    assert batch == [
        "Run run-1: 3 rounds planned (rolling, preset meeting-minutes for a meeting transcript (4 speakers))",
        "Round 1 done (1 of 3 planned): summary 400 characters",
        "Round 2: failed check (shrank, meta) — the summary fell from 400 to 30 characters; repairing",
        "Round 2: repaired by retry — retry passed",
        "Round 2 done (2 of 3 planned): summary 420 characters (shrank, meta, repaired)",
        "Round 3: compaction 420 → 200 characters",
        "Round 3 done (compaction): summary 200 characters",                # not a part: 2 of 3 still
        "Round 4: only logs, tool calls or greetings: nothing to add",
        "Round 4 done (3 of 3 planned): summary 400 characters (noise_skipped)"]


def test_a_batch_says_what_only_a_batch_knows_around_the_same_lines():
    err = io.StringIO()
    docs = [SimpleNamespace(path=Path(name)) for name in ("a.txt", "b.txt")]
    log = BatchLog(docs, err=err)
    a, b = (SimpleNamespace(file=str(d.path.resolve()), name=d.path.name, out=f"out/{d.path.stem}", seconds=61.0)
            for d in docs)
    log(a, None)
    log(b, BadInput("b.txt is empty"))
    assert err.getvalue().splitlines() == [
        "precis: [1/2] a.txt: already summarized by an earlier run of this batch, skipped",
        "precis: [2/2] b.txt: failed: b.txt is empty"]


def test_plural_estimate_resume_and_presets_by_file():
    one = ev.RunPlanned("r", "/r", "notes", 1, [500], {}, resumed_from=1, estimated_seconds=600.0, preset=ev.BY_FILE,
                     preset_chosen_for="a.txt meeting-minutes for a meeting; b.txt git-log for commits")
    assert planned_text(one) == ("Run r: 1 round planned (notes, presets by file: a.txt meeting-minutes for a meeting; "
                                 "b.txt git-log for commits), about 10 min at this machine's measured speed, resuming "
                                 "after 1 round")
    many = ev.RunPlanned("r", "/r", "rolling", 1_200, [500] * 1_200, {}, resumed_from=2)
    assert planned_text(many) == "Run r: 1,200 rounds planned (rolling), resuming after 2 rounds"


def test_notes_without_detail_and_a_rejected_compaction():
    assert note_text(ev.RoundRepaired(4, "notes_fallback", 300)) == "Round 5: repaired by notes fallback"
    assert note_text(ev.CollapseDetected(0, ["empty"], 0, 0, 2, "")) == "Round 1: failed check (empty); repairing"
    assert note_text(ev.CompactionDone(6, 1_500, 1_900, False)) == \
        "Round 7: compaction 1,500 → 1,900 characters (rejected: the original is kept)"


def test_a_merge_counts_toward_the_plan_and_the_writing_pass_does_not():
    progress = ProgressModel()
    progress.update(ev.RunPlanned("r", "/r", "map-reduce", 3, [900, 900], {}))
    texts = []
    for record in (_record(0, "map"), _record(1, "map"), _record(2, "merge"), _record(3, "write")):
        event = ev.RoundFinished(record)
        progress.update(event)
        texts.append(event_text(event, progress))
    assert texts == ["Round 1 done (map, 1 of 3 planned): summary 400 characters",
                     "Round 2 done (map, 2 of 3 planned): summary 400 characters",
                     "Round 3 done (merge, 3 of 3 planned): summary 400 characters",
                     "Round 4 done (write): summary 400 characters"]
    assert round_done_text(_record(3, "write"), progress) == texts[-1]
    assert event_text(ev.RoundFinished(_record(0))) is None            # no progress: no "of N" to tell
    assert event_text(ev.RoundStarted(0, "round", 0, 3, 900, 0)) is None


def test_where_the_model_runs_is_said_alike_by_the_command_line_and_a_batch():
    from precis.models.session.job import PlacementChosen
    chosen = PlacementChosen(20, 8192, 16384, "20 of 29 layers on CUDA0 (a card); CUDA0 keeps 1,024 MiB free",
                             "the context was lowered from 16,384 to fit", ())
    err, batch_err = io.StringIO(), io.StringIO()
    item = SimpleNamespace(file=str(Path("day.txt").resolve()), name="day.txt", out="out/day", seconds=3.0)
    ProgressLine(err)(chosen)
    BatchLog([SimpleNamespace(path=Path("day.txt"))], err=batch_err)(item, chosen)
    said = "GPU: 20 of 29 layers on CUDA0 (a card); CUDA0 keeps 1,024 MiB free; warning: the context was lowered " \
           "from 16,384 to fit"
    assert event_text(chosen) == said
    assert err.getvalue().splitlines() == [said]
    assert batch_err.getvalue().splitlines() == [f"precis: [1/1] day.txt: {said}"]
