"""Map-reduce / tree: each chunk summarized on its own, then merged level by level (bounded depth).

Each map reply is capped so that any two fit in one merge prompt; each level merges consecutive
summaries in groups that fit the context, so every level at least halves the count, and after
MAX_DEPTH levels what remains is joined in order (marked), never looped on.
"""
from __future__ import annotations

import queue
from concurrent.futures import Future, ThreadPoolExecutor

from precis.engine.planning.run_plan import PlannedDocument
from precis.engine.prompts.layout import WORST_REMINDER
from precis.engine.summary.guard import CopyWatch
from precis.engine.summary.strategies.base import RunContext, document_language, pack_consecutive

MAX_DEPTH = 6


def map_cap(ctx: RunContext) -> int:
    b = ctx.budget
    return max(64, min(b.summary_out_cap, (b.summary_in_cap + b.chunk_budget) // 2))


def run_map_reduce(ctx: RunContext, doc: PlannedDocument, total_rounds: int):
    finished = {(r.kind, r.chunk_index): r for r in ctx.state.rounds_of(doc.name)}
    partials: list[str] = []
    cap = map_cap(ctx)
    language = document_language(ctx, doc)
    pending = [c for c in doc.chunks if ("map", c.index) not in finished]
    with MapPrefetch(ctx, doc, pending, cap) as prefetch:
        for chunk in doc.chunks:
            if ("map", chunk.index) in finished:
                partials.append(finished[("map", chunk.index)].summary)
                continue
            ctx.check_cancel()
            source = doc.text[chunk.sent_start_char:chunk.end_char]
            index = ctx.next_index()
            direct = ctx.rewrites_given_up(doc.name, "map")
            summary, results, flags = yield from ctx.guarded_round(
                index, "map", lambda reminder, source=source: ctx.layout.map_messages(source, reminder), "", source,
                cap, total_rounds, chunk.index, chunk.tokens,
                fallback=lambda results, source=source, chunk=chunk, index=index:
                    ctx.part_notes_fallback(results, index, "map", doc, chunk, source, "", total_rounds),
                first=None if direct else prefetch.first_attempt(chunk), direct=direct, language=language)
            yield ctx.finish_round(ctx.record(index, "map", doc.name, chunk, "", summary, results, flags),
                                   doc.name, summary)
            partials.append(summary)
    depth = 0
    merges_done = sorted(ctx.state.rounds_of(doc.name, "merge"), key=lambda r: r.index)
    while len(partials) > 1 and depth < MAX_DEPTH:
        depth += 1
        groups = _groups(ctx, partials)
        if all(len(g) == 1 for g in groups):
            break
        merged = []
        for group in groups:
            if len(group) == 1:
                merged.append(group[0])
                continue
            if merges_done:                       # resumed: this merge already finished
                merged.append(merges_done.pop(0).summary)
                continue
            ctx.check_cancel()
            joined = "\n\n".join(group)
            index = ctx.next_index()
            summary, results, flags = yield from ctx.guarded_round(
                index, "merge", lambda reminder, g=group: ctx.layout.merge_messages(g, reminder), "", joined,
                ctx.budget.summary_out_cap, total_rounds, -1, ctx.count(joined),
                fallback=lambda results, joined=joined: _keep_parts(joined), language=language)
            yield ctx.finish_round(ctx.record(index, "merge", doc.name, None, joined, summary, results,
                                              flags + [f"level_{depth}"]), doc.name, summary)
            merged.append(summary)
        partials = merged
    final = "\n\n".join(partials)
    ctx.state.summaries[doc.name] = final
    ctx.state.save()


class MapPrefetch:
    """Map calls sent ahead, ``ctx.parallel_calls`` in flight, each on its own runtime clone.

    Only the first attempt of each map is sent ahead: it is what costs the time, and the maps do not
    depend on each other. The checks, a retry, the notes fallback, the round's record and checkpoint
    stay in the strategy's own thread, in the document's order, exactly as without a server, so a
    resume or a Stop sees the same run. With one call at a time (the in-process model), nothing is
    sent ahead.
    """

    def __init__(self, ctx: RunContext, doc: PlannedDocument, pending: list, cap: int) -> None:
        self.ctx, self.doc, self.cap = ctx, doc, cap
        self.pending = list(pending)
        self.n = ctx.parallel_calls if hasattr(ctx.runtime, "clone") else 1
        self.futures: dict[int, Future] = {}
        self.pool = None
        self.workers: "queue.SimpleQueue[RunContext]" = queue.SimpleQueue()

    def __enter__(self) -> "MapPrefetch":
        if self.n > 1 and len(self.pending) > 1:
            self.pool = ThreadPoolExecutor(max_workers=self.n, thread_name_prefix="precis-map")
            for _ in range(self.n):
                self.workers.put(self.ctx.for_worker())
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            for future in self.futures.values():
                future.cancel()
            self.pool.shutdown(wait=True)     # a Stop already cancelled the streams: this is quick
            while not self.workers.empty():
                self.workers.get().runtime.close()

    def first_attempt(self, chunk):
        """The future of this chunk's first map call (None: sent by the caller as usual)."""
        if self.pool is None:
            return None
        position = next(i for i, c in enumerate(self.pending) if c.index == chunk.index)
        for ahead in self.pending[position:position + self.n]:       # keep n in flight
            if ahead.index not in self.futures:
                self.futures[ahead.index] = self.pool.submit(self._call, ahead)
        return self.futures.pop(chunk.index)

    def _call(self, chunk):
        worker = self.workers.get()
        try:
            source = self.doc.text[chunk.sent_start_char:chunk.end_char]
            calls = worker.call(-1, self.ctx.layout.map_messages(source, ""), self.cap, worker.sampling,
                                CopyWatch(source, ""))
            while True:                       # drive the call to its end; its live events are not shown
                try:
                    next(calls)
                except StopIteration as done:
                    return done.value
        finally:
            self.workers.put(worker)


def _keep_parts(joined: str):
    """A merge that fails twice keeps its partial summaries, in order (nothing is lost)."""
    return joined, "kept_parts", "kept the partial summaries in order"
    yield  # a generator, like every fallback


def _groups(ctx: RunContext, partials: list[str]) -> list[list[str]]:
    """Consecutive partial summaries packed so that each merge prompt fits the context."""
    room = ctx.budget.n_ctx - ctx.budget.summary_out_cap - ctx.budget.margin
    return pack_consecutive(partials, lambda group: ctx.renderer.count(ctx.renderer.render(
        ctx.layout.merge_messages(group, WORST_REMINDER))) <= room)
