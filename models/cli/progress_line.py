"""The terminal's view of a run: one updating line on a TTY (round i of N, summary length, the curve
as a sparkline with collapse marks, time left); one line per round when stderr is a file (cron logs).
What it counts comes from precis.models.session.progress, which the window's status line shows too;
what it says of each event, from precis.models.session.event_text, which the window and batches say too."""
from __future__ import annotations

from precis.engine.events import CollapseDetected, RoundFinished, RoundStarted, TokensGenerated
from precis.models.session.event_text import event_text, round_done_text
from precis.models.session.progress import ProgressModel, clock_text

SPARK = "▁▂▃▄▅▆▇█"


def sparkline(values: list[int], marks: set[int] = frozenset(), width: int = 40) -> str:
    offset = max(0, len(values) - width)
    values = values[-width:]
    top = max(values, default=0) or 1
    return "".join("!" if i + offset in marks else SPARK[min(7, int(v / top * 7.999))] for i, v in enumerate(values))


class ProgressLine:
    def __init__(self, stream) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.progress = ProgressModel()
        self.collapses: set[int] = set()

    def __call__(self, event) -> None:
        p = self.progress
        p.update(event)
        if isinstance(event, (RoundStarted, TokensGenerated)):
            if self.tty:
                self._line(f"{p.status_text()}  {sparkline(p.curve, self.collapses)}")
        elif isinstance(event, RoundFinished):
            bar = "#" * int(20 * min(p.done, p.planned) / max(1, p.planned))
            left = p.seconds_left
            self._line(f"{round_done_text(event.record, p)}  [{bar:<20}]  {sparkline(p.curve, self.collapses)}  "
                       f"{clock_text(p.elapsed_seconds)} elapsed" + (f", ~{clock_text(left)} left" if left else ""),
                       final=not self.tty or p.done >= p.planned)
        elif (text := event_text(event)) is not None:      # the plan, a failed check, a repair, ...
            if isinstance(event, CollapseDetected):
                self.collapses.add(len(p.curve))
            self._line(text, final=True)

    def _line(self, text: str, final: bool = False) -> None:
        if self.tty:
            self.stream.write("\r\033[K" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


class PlanningProgress:
    """'planning: 12.3 of 60.0 million characters' on stderr while a long document is chunked: one
    updating line on a terminal, a line per tenth in a log; nothing for short documents."""

    def __init__(self, stream, min_chars: int = 1_000_000) -> None:
        self.stream, self.min_chars, self.last_tenth = stream, min_chars, -1

    def __call__(self, done: int, total: int) -> None:
        if total < self.min_chars:
            return
        text = f"planning: {done / 1e6:,.1f} of {total / 1e6:,.1f} million characters"
        if self.stream.isatty():
            self.stream.write("\r\033[K" + text + ("\n" if done >= total else ""))
        elif done * 10 // total > self.last_tenth:
            self.last_tenth = done * 10 // total
            self.stream.write(text + "\n")
        self.stream.flush()


def print_end(reported, paths, out) -> None:
    report = reported.report
    t = report.totals
    facts = report.fact_totals()
    print(f"{reported.outcome}: {len(report.rounds)} rounds, {t['seconds']:.0f} s model time; prompt tokens "
          f"{t['prompt_evaluated']:,} evaluated + {t['prompt_reused']:,} reused, {t['generated_tokens']:,} generated; "
          f"static prompt evaluated {report.prefix_reuse['static_prompt_evaluations']}x; "
          f"{len(report.collapses)} failed rounds repaired; facts kept {facts['kept']}, changed {facts['changed']}, "
          f"lost {facts['lost']}", file=out)
    if reported.message and reported.outcome != "failed":     # a failure's message is printed as an error
        print(reported.message, file=out)
    for p in paths:
        print(f"wrote {p}", file=out)
