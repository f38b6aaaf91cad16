"""The account: what happens in the document, in its order, in prose, every sentence traced to it.

for each part:   the model reads the whole part, with the names the document gave so far in view, and says what
                 happens in it in a few numbered one-sentence lines held to a shape by a grammar ("who does what
                 (to whom, why)", opening with a name: engine.prompts.account); code links each line to the
                 part's sentences that hold its words (engine.summary.alignment) and holds it to them with the
                 named checks (engine.summary.checks); a line refused for what the transcript itself can put
                 right (the speaker, a question nobody put) is said again by code; another refused line is
                 asked again once, from the passage it was linked to, and dropped if it fails again; each
                 English line kept is read again by the model beside its passage
                 (engine.summary.second_reading); the account grows by the lines kept
at the end:      code puts the lines in the preset's shape (engine.summary.account_shape): a paragraph per part
                 or two, a meeting's action items and a day's layers and TODOs after them; an account past its
                 length has its most related neighbouring lines merged (a marked compaction round)

The model never sees the account and never rewrites it, so no round can shrink what came before; the curve
shows the account's length after every part. Why this and not the notes strategy (code-chosen sentences,
each reworded alone) nor free prose: docs/quality.md, "The account".
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from precis.engine.documents.document_kind import is_narrative
from precis.engine.events import CompactionDone, NoiseSkipped, RoundStarted
from precis.engine.planning.run_plan import PlannedDocument
from precis.engine.planning.summary_length import (
    ACCOUNT_MAX_SECOND_ASKS,
    account_chars_for,
    account_lines_asked,
    account_lines_for_part,
)
from precis.engine.prompts.account import (
    JA_TOKENS_PER_LINE,
    ROLE_NAMES,
    TOKENS_PER_LINE,
    AccountLayout,
    parse_lines,
)
from precis.engine.summary.account_shape import AccountLine, account_text, left_to_do, reading_chars
from precis.engine.summary.alignment import Alignment, PartIndex, source_sentences
from precis.engine.summary.cast import Cast
from precis.engine.summary.checks import ACCOUNT_LINE, NOTE_IN_ACCOUNT, Claim, judge
from precis.engine.summary.compaction import MAX_COMPACTION_ROUNDS, Bullet, compact_round, pairs_to_merge
from precis.engine.summary.evidence import Note
from precis.engine.summary.noise import is_noise
from precis.engine.summary.notes_extraction import LineIndex
from precis.engine.summary.part_topics import topic_words
from precis.engine.summary.reattribution import reattributed, without_the_question
from precis.engine.summary.salience import subject_sentences
from precis.engine.summary.second_reading import read_line
from precis.engine.summary.shown_part import PartsShown, ShownPart
from precis.engine.summary.strategies.base import RunContext, document_language

PASSAGE_NEIGHBOURS = 2          # sentences either side of a refused line's references, shown when it is asked again
# An account over its length by less than this is not compacted: the model's merges were the worst sentences
# of a development meeting's account (TS3009b: a pair handed back as "a / b", a sentence cut off), and an
# account a quarter over its plan is still short (2,700 characters for a 55k-character meeting)
ACCOUNT_SLACK = 0.25
# Never an empty summary in silence: a part with no line kept is told by its checked notes (_told_by_notes);
# this is said only when no part had a sentence to give either
NOTHING_KEPT = ("> No sentence the model wrote for this document passed its checks (run.json lists each refused "
                "line and the checks that refused it). A larger model, or --strategy notes, gives one.")


@dataclass
class PartAccount:
    """What one part gave: the lines kept, the refused ones with the checks that refused them, the calls."""
    lines: list[AccountLine] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)
    results: list = field(default_factory=list)
    readings: list = field(default_factory=list)        # the second reading's calls (CallResults)
    flags: list[str] = field(default_factory=list)


def run_account(ctx: RunContext, doc: PlannedDocument, total_rounds: int):
    """Generator of the account's events over one document; the summary and its evidence land in the state."""
    if subject_sentences(doc.text):
        # A git log: a changelog is made of its commit subjects as their authors wrote them (the notes
        # strategy's, no rewording); an account of "what happens" in a log would retell the subjects.
        from precis.engine.summary.strategies.notes import run_notes
        yield from run_notes(ctx, doc, total_rounds)
        return
    language = document_language(ctx, doc)
    layout = AccountLayout(ctx.layout.preset, ctx.layout.date, language, is_narrative(doc.text))
    lines = [AccountLine.from_dict(d) for d in ctx.state.evidence.get(doc.name, [])]
    notes = [Note.from_dict(d) for d in ctx.state.notes.get(doc.name, [])]
    done = {r.chunk_index for r in ctx.state.rounds_of(doc.name, "account")}
    # a Japanese chat's turns are shown under the roles' Japanese names, the words its lines open with: under
    # "[user]", every "ユーザーが ..." line held a word the part did not (the unsupported check)
    shown_parts = PartsShown(doc.text, {role: ja for role, (_, ja) in ROLE_NAMES.items()} if layout.japanese
                             else None)
    cast = Cast(shown_parts, layout.japanese)
    line_index = LineIndex(doc.text)
    target_chars = account_chars_for(doc.said_tokens, ctx.summary_words)
    document_tokens = max(1, sum(c.tokens for c in doc.chunks))
    for chunk in doc.chunks:
        if chunk.index in done:
            continue
        ctx.check_cancel()
        index = ctx.next_index()
        before = account_text(lines, ctx.layout.preset, language)
        shown = shown_parts.part(chunk.sent_start_char, chunk.end_char)
        if (ctx.skip_noise and is_noise(doc.text[chunk.sent_start_char:chunk.end_char])) or not shown.text.strip():
            yield RoundStarted(index, "account", chunk.index, total_rounds, chunk.tokens, len(before), shown.text,
                               before)
            yield NoiseSkipped(index, chunk.index, "only logs, tool calls or greetings: nothing happens in it")
            record = ctx.record(index, "account", doc.name, chunk, before, before, [], ["noise_skipped"])
            yield ctx.finish_round(record, doc.name, before)
            continue
        count = account_lines_for_part(target_chars, chunk.tokens, document_tokens)
        got = yield from account_of_part(ctx, index, layout, doc, chunk, shown, count, lines, notes, line_index,
                                         total_rounds, cast)
        if not got.lines:
            ctx.check_cancel()
            yield from _told_by_notes(ctx, index, doc, chunk, notes, language, total_rounds, got)
        lines += got.lines
        notes += got.notes
        _save(ctx, doc.name, lines, notes)
        after = account_text(lines, ctx.layout.preset, language)
        record = ctx.record(index, "account", doc.name, chunk, before, after, got.results, got.flags, got.readings)
        record.notes_kept, record.notes_unsupported = len(got.lines), len(got.refused)
        record.refused = got.refused
        yield ctx.finish_round(record, doc.name, after)
    lines = yield from compact_account(ctx, doc, lines, notes, target_chars, total_rounds, language)
    _save(ctx, doc.name, lines, notes)
    untold = tuple(sorted({r.chunk_index for r in ctx.state.rounds_of(doc.name, "account")
                           if "nothing_kept" in r.flags}))
    ctx.state.summaries[doc.name] = account_text(lines, ctx.layout.preset, language, untold) if lines \
        else NOTHING_KEPT
    ctx.state.save()


def _told_by_notes(ctx: RunContext, index: int, doc: PlannedDocument, chunk, notes: list[Note],
                   language: str | None, total_rounds: int, got: "PartAccount"):
    """Generator; a part none of whose lines passed is told by its checked notes instead (the notes
    strategy's: code chooses the sentences that add most, the model says each in a few words, code checks
    each; verbatim sentences if no rewording passes), so that no part is lost to the account (DESIGN, failure
    mode 7). The lines are marked ``from_notes`` and the account says which parts they tell."""
    from precis.engine.summary.notes_extraction import salient_notes_for_part
    line_index, weights = ctx.document_index(doc)
    first_id = max((n.id for n in notes), default=0) + 1
    part = doc.text[chunk.sent_start_char:chunk.end_char]
    found = yield from salient_notes_for_part(ctx, index, "account", doc.name, chunk, part, chunk.sent_start_char,
                                              total_rounds, first_id, line_index, notes, weights,
                                              ctx.part_notes_chars(doc, chunk), language,
                                              document_text=doc.text)
    got.results += found.results
    got.readings += found.side_calls
    kept = []
    for note in found.notes:
        # a note's sentence can be a question or a character's "I ..." line: the form checks an account's
        # lines pass hold the notes standing in for them too (the rest are the document's checked sentences)
        verdict = judge(Claim(note.point, part, None, (), (), language, ""), NOTE_IN_ACCOUNT)
        if verdict.passed:
            kept.append(replace(note, id=first_id + len(kept)))
        else:
            got.refused.append({"text": note.point, "checks": verdict.names,
                                "reasons": [r.reason for r in verdict.refusals], "kept_instead": ""})
    for note in kept:
        got.notes.append(note)
        got.lines.append(AccountLine(note.point, chunk.index, [note.id], from_notes=True))
    if kept:
        got.flags = [f for f in got.flags if f != "nothing_kept"] + ["notes_fallback"]


def _save(ctx: RunContext, document: str, lines: list[AccountLine], notes: list[Note]) -> None:
    ctx.state.evidence[document] = [line.as_dict() for line in lines]
    ctx.state.notes[document] = [n.as_dict() for n in notes]


def account_of_part(ctx: RunContext, index: int, layout: AccountLayout, doc: PlannedDocument, chunk, shown: ShownPart,
                    count: int, earlier: list[AccountLine], notes: list[Note], line_index: LineIndex,
                    total_rounds: int, cast: Cast):
    """Generator (RoundStarted, TokensGenerated); returns PartAccount: the part's lines that passed their checks,
    each with the notes (the part's sentences) it rests on."""
    out = PartAccount()
    yield RoundStarted(index, "account", chunk.index, total_rounds, chunk.tokens,
                       reading_chars(earlier), shown.text, "", 1)
    names = cast.met_by(chunk.end_char)
    part_index = PartIndex(shown.text)
    example = layout.example()[0]
    per_line = JA_TOKENS_PER_LINE if layout.japanese else TOKENS_PER_LINE
    weights = ctx.document_index(doc)[1]
    topics = topic_words(weights, weights.sentences_in(doc.text[chunk.sent_start_char:chunk.end_char],
                                                      chunk.sent_start_char), names)
    # Twice the part's share of lines is asked (account_lines_asked): a small model's lines are often
    # refused (a meeting's "The team discusses the design." holds no word of it), and the best of the surplus
    # is cheaper than a second ask. The plan's chunk leaves room for a rolling round's summary in and out; the
    # account has no summary in, so its prompt and lines mostly fit: checked, the lines lowered where they do
    # not, and a part whose prompt leaves no room for one line told in pieces (_pieces).
    asked = account_lines_asked(count)
    pieces = _pieces(ctx, layout, shown.text, chunk.index + 1, len(doc.chunks), names, topics, per_line)
    written: dict[int, str] = {}
    total_chars = max(1, sum(len(p) for p in pieces))
    for piece in pieces:
        share = max(1, round(asked * len(piece) / total_chars)) if len(pieces) > 1 else asked
        messages = layout.part_messages(piece, chunk.index + 1, len(doc.chunks), names, share, topics)
        room = ctx.budget.n_ctx - ctx.renderer.count(ctx.renderer.render(messages)) - ctx.budget.margin
        share = max(1, min(share, (room - 8) // per_line))
        messages = layout.part_messages(piece, chunk.index + 1, len(doc.chunks), names, share, topics)
        ctx.check_cancel()
        result = yield from ctx.call(index, messages, per_line * share + 8,
                                     replace(ctx.sampling, grammar=layout.grammar(share, names)))
        out.results.append(result)
        got = parse_lines(result.raw)
        for number in range(1, share + 1):
            written[len(written) + 1] = got.get(number, "")
    asked = len(written)
    count = min(count, asked)
    said = [line.text for line in earlier]
    passed: list[tuple[int, Claim, bool]] = []          # (order, claim, asked again)
    refused: list[tuple[int, str, object, Claim]] = []  # (order, text, verdict, claim)
    for number in range(1, asked + 1):
        text = " ".join(written.get(number, "").split())
        if not text:
            continue
        claim = _claim(text, shown, part_index, names, said, layout.language, example, topics, cast.tools)
        verdict = judge(claim, ACCOUNT_LINE)
        if verdict.passed:
            passed.append((number, claim, False))
            said.append(text)
            continue
        fixed = _said_again_by_code(claim, verdict, shown, part_index, names, said, layout.language, example,
                                    topics, cast.tools)
        if fixed is not None:
            fixed, mends = fixed
            passed.append((number, fixed, False))
            said.append(fixed.text)
            out.refused.append({"text": text, "checks": verdict.names,
                                "reasons": [r.reason for r in verdict.refusals], "kept_instead": fixed.text,
                                **{mend: True for mend in mends}})
        else:
            refused.append((number, text, verdict, claim))
    second_asks = 0
    for number, text, verdict, claim in refused:
        again = None
        if len(passed) < count and second_asks < ACCOUNT_MAX_SECOND_ASKS:
            # too few lines passed: a refused one is asked again, once, from its passage (at most
            # ACCOUNT_MAX_SECOND_ASKS calls a part: each costs about what four first-ask lines do)
            second_asks += 1
            ctx.check_cancel()
            again = yield from _asked_again(ctx, index, layout, shown, part_index, claim.alignment, names, said,
                                            example, out, cast.tools)
            if again is not None:
                passed.append((number, again, True))
                said.append(again.text)
        out.refused.append({"text": text, "checks": verdict.names, "reasons": [r.reason for r in verdict.refusals],
                            "kept_instead": again.text if again else ""})
    spare: list = []
    if len(passed) > count:
        # what is left to do is kept whatever the count (a meeting's action items, a day's TODOs: the account's
        # closing section, which a reader looks for); the rest spread over the part
        tasks = [p for p in passed if left_to_do(p[1].text)] if layout.preset.task_section or \
            layout.preset.task_label else []
        rest = spread_over_part(sorted((p for p in passed if p not in tasks), key=lambda p: p[0]),
                                max(0, count - len(tasks)))
        spare = sorted((p for p in passed if p not in tasks and p not in rest), key=lambda p: p[0])
        passed = sorted(tasks + rest, key=lambda p: p[0])
    doubts: dict[int, float] = {}
    if ctx.guard.second_reading and not layout.japanese:
        passed, doubts = _read_again(ctx, shown, passed, spare, count, out)
    next_id = max((n.id for n in notes), default=0) + 1
    for number, claim, asked_again in sorted(passed, key=lambda p: p[0]):
        line_notes = _reference_notes(claim.alignment, shown, claim.text, doc, chunk.index, next_id, line_index)
        next_id += len(line_notes)
        out.notes += line_notes
        out.lines.append(AccountLine(claim.text, chunk.index, [n.id for n in line_notes], asked_again,
                                     doubt=doubts.get(number)))
    if out.refused:
        out.flags.append("lines_refused")
    if any(line.asked_again for line in out.lines):
        out.flags.append("asked_again")
    if any(r.get("reattributed") for r in out.refused):
        out.flags.append("reattributed")
    if any(r.get("act_restated") for r in out.refused):
        out.flags.append("act_restated")
    if not out.lines:
        out.flags.append("nothing_kept")
    return out


def _read_again(ctx: RunContext, shown: ShownPart, chosen: list, spare: list, count: int, out: PartAccount):
    """(the lines kept, each one's doubt by its number): every chosen line read again beside its passage
    (engine.summary.second_reading); one the model finds not said there is refused, and the spare line nearest
    it in the part (passed by the checks, not chosen) read in its place while the part is short of its count.
    English only: the reading's wording and its margin were measured on English lines."""
    queue, spare, kept, doubts = list(chosen), list(spare), [], {}
    while queue:
        line = queue.pop(0)
        number, claim, _ = line
        spans = [(r.start, r.end) for r in claim.alignment.references] if claim.alignment else []
        reading, result = read_line(ctx, shown.text, spans, claim.text)
        if result is not None:
            out.readings.append(result)
        if reading is None:
            if spans and "lines_unread" not in out.flags:
                out.flags.append("lines_unread")     # the runtime could not weigh the answers: said, not hidden
            kept.append(line)
            continue
        if not reading.denies:
            doubts[number] = round(reading.margin, 3)
            kept.append(line)
            continue
        out.refused.append({"text": claim.text, "checks": ["second_reading"], "reasons": [reading.reason],
                            "kept_instead": ""})
        if spare and len(kept) + len(queue) < count:
            nearest = min(spare, key=lambda p: abs(p[0] - number))
            spare.remove(nearest)
            queue.append(nearest)
    if any(r["checks"] == ["second_reading"] for r in out.refused):
        out.flags.append("read_again_refused")
    return sorted(kept, key=lambda p: p[0]), doubts


def spread_over_part(lines: list, count: int) -> list:
    """``count`` of ``lines`` (in the part's order) spread evenly from the first to the last, so that a surplus
    asked of the model keeps the part's beginning, middle and end told. (The lines best held by their
    sentences were kept before: with twice the share asked, that favoured lines nearest the part's wording
    and dropped a day's decisions, whose words are the model's more than the document's.)"""
    if count <= 0:
        return []
    if len(lines) <= count:
        return list(lines)
    if count == 1:
        return [lines[len(lines) // 2]]
    step = (len(lines) - 1) / (count - 1)
    return [lines[round(i * step)] for i in range(count)]


MAX_PIECES = 8


def _pieces(ctx: RunContext, layout: AccountLayout, text: str, number: int, parts: int, names: list[str],
            topics: list[str], per_line: int) -> list[str]:
    """The part as one piece, or in pieces split at sentences (the longest halved) until each one's prompt
    leaves room for a line. The chunk is planned for a rolling round's prompt; the account's worked example is
    longer in some languages and tokenizers (a Japanese part with the bundled 135M model overflowed its
    2,048-token context by a few tokens and the run failed as a model error)."""
    def fits(piece: str) -> bool:
        messages = layout.part_messages(piece, number, parts, names, 1, topics)
        return ctx.renderer.count(ctx.renderer.render(messages)) + ctx.budget.margin + per_line + 8 \
            <= ctx.budget.n_ctx
    pieces = [text]
    while len(pieces) < MAX_PIECES and not all(fits(p) for p in pieces):
        longest = max(range(len(pieces)), key=lambda i: len(pieces[i]))
        piece = pieces[longest]
        ends = [s.end for s in source_sentences(piece)]
        cut = min(ends[:-1], key=lambda e: abs(e - len(piece) / 2), default=len(piece) // 2) if len(ends) > 1 \
            else len(piece) // 2
        pieces[longest:longest + 1] = [piece[:cut], piece[cut:]]
    return [p for p in pieces if p.strip()]


def _claim(text: str, shown: ShownPart, part_index: PartIndex, names: list[str], said: list[str],
           language: str | None, example: str, hints: list[str] = (), tools=frozenset()) -> Claim:
    return Claim(text, shown.text, part_index.align(text), tuple(names), tuple(said), language, example,
                 tuple(hints), tools=tuple(sorted(tools)))


def _said_again_by_code(claim: Claim, verdict, shown: ShownPart, part_index: PartIndex, names: list[str],
                        said: list[str], language: str | None, example: str, topics: list[str], tools):
    """(Claim, what was mended) for a line refused only for what the document itself can put right, if the
    mended line passes every check; no call to the model. A line giving a speaker's words to another is said
    with the speaker whose turns hold them ("reattributed", engine.summary.reattribution); then a line saying
    its speaker asks where they put no question is said as talk about it ("act_restated"). The speaker comes
    first: a question given to the wrong speaker is the right one's question."""
    if not verdict.names or set(verdict.names) - {"speaker_swapped", "asks_unasked"}:
        return None
    mends = []
    for name, mend, said_again in (("speaker_swapped", "reattributed", reattributed),
                                   ("asks_unasked", "act_restated", without_the_question)):
        if name not in verdict.names:
            continue
        text = said_again(claim)
        if text is None:
            return None
        claim = _claim(text, shown, part_index, names, said, language, example, topics, tools)
        verdict = judge(claim, ACCOUNT_LINE)
        mends.append(mend)
        if verdict.passed:
            return claim, mends
        if set(verdict.names) - {"asks_unasked"}:
            return None
    return None


def _asked_again(ctx: RunContext, index: int, layout: AccountLayout, shown: ShownPart, part_index: PartIndex,
                 alignment: Alignment | None, names: list[str], said: list[str], example: str, out: PartAccount,
                 tools=frozenset()):
    """Generator; returns the Claim of one line said again from the passage a refused line was linked to (its
    references and PASSAGE_NEIGHBOURS sentences either side), or None when it is refused again or there is no
    such passage. One short call: the passage is a few sentences, the rules and example are reused."""
    if alignment is None or not alignment.references:
        return None
    sentences = part_index.sentences
    positions = [sentences.index(s) for s in alignment.references]
    first = max(0, min(positions) - PASSAGE_NEIGHBOURS)
    last = min(len(sentences), max(positions) + PASSAGE_NEIGHBOURS + 1)
    passage = shown.text[sentences[first].start:sentences[last - 1].end]
    per_line = JA_TOKENS_PER_LINE if layout.japanese else TOKENS_PER_LINE
    result = yield from ctx.call(index, layout.restate_messages(passage, names), per_line + 8,
                                 replace(ctx.strict_sampling, grammar=layout.grammar(1, names)))
    out.results.append(result)
    text = " ".join(parse_lines(result.raw).get(1, "").split())
    if not text:
        return None
    claim = _claim(text, shown, part_index, names, said, layout.language, example, tools=tools)
    return claim if judge(claim, ACCOUNT_LINE).passed else None


def _reference_notes(alignment: Alignment | None, shown: ShownPart, text: str, doc: PlannedDocument, part: int,
                     first_id: int, line_index: LineIndex) -> list[Note]:
    """The sentences a line rests on, as notes: their quotes as the document has them, where it has them (a
    chat turn's "[assistant] " label, shown to the model, is not the document's text there)."""
    found = []
    for i, sentence in enumerate(alignment.references if alignment else ()):
        start = shown.document_offset(sentence.start)
        end = shown.document_offset(sentence.end - 1) + 1
        quote = doc.text[start:end].strip()
        start += len(doc.text[start:end]) - len(doc.text[start:end].lstrip())
        end = start + len(quote)
        found.append(Note(first_id + i, text, quote, doc.name, part, start, end, line_index.line_of(start),
                          line_index.line_of(max(start, end - 1)), round(100 * alignment.held_share, 1), "aligned"))
    return found


def compact_account(ctx: RunContext, doc: PlannedDocument, lines: list[AccountLine], notes: list[Note],
                    target_chars: int, total_rounds: int, language: str | None):
    """Generator; returns the lines, the most related neighbours merged (each merge checked and citing both
    lines' sentences: engine.summary.compaction) while the account is longer than ``target_chars``. Every part
    gives one line at least, so a long document read in many small parts can outgrow its length."""
    if reading_chars(lines) <= target_chars * (1 + ACCOUNT_SLACK) or len(lines) < 2:
        return lines
    by_id = {n.id: n for n in notes}
    tried: set[tuple[int, int]] = set()
    for _ in range(MAX_COMPACTION_ROUNDS):
        excess = reading_chars(lines) - target_chars
        bullets = [Bullet(line.text, tuple(by_id[i] for i in line.notes) or (_bare_note(line, doc.name),))
                   for line in lines]
        positions = pairs_to_merge(bullets, excess, tried) if excess > 0 else []
        if not positions:
            break
        ctx.check_cancel()
        index = ctx.next_index()
        before = account_text(lines, ctx.layout.preset, language)
        got = yield from compact_round(ctx, index, bullets, positions, total_rounds, language, tried,
                                       whole_sentence=True)
        lines = [AccountLine(b.point, b.notes[0].part, [n.id for n in b.notes if n.id > 0],
                             any(line.asked_again for line in lines if line.text == b.point),
                             any(line.from_notes for line in lines if line.text == b.point)) for b in got.bullets]
        after = account_text(lines, ctx.layout.preset, language)
        record = ctx.record(index, "compaction", doc.name, None, before, after, got.results,
                            ["compaction"] + ([] if got.merged else ["compaction_rejected"]))
        record.notes_kept, record.notes_unsupported = len(lines), got.refused
        record.refused_by = got.refused_by
        yield CompactionDone(index, len(before), len(after), bool(got.merged))
        yield ctx.finish_round(record, doc.name, after)
    return lines


def _bare_note(line: AccountLine, document: str) -> Note:
    """A stand-in for a line without references (none is kept so; a resumed older run might hold one)."""
    return Note(-1, line.text, line.text, document, line.part, 0, 0)
