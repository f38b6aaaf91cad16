"""Is a chunk only noise: system logs, tool calls, startup greetings (the seed's noise rule)?

Such a chunk cannot change the summary, and it is exactly what made the seed's round 5 collapse
(6803 -> 810 characters). Precis recognises it deterministically and keeps the summary as it was
without asking the model, which is both faster and immune to that collapse. Recorded in the
report as "noise_skipped"; switched off with ``--no-skip-noise``.
"""
from __future__ import annotations

import re

_NOISE_LINE = re.compile(
    r"^\s*(\[[^\]]*\]\s*)?("
    r"(tool|agent|system|cron|job|worker|ci|bot)\b.*"                        # tool · imap: ..., agent started: ...
    r"|\[?(tool_call|tool_result|tool_use)\]?.*"
    r"|(good (morning|evening|afternoon)|hello|hi)[!,.].*(starting|started|ready|fetching|online).*"
    r"|(info|debug|warn|warning|trace)\b.*"
    r"|={3,}.*(automated|no conversation).*={3,}"                            # a session header saying so
    r"|[\w./-]+\s*(exited|finished|started|completed)( with)?\b.*"
    r"|(GET|POST|PUT|DELETE|PATCH) /.*"
    r"|\$ .*"
    r")$", re.I)


def noise_share(text: str) -> float:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return 1.0
    return sum(bool(_NOISE_LINE.match(ln)) for ln in lines) / len(lines)


def is_noise(text: str, threshold: float = 0.9) -> bool:
    """True when (nearly) every non-blank line is log, tool or greeting output."""
    return noise_share(text) >= threshold


def substantive_text(text: str) -> str:
    """The lines that are not log, tool or greeting output: where facts worth keeping are. Test
    timings and progress percentages in a pytest log are numbers, not facts of the day."""
    return "\n".join(ln for ln in text.splitlines() if ln.strip() and not _NOISE_LINE.match(ln))
