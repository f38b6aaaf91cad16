"""Where a run stands, from its events: rounds done of planned, time left, tokens per second.

The terminal's progress line and the window's status line both show this one model, so the two
never disagree about what "round 6 of 5" means (retries and compactions are not parts).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from precis.engine.events import RoundFinished, RoundStarted, RunPlanned, TokensGenerated

PART_KINDS = ("round", "map", "stuff", "notes", "account")   # rounds that read a part of the document


def counts_as_part(kind: str) -> bool:
    """Whether a finished round of ``kind`` moves "done of planned" on: a part's round or a merge (``done``
    never passes the plan); compactions, retries and the writing pass do not."""
    return kind in PART_KINDS or kind == "merge"


@dataclass
class ProgressModel:
    clock: object = time.monotonic
    planned: int = 0                 # rounds the plan counts (compactions and retries come on top)
    done: int = 0                    # of those, finished (resumed ones included)
    rounds_finished: int = 0         # every finished round, compactions and merges included
    current_kind: str = ""
    current_index: int = -1
    attempt: int = 1
    tokens_per_second: float = 0.0
    generated_tokens: int = 0
    resumed_from: int = 0
    started_at: float = 0.0
    curve: list[int] = field(default_factory=list)
    _round_seconds: list[float] = field(default_factory=list)

    def update(self, event) -> None:
        if isinstance(event, RunPlanned):
            self.planned = event.rounds
            self.resumed_from = event.resumed_from
            self.done = event.resumed_parts
            self.started_at = self.clock()
        elif isinstance(event, RoundStarted):
            self.current_kind, self.current_index, self.attempt = event.kind, event.index, event.attempt
            self.generated_tokens = 0
        elif isinstance(event, TokensGenerated):
            self.tokens_per_second = event.tokens_per_second
            self.generated_tokens = event.generated_tokens
        elif isinstance(event, RoundFinished):
            r = event.record
            self.rounds_finished += 1
            self.curve.append(r.summary_chars)
            if counts_as_part(r.kind):
                self.done = min(self.planned, self.done + 1) if self.planned else self.done + 1
                self._round_seconds.append(r.seconds)

    def restore(self, finished_rounds: list) -> None:
        """A resumed run's earlier rounds, for the curve (RunPlanned says how many parts they were)."""
        for r in finished_rounds:
            self.rounds_finished += 1
            self.curve.append(r.summary_chars)

    @property
    def elapsed_seconds(self) -> float:
        return self.clock() - self.started_at if self.started_at else 0.0

    @property
    def seconds_left(self) -> float | None:
        """From the rounds run in this session (resumed rounds took their time elsewhere)."""
        ran = len(self._round_seconds)
        if not ran or not self.planned:
            return None
        per_round = self.elapsed_seconds / ran
        return per_round * max(0, self.planned - self.done)

    @property
    def current_number(self) -> int:
        """The 1-based part being worked on, never past the plan."""
        return min(self.done + 1, self.planned) if self.planned else self.done + 1

    def status_text(self) -> str:
        if not self.planned:
            return "Starting…"
        what = {"compaction": "compacting the summary", "merge": "merging"}.get(self.current_kind, "")
        parts = [f"Round {self.current_number} of {self.planned}" + (f" ({what})" if what else "")
                 + (" · retry" if self.attempt > 1 else "")]
        if self.tokens_per_second:
            parts.append(f"{self.tokens_per_second:,.1f} tok/s")
        parts.append(f"{clock_text(self.elapsed_seconds)} elapsed")
        left = self.seconds_left
        if left is not None:
            parts.append(f"~{clock_text(left)} left")
        return " · ".join(parts)


def clock_text(seconds: float) -> str:
    seconds = int(max(0, seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    return f"{seconds // 60}:{seconds % 60:02d}"
