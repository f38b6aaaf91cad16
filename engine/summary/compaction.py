"""Compaction of the notes: when they outgrow the summary's length, related neighbours become one bullet.

The notes strategy chooses sentences within the summary's length, but every part gives at least one (no
part is lost), so a long document read in small parts (a 235k-character day at n_ctx 2048: a hundred
parts and more) or a short summary asked for (``--summary-words``) holds more notes than that length.
Then consecutive notes that share the most words are paired, and the model says each pair as one short
note (a short, local task, grammar-held like the rewording); code checks every merge (its numbers and
most of its words in the two notes and their quotes, something of each note in it, no name either lacks,
the language asked for, shorter than the two) and keeps the pair apart when it fails. A merged bullet
cites both notes, so it keeps both sources. Pairs first, then pairs of pairs, a few rounds at most.

Measured with Qwen2.5-Coder-1.5B on a development meeting read in 700-token parts with a 60-word summary
asked for: the model merges notes of one speaker by naming them once (the checks keep those), runs two
speakers' notes together (refused: not shorter), and hands Japanese commit messages back side by side
(refused). Merges it stopped at the grammar's length bound are refused too.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from precis.engine.events import RoundStarted
from precis.engine.planning.summary_length import PAIRS_PER_MERGE_CALL, TOKENS_PER_REWORD, reading_chars_for
from precis.engine.prompts.notes import POINT_CHARS, NotesLayout, reword_grammar
from precis.engine.summary.checks import ACCOUNT_MERGE, MERGE, judge, merge_claim
from precis.engine.summary.checks.form import SENTENCE_END
from precis.engine.summary.evidence import Note
from precis.engine.summary.notes_extraction import count_refusals, numbered_answers
from precis.engine.summary.salience import units_of

MAX_COMPACTION_ROUNDS = 3
MIN_SHARED_UNITS = 1            # neighbours that share no word are not "related": left apart


@dataclass(frozen=True)
class Bullet:
    """One line of the summary: a point and the notes it rests on (one, or several once merged)."""
    point: str
    notes: tuple[Note, ...]

    @property
    def ids(self) -> list[int]:
        return [n.id for n in self.notes]

    @property
    def id(self) -> int:
        return self.notes[0].id

    @property
    def quote(self) -> str:
        return " ".join(n.quote for n in self.notes)

    @property
    def part(self) -> int:
        return self.notes[0].part

    @property
    def last_part(self) -> int:
        return self.notes[-1].part


CUT_MARGIN_CHARS = 10          # a merge this near the grammar's bound without its full stop was cut there


def bullets_of(notes: list[Note]) -> list[Bullet]:
    return [Bullet(n.point.strip(), (n,)) for n in notes]


def reading_chars(bullets: list[Bullet]) -> int:
    """What the summary will take to read: its bullets and its section headings."""
    return reading_chars_for(sum(len(b.point) for b in bullets), len(bullets))


def _related(a: Bullet, b: Bullet) -> int:
    return len(units_of(a.point + " " + a.quote) & units_of(b.point + " " + b.quote))


def pairs_to_merge(bullets: list[Bullet], excess_chars: int, tried: set[tuple[int, int]]) -> list[int]:
    """Positions i whose bullet is merged with bullet i+1: the most related neighbours first, no bullet in
    two pairs, until the merges would save about ``excess_chars`` (a merge saves about a third of the pair)."""
    scored = sorted(((_related(bullets[i], bullets[i + 1]), i) for i in range(len(bullets) - 1)
                     if (bullets[i].id, bullets[i + 1].id) not in tried), reverse=True)
    taken: set[int] = set()
    chosen, saving = [], 0
    for shared, i in scored:
        if saving >= excess_chars:
            break
        if shared < MIN_SHARED_UNITS or i in taken or i + 1 in taken:
            continue
        chosen.append(i)
        taken |= {i, i + 1}
        saving += (len(bullets[i].point) + len(bullets[i + 1].point)) // 3
    return sorted(chosen)


def merge_problems(merged: str, a: Bullet, b: Bullet, language: str | None, whole_sentence: bool = False) -> list[str]:
    """The names of the checks (engine.summary.checks, kind MERGE) that refuse ``merged`` as the one note saying
    both ``a`` and ``b`` (nothing: []): the pair handed back side by side, a number or most words neither note
    nor its quote holds, a negation or a guess turned around, one note dropped, not shorter than the two, cut
    at the grammar's bound, a name neither holds, another language. ``whole_sentence``: it must also end as a
    sentence ends (the account's prose, kind ACCOUNT_MERGE, not a note's bullet)."""
    claim = merge_claim(merged, ((a.point, a.quote), (b.point, b.quote)), language)
    return judge(claim, ACCOUNT_MERGE if whole_sentence else MERGE).names


@dataclass
class Compacted:
    bullets: list[Bullet]
    results: list
    merged: int = 0
    refused: int = 0
    refused_by: dict[str, int] = field(default_factory=dict)   # the refused merges by the checks that refused them


def compact_round(ctx, index: int, bullets: list[Bullet], positions: list[int], total: int, language: str | None,
                  tried: set[tuple[int, int]], whole_sentence: bool = False):
    """Generator (yields RoundStarted, TokensGenerated); returns Compacted: one round of merges of the bullets
    at ``positions`` with their next (pairs_to_merge), in calls of at most PAIRS_PER_MERGE_CALL pairs.
    ``tried``: pairs already refused, not asked again; a pair refused now is added."""
    layout = NotesLayout(ctx.layout.preset, ctx.layout.date, language or ctx.layout.language)
    out = Compacted(list(bullets), [])
    yield RoundStarted(index, "compaction", -1, total, 0, reading_chars(bullets), "", "", 1)
    merged_at: dict[int, str] = {}
    for start in range(0, len(positions), PAIRS_PER_MERGE_CALL):
        ctx.check_cancel()
        batch = positions[start:start + PAIRS_PER_MERGE_CALL]
        pairs = [(bullets[i].point, bullets[i + 1].point) for i in batch]
        result = yield from ctx.call(index, layout.merge_messages(pairs),
                                     min(ctx.budget.summary_out_cap, TOKENS_PER_REWORD * len(batch)),
                                     replace(ctx.strict_sampling, grammar=reword_grammar(len(batch))))
        out.results.append(result)
        replies = numbered_answers(result, len(batch))      # a line cut by the token budget is no merge
        for number, i in enumerate(batch, 1):
            merged = replies[number - 1]
            if whole_sentence and merged and not SENTENCE_END.search(merged) and \
                    len(merged) < POINT_CHARS[1] - CUT_MARGIN_CHARS:
                merged = merged.rstrip(" ,;:") + "."      # a whole clause the grammar let end without its stop
            problems = merge_problems(merged, bullets[i], bullets[i + 1], layout.language, whole_sentence)
            if problems:
                tried.add((bullets[i].id, bullets[i + 1].id))
                out.refused += 1
                count_refusals(out.refused_by, problems)
            else:
                merged_at[i] = merged
    compacted, skip = [], False
    for i, bullet in enumerate(bullets):
        if skip:
            skip = False
            continue
        if i in merged_at:
            compacted.append(Bullet(merged_at[i], bullet.notes + bullets[i + 1].notes))
            skip = True
        else:
            compacted.append(bullet)
    out.bullets, out.merged = compacted, len(merged_at)
    return out
