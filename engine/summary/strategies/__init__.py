"""Summary strategies, one registry: each is a generator of engine events over one planned document.

rolling (the seed's Loop: the previous summary + the next chunk -> the updated summary, rules
re-injected at the top every round), map-reduce (chunk summaries merged level by level, bounded
depth), stuff (the whole document in one call, when it fits), notes (evidence-linked notes: code
chooses each part's sentences, the model rewords them, headings group them), account (the model says what
happens in each whole part in held lines, code traces and checks each sentence and shapes the prose).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from precis.engine.planning.summary_length import notes_sections_expected
from precis.engine.summary.strategies.account import run_account
from precis.engine.summary.strategies.map_reduce import run_map_reduce
from precis.engine.summary.strategies.notes import run_notes
from precis.engine.summary.strategies.rolling import run_rolling
from precis.engine.summary.strategies.stuff import run_stuff


@dataclass(frozen=True)
class Strategy:
    name: str
    title: str
    run: Callable                      # run(ctx, planned_document, total_rounds) -> events
    planned_rounds: Callable           # planned_rounds(planned_document, summary_words) -> rounds (retries on top)


STRATEGIES: dict[str, Strategy] = {s.name: s for s in (
    Strategy("account", "Account (what happens in each part, in order, in prose; every sentence traced to the "
             "document)", run_account, lambda doc, words=None: len(doc.chunks)),
    Strategy("rolling", "Rolling summary (previous summary + next part, every round)", run_rolling,
             lambda doc, words=None: len(doc.chunks)),
    Strategy("map-reduce", "Map-reduce (each part alone, then merged level by level)", run_map_reduce,
             lambda doc, words=None: 2 * len(doc.chunks) - 1),
    Strategy("stuff", "Stuff (the whole document in one call, when it fits)", run_stuff, lambda doc, words=None: 1),
    Strategy("notes", "Evidence-linked notes (each part's key sentences in the model's words, each linked to its "
             "quote, under headings)", run_notes,
             lambda doc, words=None: len(doc.chunks)
             + notes_sections_expected(doc.said_tokens, len(doc.chunks), words)),
)}
STRATEGY_NAMES = tuple(STRATEGIES)


def strategy(name: str) -> Strategy:
    if name not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGY_NAMES)}, not {name!r}")
    return STRATEGIES[name]
