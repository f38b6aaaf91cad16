"""What a run says while it runs: typed events, produced by the strategies and consumed alike by
the window, the command line (progress bar or --json-events) and the tests."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

# Round kinds: "round" (rolling), "map", "merge", "stuff", "compaction", "notes", "write", "account".
# Flags a round can carry (engine.summary.guard and the strategies): failed checks "shrank", "meta", "empty",
# "truncated", "repetition", "copied_chunk", "echoed_prompt", "dropped_facts", "scaffold", "wrong_language";
# outcomes "repaired" (a stricter retry passed), "notes_fallback" (the part's checked notes folded in),
# "extracted" (no rewording of the part's chosen sentences passed: the sentences, cleaned of fillers, or the
# model's shortenings of them in their own words, "shortened"),
# "kept_parts" (a failed merge keeps its parts), "notes_direct" (not asked to rewrite: the parts before it
# failed, so the part went straight to its notes), "noise_skipped", "scaffold_stripped"; account rounds
# "lines_refused" (a line failed its checks), "asked_again" (a line kept from the second ask), "reattributed" (a
# line kept with the speaker whose turns hold it, engine.summary.reattribution), "act_restated" (a speaker said
# to ask who put no question there, kept as talking about it), "nothing_kept"; notes rounds "pronoun_named" (a
# story sentence's opening "he" or "she" named by the model's weighed answer, engine.summary.story_who),
# "voice_named" (a report's "we" named by the model's weighed answer, engine.summary.voice),
# "figures_left_out" (a rewording kept without its sentence's figures: asked again, the model never kept them),
# "figures_kept" (a sentence whose rewordings were refused kept as written beside the part's rewordings: it
# holds an amount or a date none of them holds).


@dataclass
class RoundRecord:
    """Everything measured about one finished round; a row of run.json and of the window's round list."""
    index: int                      # position in the run (0-based), compaction rounds included
    kind: str
    document: str
    chunk_index: int                # -1 for compaction / merge rounds
    chunk_start_char: int
    chunk_end_char: int
    chunk_tokens: int
    summary_in_chars: int
    summary_in_tokens: int
    summary_chars: int              # the summary this round leaves behind
    summary_tokens: int
    prompt_tokens: int
    prompt_evaluated: int
    prompt_reused: int
    generated_tokens: int
    seconds: float
    prompt_seconds: float = 0.0
    attempts: int = 1               # model calls the round made (a retry, the rewording of extracted sentences)
    first_call_reused: int = -1     # prompt tokens the first call took from the cache (-1: no model call)
    notes_kept: int = 0             # notes rounds: verified notes kept (write rounds: lines linked)
    notes_unsupported: int = 0      # rewordings (compaction: merges) refused by their checks, counted
    notes_repeats: int = 0
    # notes and compaction rounds: the refused rewordings (merges) by the names of the checks that refused them
    # (engine.summary.checks), an answer counted once under each: run.json says why rewordings were refused
    refused_by: dict[str, int] = field(default_factory=dict)
    # account rounds: each line its checks refused, with the names of the checks ({"text", "checks", "reasons",
    # "kept_instead": the second ask's line, or ""}): run.json says why every line was refused
    refused: list[dict] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    stopped_by: str = ""            # why the round's last model call stopped ("eos", "max_tokens", "loop", "copy")
    call_stops: list[str] = field(default_factory=list)   # why each of its model calls stopped, in order
    summary: str = ""               # the summary text after this round
    summary_in: str = ""            # the summary it received
    reply: str = ""                 # the model's last raw reply (differs from summary when repaired)

    @property
    def collapsed(self) -> bool:
        return any(f in COLLAPSE_FLAGS for f in self.flags)

    def as_dict(self, with_texts: bool = True) -> dict:
        d = asdict(self)
        if not with_texts:
            for key in ROUND_TEXT_KEYS:
                d.pop(key)
        return d

    @classmethod
    def from_dict(cls, data: dict) -> "RoundRecord":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


# RunPlanned.preset of per-file summaries that follow presets of their own (documents of different kinds)
BY_FILE = "by file"
ROUND_TEXT_KEYS = ("summary", "summary_in", "reply")


COLLAPSE_FLAGS = ("shrank", "meta", "empty", "truncated", "repetition", "copied_chunk", "echoed_prompt",
                  "dropped_facts", "scaffold", "wrong_language")


@dataclass
class RunPlanned:
    run_id: str
    run_dir: str
    strategy: str
    rounds: int                     # planned rounds (retries and compactions come on top)
    chunk_tokens: list[int]
    budget: dict
    resumed_from: int = 0           # finished rounds taken over from a checkpoint
    resumed_parts: int = 0          # of those, rounds that read a part of a document (what `rounds` counts)
    estimated_seconds: float | None = None   # from this machine's measured speeds; None until measured
    preset: str = ""                # the rules preset the run follows, or BY_FILE
    preset_chosen_for: str = ""     # with "auto": what the documents are ("a meeting transcript (...)"), or
    #                                 with BY_FILE each file's preset and kind ("a.txt meeting-minutes for ...")


@dataclass
class RoundStarted:
    index: int
    kind: str
    chunk_index: int
    total: int
    chunk_tokens: int
    summary_in_chars: int
    chunk_text: str = ""
    summary_in: str = ""
    attempt: int = 1


@dataclass
class TokensGenerated:
    """Throttled: at most every few tenths of a second, with the reply so far."""
    index: int
    text: str
    generated_tokens: int
    tokens_per_second: float


@dataclass
class RoundFinished:
    record: RoundRecord


@dataclass
class CollapseDetected:
    index: int
    flags: list[str]
    previous_chars: int
    reply_chars: int
    attempt: int
    detail: str


@dataclass
class RoundRepaired:
    index: int
    how: str                        # "retry", "notes_fallback", "extracted", "kept_parts"
    summary_chars: int
    detail: str = ""


@dataclass
class CompactionDone:
    index: int
    before_chars: int
    after_chars: int
    accepted: bool


@dataclass
class NoiseSkipped:
    index: int
    chunk_index: int
    reason: str


@dataclass
class RunFinished:
    outcome: str                    # "finished", "cancelled", "failed"
    summaries: dict                 # document name -> final summary
    message: str = ""
    run_dir: str = ""
    exit_code: int = 0              # for "failed": the error's exit code (2 bad input, 3 model error)


def event_dict(event) -> dict:
    """A JSON-ready dict with the event's type, for --json-events and logs."""
    if isinstance(event, RoundFinished):
        body = {"record": event.record.as_dict(with_texts=False)}
    else:
        body = asdict(event)
        body.pop("chunk_text", None)
        body.pop("summary_in", None)
    return {"event": type(event).__name__, **body}
