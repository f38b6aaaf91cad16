"""How long a summary should be, and what the notes strategy's calls cost: decided before the run.

The summary's length follows what the document says: about WORDS_PER_1K_TOKENS words per 1,000 of its
tokens, a meeting transcript's speaker labels and fillers left out (PlannedDocument.said_tokens), within
bounds (measured against the plain refine loop's summaries in docs/quality-history.md), CHARS_PER_WORD characters
a word; a document of 40-70k characters is read in at most READER_CHARS (see summary_words_for). The
notes strategy fills that length with its notes, each part choosing as many sentences as the notes still have
room for (part_sentence_chars).
"""
from __future__ import annotations

WORDS_PER_1K_TOKENS = 45
MIN_WORDS, MAX_WORDS = 120, 700
CHARS_PER_WORD = 6
# What a person reads first of a long document is at most 3,000 characters for 40-70k characters of it (issue
# 38): at 45 words per 1,000 tokens a 64k-character meeting (13.5k said tokens) was planned 3,636 characters.
# So the length stops growing at READER_CHARS, less what the notes may run over it (COMPACTION_SLACK), and
# stays there up to READER_TOKENS (70k characters of English prose, about 4 characters a token; a transcript
# says fewer tokens in as many characters), then grows again, more slowly (a day with an assistant of 100-235k
# characters), up to MAX_WORDS: the shape of the account's length (account_chars_for).
READER_CHARS = 3_000
READER_TOKENS = 17_500
WORDS_PER_1K_TOKENS_PAST_READER = 10


def summary_words_for(document_tokens: int, override: int | None = None) -> int:
    if override:
        return override
    words = document_tokens / 1000 * WORDS_PER_1K_TOKENS
    reader_words = READER_CHARS // ((1 + COMPACTION_SLACK) * CHARS_PER_WORD)      # whole words, rounded down
    if words > reader_words:
        words = reader_words + max(0, document_tokens - READER_TOKENS) / 1000 * WORDS_PER_1K_TOKENS_PAST_READER
    return max(MIN_WORDS, min(MAX_WORDS, round(words)))


def summary_chars_for(document_tokens: int, override_words: int | None = None) -> int:
    """The summary's length in characters a reader reads (headings and bullets; no references)."""
    return summary_words_for(document_tokens, override_words) * CHARS_PER_WORD


def notes_chars_for(document_tokens: int, override_words: int | None = None) -> int:
    """Characters of chosen sentences the notes strategy takes from the whole document: the summary's
    length less what its section headings will take (a reader reads those too)."""
    total = summary_chars_for(document_tokens, override_words)
    sections = -(-total // (SENTENCE_CHARS * NOTES_PER_SECTION))
    return max(SENTENCE_CHARS, total - sections * HEADING_READING_CHARS)


# A reworded note is shorter than its sentence, and some rewordings are refused: choosing sentences for the
# notes' whole length gave summaries of 60-86% of it on the development set (final9: 1,103 of 1,716 characters
# on the earnings call, 1,747 of 2,574 on the second meeting). So each part's sentence budget is what is still
# to write, spread over the tokens still to read, divided by the share of a sentence its note keeps, as
# measured on this document's notes so far (POINT_SHARE_PRIOR until there are a few).
POINT_SHARE_PRIOR = 0.7
POINT_SHARE_BOUNDS = (0.4, 1.0)
MEASURED_AFTER_CHARS = 300         # sentence characters behind the notes before their share is trusted
NOTES_FILL = 0.95                  # aim a little under the length: notes far over it cost compaction calls
PART_BUDGET_MAX_FACTOR = 2.0       # a part takes at most twice its even share, however far behind the notes are
# The length is a target, not a cap: notes over it by less than this share are written as they are. A merge
# is a model call that can lose a fact, and on the second development meeting two merges for notes a few
# characters over (headings counted at HEADING_READING_CHARS, written shorter) left its summary at 88% of
# its length (probe-said, seed 0).
COMPACTION_SLACK = 0.10


def part_sentence_chars(notes_chars: int, part_tokens: int, tokens_left: int, document_tokens: int,
                        points_chars: int = 0, sentences_chars: int = 0) -> int:
    """The characters of sentences to choose from the next part (``part_tokens`` of the ``tokens_left`` still
    to read, this part's included, of ``document_tokens``) so that the notes come out at ``notes_chars``:
    ``points_chars`` is what the notes so far take to read, ``sentences_chars`` the reading length of their
    sentences."""
    share = points_chars / sentences_chars if sentences_chars >= MEASURED_AFTER_CHARS else POINT_SHARE_PRIOR
    share = min(POINT_SHARE_BOUNDS[1], max(POINT_SHARE_BOUNDS[0], share))
    target = notes_chars * NOTES_FILL
    left = max(0.0, target - points_chars)
    wanted = left * part_tokens / max(1, tokens_left, part_tokens) / share
    even = target * part_tokens / max(1, document_tokens, part_tokens) / share
    return max(1, round(min(wanted, PART_BUDGET_MAX_FACTOR * even)))


def pace_room_chars(notes_chars: int, tokens_read: int, document_tokens: int, points_chars: int) -> int:
    """The characters the notes may still take and keep to their pace: ``notes_chars`` (less NOTES_FILL's
    margin) spread evenly over the document's tokens, as far as ``tokens_read`` (the part being noted
    included), less what the notes before that part (``points_chars``) take to read. A part's sentences kept
    as written beside its rewordings for their figures (engine.summary.notes_extraction) take only what its
    rewordings leave of this room: on a development earnings call, one such 230-character sentence in its
    fifth of six parts left the sixth part room for one note where it had given five, three figures among
    them."""
    target = notes_chars * NOTES_FILL * min(tokens_read, document_tokens) / max(1, document_tokens)
    return max(0, round(target - points_chars))


def notes_sections_expected(document_tokens: int, parts: int, summary_words: int | None = None) -> int:
    """The writing pass's rounds a notes run will take: a section per NOTES_PER_SECTION notes, the notes
    filling the summary's length (every part gives one at least): 2 for the window's sample at n_ctx 4,096
    (12,000 characters in 2 parts), which wrote 2 sections where half a section per part had said 1."""
    notes = max(parts, round(notes_chars_for(document_tokens, summary_words) * NOTES_FILL / POINT_READING_CHARS))
    return max(1, -(-notes // NOTES_PER_SECTION))


# What one notes run's calls cost, measured with Qwen2.5-Coder-1.5B on two development meetings
# (bench/results/quality-salient.json): the rewording prompt's fixed part (rules and the worked example),
# a sentence's tokens per character of it, the tokens a note takes, and a heading call.
REWORD_PROMPT_TOKENS = 225
SENTENCE_CHARS = 100               # a chosen sentence, on average
TOKENS_PER_SENTENCE_CHAR = 0.27
TOKENS_PER_REWORDED_NOTE = 18
HEADING_PROMPT_TOKENS = 120
HEADING_TOKENS_PER_NOTE = 16
HEADING_GENERATED_TOKENS = 12
NOTES_PER_SECTION = 8              # notes under one heading: a heading can still name what they share
HEADING_READING_CHARS = 50         # one section heading as written, "## " included (measured: 40-65)
BULLET_MARK_CHARS = 2              # "- "
# One rewording call per part: eight sentences, more of them where they are short, about REWORD_CALL_CHARS of
# them in all, at most twelve. At eight whatever their length, a story's parts (sentences of 74-95 characters
# on average, a third or more of their rewordings refused as copies) hit the count before their budget, and
# the check half's three stories came out at 72-77% of their planned length; at twelve for every part, 96-108%,
# fact recall up on all five development stories, but three earnings calls (sentences of 130-167 characters)
# took more as well and gave less (docs/quality.md, "More sentences a part where they are short").
MIN_SENTENCES_PER_PART = 8
MAX_SENTENCES_PER_PART = 12
REWORD_CALL_CHARS = 1_000
TOKENS_PER_REWORD = 50             # one reworded sentence's reply: at most 150 characters and its number
# Generated tokens per sentence chosen, all its asks together (the numbered ask, the second ask of those
# refused, the ask alone): measured on the tune half's six notes runs with Qwen2.5-Coder-1.5B at fd5c6a7
# (bench/results/quality-tune-plan-time.json: 26.9-38.2 a sentence, mean 32.7; docs/quality.md, "The plan's
# time for a notes run"). A note is 14-18 tokens, but a refused answer is mostly the sentence copied (20-33).
GENERATED_PER_SENTENCE = 33
KEPT_SHARE = 0.7                   # rewordings that pass their checks; the others are asked once more
RESTATED_SHARE = 0.2               # sentences refused twice, each then asked alone (measured: 5 of 30 and 5
                                   # of 25 on the development meetings, 9 of 24 on the story, 5 of 13 on the
                                   # earnings call: bench/results/quality-probe-notes7.json)
RESTATE_PROMPT_TOKENS = 130        # the single ask's rules and worked example (sent with each single ask)
POINT_READING_CHARS = 75           # a reworded note as read (measured: 60-90 on the development set)
SUBJECT_CHARS = 25                 # a commit subject (measured: 22 on the development project log)
MERGE_PROMPT_TOKENS = 200          # the compaction call's rules and worked example
PAIRS_PER_MERGE_CALL = 6


# A story's question of who an opening "He" is (engine.summary.story_who): its passage, question and lettered
# choices, rendered for Qwen2.5-Coder-1.5B over the 89 such sentences of two development stories: 265-441 tokens,
# 375 on average, all evaluated (the passage differs each time); the answer is weighed, nothing generated.
WHO_PROMPT_TOKENS = 375


def sentences_per_part(summary_out_cap: int, sentence_chars: float = SENTENCE_CHARS) -> int:
    """The sentences one part's rewording call may take, for sentences of ``sentence_chars`` on average (the
    part's candidates; the plan's nominal sentence): REWORD_CALL_CHARS of them, within MIN_ and
    MAX_SENTENCES_PER_PART, fewer where the context's reply cap holds fewer replies (n_ctx 2,048: eight)."""
    by_length = int(REWORD_CALL_CHARS // max(1.0, sentence_chars))
    by_length = max(MIN_SENTENCES_PER_PART, min(MAX_SENTENCES_PER_PART, by_length))
    return max(1, min(by_length, summary_out_cap // TOKENS_PER_REWORD))


def notes_call_tokens(document_tokens: int, chunk_tokens: list[int], first: bool = True,
                      summary_words: int | None = None, rewording: bool = True,
                      model_headings: bool = True, who_share: float = 0.0,
                      max_sentences: int = MAX_SENTENCES_PER_PART) -> tuple[int, int, int]:
    """(prompt tokens sent, of which evaluated, generated) for one document's notes run. ``summary_words``:
    the length asked for (None: from the document). ``rewording=False``: a git log, whose notes are its
    commit subjects as written, so only the headings (and merges) are asked of the model;
    ``model_headings=False``: a dated git log, whose sections are headed by their days, not by the model, or
    an assembly's minutes, headed by who asks and its agenda by its name (engine.summary.exchanges);
    ``who_share``: the share of a story's sentences whose opening "He" the model is asked about
    (engine.summary.story_who.question_share), a question for as many of the chosen ones; ``max_sentences``: a
    part's sentences at most (sentences_per_part of the budget's reply cap)."""
    total_chars = notes_chars_for(document_tokens, summary_words)
    all_tokens = max(1, sum(chunk_tokens))
    if not rewording:
        notes = sum(max(1, min(max_sentences, round(total_chars * t / all_tokens / SUBJECT_CHARS)))
                    for t in chunk_tokens)
        return _writing_tokens(document_tokens, notes, summary_words, SUBJECT_CHARS, (0, 0, 0), model_headings)
    sent = evaluated = generated = notes = 0
    none_alone = 1.0                                     # the chance no part so far asked a sentence alone
    for tokens in chunk_tokens:
        share = total_chars * NOTES_FILL * tokens / all_tokens / POINT_SHARE_PRIOR     # sentence characters
        sentences = max(1, min(max_sentences, round(share / SENTENCE_CHARS)))
        body = int(share * TOKENS_PER_SENTENCE_CHAR) + 8 * sentences
        sent += REWORD_PROMPT_TOKENS + body
        evaluated += body + (REWORD_PROMPT_TOKENS if first else 0)
        first = False
        refused = (1 - KEPT_SHARE) * sentences            # the second, greedy call for the refused ones
        retry_body = int(refused * (SENTENCE_CHARS * TOKENS_PER_SENTENCE_CHAR + 8))
        sent += REWORD_PROMPT_TOKENS + retry_body
        evaluated += retry_body
        alone = RESTATED_SHARE * sentences               # the single asks, one sentence each
        alone_body = int(alone * (SENTENCE_CHARS * TOKENS_PER_SENTENCE_CHAR + 8))
        sent += int(alone * RESTATE_PROMPT_TOKENS) + alone_body
        # the single ask's prefix is evaluated in the first part that has one; after it, each kind's prefix is
        # restored from its saved state (engine.runtime.prompt_states), not evaluated again
        any_alone = 1 - (1 - RESTATED_SHARE) ** sentences
        evaluated += int(none_alone * any_alone * RESTATE_PROMPT_TOKENS) + alone_body
        none_alone *= 1 - any_alone
        # every ask of a sentence together: its note, the answers refused (most of them copies of it, longer than
        # a note) and asked again
        generated += GENERATED_PER_SENTENCE * sentences
        questions = int(who_share * sentences * WHO_PROMPT_TOKENS)
        sent += questions
        evaluated += questions
        notes += sentences
    return _writing_tokens(document_tokens, max(1, round(notes * KEPT_SHARE)), summary_words, POINT_READING_CHARS,
                           (sent, evaluated, generated), model_headings)


def _writing_tokens(document_tokens: int, kept: int, summary_words: int | None, point_chars: int,
                    notes_calls: tuple[int, int, int], model_headings: bool = True) -> tuple[int, int, int]:
    """``notes_calls`` plus what the compaction merges and the section headings of ``kept`` notes take."""
    sent, evaluated, generated = notes_calls
    merges = merges_expected(document_tokens, kept, summary_words, point_chars)
    kept -= merges
    headed = kept if model_headings else 0            # the notes whose sections the model heads
    sections = -(-headed // NOTES_PER_SECTION)
    heading_prompt = sections * HEADING_PROMPT_TOKENS + headed * HEADING_TOKENS_PER_NOTE
    merge_prompt = -(-merges // PAIRS_PER_MERGE_CALL) * MERGE_PROMPT_TOKENS + merges * 2 * TOKENS_PER_REWORDED_NOTE
    return (sent + heading_prompt + merge_prompt, evaluated + heading_prompt + merge_prompt,
            generated + sections * HEADING_GENERATED_TOKENS + merges * TOKENS_PER_REWORDED_NOTE)


def reading_chars_for(point_chars: int, bullets: int) -> int:
    """What a notes summary takes to read: its bullets' points, their "- " marks and the section headings."""
    return point_chars + bullets * BULLET_MARK_CHARS + -(-bullets // NOTES_PER_SECTION) * HEADING_READING_CHARS


def merges_expected(document_tokens: int, notes: int, summary_words: int | None = None,
                    point_chars: int = POINT_READING_CHARS) -> int:
    """Compaction merges when every part's one note at least outgrows the summary (a long document read
    in small parts, or a short summary asked for): each merge saves about a third of its two notes."""
    length = summary_chars_for(document_tokens, summary_words)
    excess = reading_chars_for(notes * point_chars, notes) - length
    return min(notes // 2, -(-excess // (2 * point_chars // 3))) if excess > COMPACTION_SLACK * length else 0


# The account (engine.summary.strategies.account): its length follows what the document says, as the notes'
# does, bounded so that a document of 40-70k characters (10-18k tokens) gets at most about 3,000 characters:
# ACCOUNT_CHARS_PER_1K_TOKENS up to ACCOUNT_FULL_CHARS, then from ACCOUNT_FULL_TOKENS on
# ACCOUNT_CHARS_PER_1K_AFTER (a day of 235k characters: about 4,800).
ACCOUNT_CHARS_PER_1K_TOKENS = 280
ACCOUNT_MIN_CHARS, ACCOUNT_FULL_CHARS, ACCOUNT_MAX_CHARS = 800, 2_900, 6_000
ACCOUNT_FULL_TOKENS = 18_000
ACCOUNT_CHARS_PER_1K_AFTER = 50
ACCOUNT_LINE_CHARS = 100           # a line of the account as read (measured: 85-110 with Qwen2.5-Coder-1.5B)
ACCOUNT_MAX_LINES_PER_PART = 6


def account_chars_for(document_tokens: int, override_words: int | None = None) -> int:
    """The account's length in characters a reader reads; ``override_words``: the length asked for."""
    if override_words:
        return override_words * CHARS_PER_WORD
    chars = min(ACCOUNT_FULL_CHARS, max(ACCOUNT_MIN_CHARS, document_tokens * ACCOUNT_CHARS_PER_1K_TOKENS // 1000))
    chars += max(0, document_tokens - ACCOUNT_FULL_TOKENS) * ACCOUNT_CHARS_PER_1K_AFTER // 1000
    return min(ACCOUNT_MAX_CHARS, chars)


def account_lines_for_part(account_chars: int, part_tokens: int, document_tokens: int) -> int:
    """The lines a part is asked for: its share of the account's length, one at least."""
    share = account_chars * part_tokens / max(1, document_tokens, part_tokens) / ACCOUNT_LINE_CHARS
    return max(1, min(ACCOUNT_MAX_LINES_PER_PART, round(share)))


# What the account's calls cost (Qwen2.5-Coder-1.5B on development documents; bench/results): the rules and
# worked example before each part, the names met so far, a line's tokens, and the second ask of a refused line
# (its passage, a few sentences, after the same rules).
ACCOUNT_PROMPT_TOKENS = 520
ACCOUNT_NAMES_TOKENS = 30
ACCOUNT_TOKENS_PER_LINE = 30
ACCOUNT_ASKED_AGAIN_SHARE = 0.15     # of a part's lines: asked again only when too few of the surplus passed
# Lines asked beyond a part's share, the best of them kept. Twice the share: in the kept runs of the check half
# (7 documents) a second ask cost about 400 evaluated tokens and 13 s and gave a line that passed 29 times in
# 100 (51 of 175), a first ask's line passed about half the time for about 4 s of generation: a surplus line is
# the cheaper way to a kept one. Measured in docs/quality.md ("check-account-2").
ACCOUNT_OVER_ASK = 1.0
ACCOUNT_MAX_SECOND_ASKS = 2          # per part: each costs a call; a part short of lines after two is told short


def account_lines_asked(lines: int) -> int:
    """The lines asked of a part whose share is ``lines``: ACCOUNT_OVER_ASK more, one more at least."""
    return lines + max(1, round(lines * ACCOUNT_OVER_ASK))


ACCOUNT_PASSAGE_TOKENS = 250
# The second reading (engine.summary.second_reading): a prompt per line read, its passage (about 130 tokens
# measured over the labelled lines) with the question, the line and the template; one logit, nothing generated.
# A kept line and about one in four more are read (check-account-6: 38 refused beside 163 kept).
ACCOUNT_READING_TOKENS = 230
ACCOUNT_READINGS_PER_LINE = 1.25


def account_call_tokens(document_tokens: int, chunk_tokens: list[int], first: bool = True,
                        summary_words: int | None = None) -> tuple[int, int, int]:
    """(prompt tokens sent, of which evaluated, generated) for one document's account, its lines read again
    (the default; an English document's, but the plan does not tell the language apart)."""
    chars = account_chars_for(document_tokens, summary_words)
    all_tokens = max(1, sum(chunk_tokens))
    sent = evaluated = generated = 0
    for tokens in chunk_tokens:
        lines = account_lines_for_part(chars, tokens, all_tokens)
        body = ACCOUNT_NAMES_TOKENS + tokens
        sent += ACCOUNT_PROMPT_TOKENS + body
        evaluated += body + (ACCOUNT_PROMPT_TOKENS if first else 0)
        first = False
        generated += account_lines_asked(lines) * ACCOUNT_TOKENS_PER_LINE
        again = min(ACCOUNT_MAX_SECOND_ASKS, ACCOUNT_ASKED_AGAIN_SHARE * lines)
        sent += int(again * (ACCOUNT_PROMPT_TOKENS + ACCOUNT_PASSAGE_TOKENS))
        # the second ask's prefix differs from the part's after the rules: its passage is evaluated, and the
        # next part's prompt after the rules again
        evaluated += int(again * ACCOUNT_PASSAGE_TOKENS)
        generated += int(again * ACCOUNT_TOKENS_PER_LINE)
        reading = int(lines * ACCOUNT_READINGS_PER_LINE * ACCOUNT_READING_TOKENS)
        sent += reading
        evaluated += reading
    return sent, evaluated, generated
