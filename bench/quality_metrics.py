"""How good a summary is, against the development corpus's human references. Deterministic, no model.

- rouge1/2/L: F1 against each human reference (the best one), Google's rouge-score (stemmed words for
  English, characters for Japanese: whitespace tokens mean nothing there).
- fact_recall: the human question/answer pairs: the share of each answer's content words (Japanese:
  character bigrams) the summary contains, averaged over the pairs (the best of several answers).
- numbers_kept: numbers written in the references and answers that the summary also holds.
- copy_rate: the share of the summary's words inside runs of 8+ words copied verbatim from the source
  (Japanese: 16+ characters).
- fact_recall_own_words: fact recall of the summary less those copied runs (a copy of the document recalls
  its facts without summarising them).
- scaffold_lines: lines that are prompt scaffolding or chatter (tags, "existing summary", "new
  content", "here is the summary", questions to the reader); detected here independently of the
  product's own guard.
- coverage: which quarters of the document the summary draws from. Each summary sentence goes to the
  quarter whose distinctive words (found in at most two quarters) it shares most; a summary of the
  first half only scores 0.5.
"""
from __future__ import annotations

import re

from bench.summary_reading import reading_counts, reading_problems
from precis.engine.summary.evidence import cjk_bigrams, content_words

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORDS = re.compile(r"[a-z0-9]+")
_SENTENCES = re.compile(r"[^.!?。！？\n]+[.!?。！？]?")
_SCAFFOLD = re.compile(
    r"</?[a-z_]{3,40}>|\b(?:existing|previous|updated) summary\b|\bnew content\b|\(none yet|"
    r"\b(?:here is|here's|below is) (?:the|a|an|my)?\s*(?:updated |final |complete )?summary|"
    r"\b(?:do you want|would you like|let me know|i hope this)\b|^\s*(?:sure|certainly)[,!.]|"
    r"^\W*(?:summary|notes)\s*:\s*$|既存の要約|新しい内容|以下(?:は|が)要約", re.I)
_QUESTION = re.compile(r"^\W*(?:do|does|would|could|can|shall|should|is|are)\b[^?\n]*\?\s*$", re.I)
_REFS = re.compile(r"\s*\[\d{1,5}(?:, ?\d{1,5})*\]")


def strip_references(summary: str) -> str:
    """The summary without Precis's evidence references ("[3, 7]"), the way a reader reads the prose."""
    return "\n".join(_REFS.sub("", line) for line in summary.splitlines())


def is_japanese(text: str) -> bool:
    cjk = sum(1 for c in text if "\u3040" <= c <= "\u9fff")
    return cjk > 0.2 * max(1, sum(1 for c in text if c.isalpha()))


class _CharTokenizer:
    def tokenize(self, text: str) -> list[str]:
        return [c for c in text if not c.isspace() and c.isalnum()]


def rouge(summary: str, references: list[str], japanese: bool) -> dict:
    if not references or not summary.strip():
        return {"rouge1": None, "rouge2": None, "rougeL": None}
    from rouge_score import rouge_scorer
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=not japanese,
                                      tokenizer=_CharTokenizer() if japanese else None)
    best = {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}
    for ref in references:
        scores = scorer.score(ref, summary)
        for key in best:
            best[key] = max(best[key], scores[key].fmeasure)
    return {k: round(v, 4) for k, v in best.items()}


def _units(text: str, japanese: bool) -> set[str]:
    return cjk_bigrams(text) if japanese else content_words(text)


def fact_recall(summary: str, answers: list[list[str]], japanese: bool) -> float | None:
    """``answers``: for each question, its acceptable answers."""
    if not answers:
        return None
    have = _units(summary, japanese)
    scores = []
    for options in answers:
        best = 0.0
        for answer in options:
            want = _units(answer, japanese)
            if want:
                best = max(best, len(want & have) / len(want))
        scores.append(best)
    return round(sum(scores) / len(scores), 4)


def numbers_kept(summary: str, references: list[str]) -> float | None:
    wanted = {n.replace(",", "") for ref in references for n in _NUMBER.findall(ref)}
    wanted = {n for n in wanted if len(n) > 1 or n not in "0123456789"} or wanted
    if not wanted:
        return None
    have = {n.replace(",", "") for n in _NUMBER.findall(summary)}
    return round(len(wanted & have) / len(wanted), 4)


def _copied(summary: str, source: str, japanese: bool) -> tuple[list[str], list[bool]]:
    """The summary's units (Japanese: characters; else words) and which lie in runs copied from the source
    (16+ characters; 8+ words)."""
    if japanese:
        text = [c for c in summary if not c.isspace()]
        src = "".join(c for c in source if not c.isspace())
        n = 16
        grams = {src[i:i + n] for i in range(0, max(0, len(src) - n + 1))}
        covered = [False] * len(text)
        for i in range(0, max(0, len(text) - n + 1)):
            if "".join(text[i:i + n]) in grams:
                covered[i:i + n] = [True] * n
        return text, covered
    words = _WORDS.findall(summary.lower())
    src = _WORDS.findall(source.lower())
    n = 8
    grams = {tuple(src[i:i + n]) for i in range(0, max(0, len(src) - n + 1))}
    covered = [False] * len(words)
    for i in range(0, max(0, len(words) - n + 1)):
        if tuple(words[i:i + n]) in grams:
            covered[i:i + n] = [True] * n
    return words, covered


def copy_rate(summary: str, source: str, japanese: bool) -> float:
    units, covered = _copied(summary, source, japanese)
    return round(sum(covered) / max(1, len(units)), 4)


def own_words(summary: str, source: str, japanese: bool) -> str:
    """The summary without the runs it copied from the source: what it says in its own words. A plain loop that
    hands the story back verbatim (seen: 4,643 characters of a 32k story, its fact recall 0.38) recalls the
    facts of the text it copied; this is what it recalls as a summary."""
    units, covered = _copied(summary, source, japanese)
    return ("" if japanese else " ").join(u for u, c in zip(units, covered) if not c)


def scaffold_lines(summary: str) -> list[str]:
    return [ln for ln in summary.splitlines() if ln.strip() and (_SCAFFOLD.search(ln) or _QUESTION.match(ln))]


def coverage(summary: str, source: str, japanese: bool) -> dict:
    quarter = max(1, len(source) // 4)
    quarters = [_units(source[i * quarter:(i + 1) * quarter if i < 3 else len(source)], japanese) for i in range(4)]
    df: dict[str, int] = {}
    for q in quarters:
        for u in q:
            df[u] = df.get(u, 0) + 1
    hits = [0, 0, 0, 0]
    for sentence in _SENTENCES.findall(summary):
        units = {u for u in _units(sentence, japanese) if df.get(u, 0) in (1, 2)}
        if not units:
            continue
        scores = [sum(1.0 / df[u] for u in units & q) for q in quarters]
        top = max(scores)
        if top >= 1.0:
            for i, s in enumerate(scores):
                if s == top:
                    hits[i] += 1
    return {"quarters": round(sum(1 for h in hits if h) / 4, 2), "sentences_per_quarter": hits}


# A sentence of a summary line, for its references: it ends at a stop followed by a space or the line's end
# (or a Japanese stop), not at the stop inside "17.3%", "2.0" or "os.UserCacheDir" (an earnings call's "- Net
# sales increase by 17.3% [5]" was read as "- Net sales increase by 17." without its reference and "3% [5]")
_IN_SENTENCE = r"(?:[^.!?。！？\n]|[.!?](?![\s\[]|$))"
_LINE_SENTENCES = re.compile(_IN_SENTENCE + r"+[.!?。！？]?")
# A note's references after its full stop ("- Passwyn tells him to go back. [2]", "- 知事は...述べた。 [13]") are
# its sentence's: split at the stop, the sentence stood without them and the references alone, and every note
# that ends as a sentence counted as unlinked and unsupported (61146's notes: 0.54 of them "linked")
_REFS_AFTER_STOP = re.compile(r"([.!?。！？])(\s*\[\d{1,5}(?:, ?\d{1,5})*\])")


def refs_before_stop(summary: str) -> str:
    """``summary`` with each reference list that follows a sentence's end moved before it ("back. [2]" ->
    "back [2].")."""
    return _REFS_AFTER_STOP.sub(r"\2\1", summary)


def linked_share(summary: str) -> float | None:
    """Share of the summary's body sentences (not headings) that carry evidence references, at the end of a
    line ("- point [3]", "- point. [3]") or inside a paragraph ("... the kinetic battery [4, 5]. The team
    ...")."""
    summary = refs_before_stop(summary)
    sentences = []
    for line in summary.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            sentences += [s for s in _LINE_SENTENCES.findall(line) if re.search(r"[^\W\d_]", _REFS.sub("", s))]
    if not sentences:
        return None
    return round(sum(bool(re.search(r"\[\d{1,5}(?:, ?\d{1,5})*\]", s)) for s in sentences) / len(sentences), 4)


_CITED_SENTENCE = re.compile(_IN_SENTENCE + r"*?\[(\d{1,5}(?:, ?\d{1,5})*)\][.!?。！？]?")


def supported_share(summary: str, notes: list[dict], claim_only: bool = False) -> float | None:
    """Share of the summary's cited sentences whose cited quotes hold at least half of their words (content
    words and numbers; Japanese character bigrams): the references support what the sentence says, as far as
    words can tell. Computed here from the summary file's own references, apart from the checks that kept it.
    A quote counts with who said it: its label, or, for a sentence inside a turn quoted without one, the
    note's ``speaker`` (shown beside it in the sources), so "Project Manager feels under-stimulated" on "I felt
    like a bit under-stimulated ..." counts as its labelled neighbours always did; and as the model was shown
    it, spelled letters joined ("L_C_D_" is the "LCD" of its note).

    ``claim_only``: who said it is the label's to tell, not the words': the cited speakers' names are taken
    out of the sentence's words, and what is left (what is said, and the frame: "mentions", "suggests") has to
    be in the quotes. Stricter: a speaker's name is one or two of a meeting note's five or so words, and
    counted as held it carries a note that keeps little else ("Project Manager orders UI team to take over"
    on "... go ahead and take it away guys .")."""
    from precis.engine.documents.spoken_text import SPEAKER_PREFIX, speaker_name, speaker_of, unspell
    from precis.engine.summary.alignment import units
    by_id = {n["id"]: n for n in notes}
    summary = refs_before_stop(summary)
    sentences = [(m.group(0), m.group(1)) for m in _CITED_SENTENCE.finditer(summary)]
    if not sentences:
        return None
    held = 0
    for sentence, refs in sentences:
        cited = [by_id[int(i)] for i in refs.replace(" ", "").split(",") if int(i) in by_id]
        said_by = set()
        for n in cited:
            label = SPEAKER_PREFIX.match(n["quote"])
            said_by |= units(n.get("speaker") or (speaker_name(speaker_of(label.group(0))) if label else ""))
        want = units(_REFS.sub("", sentence)) - (said_by if claim_only else set())
        quotes = units(unspell(" ".join(f"{n.get('speaker', '')} {n['quote']}" for n in cited)))
        held += bool(want) and len(want & quotes) >= 0.5 * len(want)
    return round(held / len(sentences), 4)


def score(summary: str, source: str, references: list[str], answers: list[list[str]], japanese: bool) -> dict:
    """``japanese``: the corpus's own label for the document. Not guessed from its characters: a Japanese
    git log is mostly Latin (hashes, authors, file paths), and was once scored as English."""
    prose = strip_references(summary)
    return {"chars": len(prose.strip()), **rouge(prose, references, japanese),
            "fact_recall": fact_recall(prose, answers, japanese),
            "fact_recall_own_words": fact_recall(own_words(prose, source, japanese), answers, japanese),
            "numbers_kept": numbers_kept(prose, references + [a for opts in answers for a in opts]),
            "copy_rate": copy_rate(prose, source, japanese), "scaffold_lines": len(scaffold_lines(prose)),
            "coverage": coverage(prose, source, japanese)["quarters"],
            "coverage_detail": coverage(prose, source, japanese)["sentences_per_quarter"],
            "linked_share": linked_share(summary), "reading": reading_counts(summary),
            "reading_problems": reading_problems(reading_counts(summary)),
            "language_ok": is_japanese(prose) == japanese if prose.strip()
            else False}
