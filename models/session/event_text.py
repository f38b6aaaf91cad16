"""Each engine event as the line a person reads, written once.

The window's status bar, `precis summarize`'s progress on stderr and a batch's log all show these
texts, so a failed check reads the same in the window as in last night's cron log. "Round N" is the
round's place in the run (``index + 1``, compactions and merges included), as in the window's round
list and inspector; "3 of 8 planned" counts parts as the progress model does.
"""
from __future__ import annotations

from precis.engine.events import (
    BY_FILE,
    CollapseDetected,
    CompactionDone,
    NoiseSkipped,
    RoundFinished,
    RoundRecord,
    RoundRepaired,
    RunPlanned,
)
from precis.engine.planning.run_plan import duration_text
from precis.models.session.job import PlacementChosen
from precis.models.session.progress import ProgressModel, counts_as_part

# What happened to a round while it ran: each gets a line of its own on every surface.
NOTE_EVENTS = (CollapseDetected, RoundRepaired, CompactionDone, NoiseSkipped)


def plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def planned_text(event: RunPlanned) -> str:
    """The run's id (what --resume takes), its rounds, strategy and preset, the time estimate."""
    if event.preset == BY_FILE:
        preset = f", presets by file: {event.preset_chosen_for}"
    elif event.preset:
        preset = f", preset {event.preset}" + (f" for {event.preset_chosen_for}" if event.preset_chosen_for else "")
    else:
        preset = ""
    estimate = f", about {duration_text(event.estimated_seconds)} at this machine's measured speed" \
        if event.estimated_seconds else ""
    resumed = f", resuming after {plural(event.resumed_from, 'round')}" if event.resumed_from else ""
    return f"Run {event.run_id}: {plural(event.rounds, 'round')} planned ({event.strategy}{preset}){estimate}{resumed}"


def placement_text(event: PlacementChosen) -> str:
    """Where the model runs, said once before the plan: the GPU layers the fit (or the person) chose and why."""
    return f"GPU: {event.reason}" + (f"; warning: {event.warning}" if event.warning else "")


def note_text(event) -> str:
    """A failed check, a repair, a compaction or a skipped part (one of NOTE_EVENTS)."""
    where = f"Round {event.index + 1}"
    if isinstance(event, CollapseDetected):
        return f"{where}: failed check ({', '.join(event.flags)}){_detail(event.detail)}; repairing"
    if isinstance(event, RoundRepaired):
        return f"{where}: repaired by {event.how.replace('_', ' ')}{_detail(event.detail)}"
    if isinstance(event, CompactionDone):
        return (f"{where}: compaction {event.before_chars:,} → {event.after_chars:,} characters"
                + ("" if event.accepted else " (rejected: the original is kept)"))
    if isinstance(event, NoiseSkipped):
        return f"{where}: {event.reason}"
    raise TypeError(f"not a note event: {type(event).__name__}")


def round_done_text(record: RoundRecord, progress: ProgressModel) -> str:
    """A finished round, after ``progress`` has counted it: which of the planned parts it was (or, for a
    compaction or the writing pass, its kind), the summary's length and the flags it carries."""
    kind = "" if record.kind == "round" else record.kind          # the rolling loop's rounds need no name
    counted = f"{progress.done} of {progress.planned} planned" if counts_as_part(record.kind) and progress.planned \
        else ""
    what = ", ".join(part for part in (kind, counted) if part)
    flags = f" ({', '.join(record.flags)})" if record.flags else ""
    return (f"Round {record.index + 1} done" + (f" ({what})" if what else "")
            + f": summary {record.summary_chars:,} characters{flags}")


def event_text(event, progress: ProgressModel | None = None) -> str | None:
    """The line for ``event``; None for what is progress rather than news (a round started, tokens, the
    end, which each surface reports with its own totals). A finished round needs the run's ``progress``."""
    if isinstance(event, PlacementChosen):
        return placement_text(event)
    if isinstance(event, RunPlanned):
        return planned_text(event)
    if isinstance(event, NOTE_EVENTS):
        return note_text(event)
    if isinstance(event, RoundFinished) and progress is not None:
        return round_done_text(event.record, progress)
    return None


def _detail(detail: str) -> str:
    return f" — {detail}" if detail else ""
