"""Rule presets and the round layout (the seed's, re-injected every round).

User message of every rolling round, in this order so the static part comes first and stays
byte-identical across rounds (llama.cpp's prefix reuse then skips it after round one):

    [Mandatory rules for this round] ... [End of rules. Data for this round follows]
    Archive date: {date}
    <existing_summary>
    {summary}
    </existing_summary>
    {content label}:
    <new_content>
    {chunk}
    </new_content>
    {the task once more}

Presets (engine.prompts.presets) give the rules; the rules text is editable and replaces the preset's.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from precis.engine.prompts.inert import as_data, special_markers_broken
from precis.engine.prompts.presets import Preset

RULES_OPEN = "[Mandatory rules for this round]"
RULES_CLOSE = "[End of rules. Data for this round follows]"
# The data sits in tags so that small models can tell it from the instructions around it.
SUMMARY_OPEN, SUMMARY_CLOSE = "<existing_summary>", "</existing_summary>"
CONTENT_OPEN, CONTENT_CLOSE = "<new_content>", "</new_content>"
SUMMARY_LABEL = SUMMARY_OPEN    # what a reply must never contain: it would be the prompt echoed back
EMPTY_SUMMARY = "(none yet: this is the first part)"


JAPANESE_NAMES = {"japanese", "日本語", "ja", "jp"}


def is_japanese(language: str | None) -> bool:
    """Whether a language asked for (or named by engine.summary.language) is Japanese."""
    return bool(language) and language.strip().lower() in JAPANESE_NAMES


def language_line(language: str | None) -> str:
    if not language:
        return "Write the summary in the same language as the content."
    return f"Write the summary in {language}."


@dataclass(frozen=True)
class RoundLayout:
    """Everything that is the same in every round of one run: the static part of the prompt."""
    preset: Preset
    date: str
    language: str | None = None
    preset_reason: str = ""      # with the "auto" preset, what the documents are ("a git log of 64 commits")

    def with_rules(self, rules: str) -> "RoundLayout":
        return replace(self, preset=replace(self.preset, rules=rules))

    def _rules_block(self) -> str:
        return "\n".join([RULES_OPEN, self.preset.rules.strip(), language_line(self.language),
                          "Output only the complete updated summary.", RULES_CLOSE])

    def _head(self, summary: str) -> str:
        """Rules, date and the existing summary: identical up to the summary text in every kind of round."""
        return (f"{self._rules_block()}\nArchive date: {self.date}\n{SUMMARY_OPEN}\n"
                f"{as_data(summary.strip()) or EMPTY_SUMMARY}\n{SUMMARY_CLOSE}\n")

    def _messages(self, user: str) -> list[dict]:
        return [{"role": "system", "content": self.preset.system}, {"role": "user", "content": user}]

    def rolling_messages(self, summary: str, chunk: str, reminder: str = "") -> list[dict]:
        return self._messages(f"{self._head(summary)}{self.preset.content_label}:\n{CONTENT_OPEN}\n{as_data(chunk)}\n"
                              f"{CONTENT_CLOSE}\n{FINAL_INSTRUCTION}" + _after_data(reminder))

    def map_messages(self, chunk: str, reminder: str = "") -> list[dict]:
        """Map step of map-reduce (and stuff): one part on its own, same rules."""
        return self.rolling_messages("", chunk, reminder)

    def merge_messages(self, summaries: list[str], reminder: str = "") -> list[dict]:
        """Reduce step: partial summaries of consecutive parts merged into one, in order."""
        parts = "\n".join(f"<partial_summary n={i}>\n{as_data(s.strip())}\n</partial_summary>"
                          for i, s in enumerate(summaries, 1))
        return self._messages(f"{self._rules_block()}\nArchive date: {self.date}\n{parts}\n{MERGE_REQUEST}"
                              + _after_data(reminder))

    def compact_messages(self, summary: str, target_chars: int, reminder: str = "") -> list[dict]:
        """Explicit compaction: the summary outgrew its budget and must be tightened, not lost. Same
        prefix as a round (rules, date, summary), so the static part is reused from the cache."""
        return self._messages(f"{self._head(summary)}{COMPACTION_REQUEST.format(target_chars=target_chars)}"
                              + _after_data(reminder))


# After the data, the task once more: measured with Qwen2.5-Coder 1.5B on the sample day, the rules at
# the top alone made it copy the content (92-100% of the reply); with the data in tags and this line at
# the end it wrote a summary. The line is the same in every round, so it costs no prefix reuse.
FINAL_INSTRUCTION = ("Write the complete updated summary now: the existing summary plus what the new content adds, "
                     "in your own words, following the rules above. Do not repeat these instructions or copy the "
                     "content.")
MERGE_REQUEST = ("Merge these partial summaries of consecutive parts into one summary, in order, in your own words, "
                 "following the rules above: keep every fact; merge repeated topics.")
COMPACTION_REQUEST = ("This round has no new content: the summary above has grown too long. Rewrite it more concisely, "
                      "to about {target_chars} characters: keep every topic, decision, name, number, date and TODO; "
                      "cut repetition and wording only.")


def _after_data(reminder: str) -> str:
    # After the data, so a retry reuses the cached static prefix, summary and chunk.
    return f"\n---\n{reminder}" if reminder else ""


def retry_reminder(flags: list[str], previous: str, max_tokens: int) -> str:
    """Appended after the data (so the static prefix, summary and chunk are still reused from cache)."""
    parts = ["Reminder: reply with the complete updated summary only."]
    if previous:
        parts.append(f"Keep everything in the existing summary ({len(previous):,} characters) and add what the new "
                     "content adds; never shorten or drop earlier topics.")
    if "truncated" in flags:
        parts.append(f"Be concise: the whole summary must fit in about {int(max_tokens * 3):,} characters.")
    if "copied_chunk" in flags:
        parts.append("Summarize the new content in your own words; do not copy it.")
    if "echoed_prompt" in flags:
        parts.append("Do not repeat these instructions or the labels.")
    if "repetition" in flags:
        parts.append("Do not repeat any sentence.")
    if "meta" in flags:
        parts.append("Do not comment on the task.")
    return " ".join(parts)


# The longest reminder a retry can append: the budget reserves room for it in every round.
WORST_REMINDER = retry_reminder(["truncated", "copied_chunk", "echoed_prompt", "repetition", "meta"],
                                "x" * 9_999_999, 99_999)


class PromptRenderer:
    """Renders a layout with a model's chat template and counts exactly what the model will see."""

    def __init__(self, runtime) -> None:
        self.runtime = runtime

    def render(self, messages: list[dict]) -> str:
        # a document's "<|im_end|>" written as text must not close the message it is in (engine.prompts.inert)
        return self.runtime.render_chat([dict(m, content=special_markers_broken(m["content"])) for m in messages])

    def count(self, prompt: str) -> int:
        # Rendered prompts contain template tokens (<|im_start|>...): counted as the runtime sends them.
        return self.runtime.count_tokens(prompt, special=True)

    def static_prompt_tokens(self, layout: RoundLayout) -> int:
        """The round prompt with an empty summary and an empty chunk: template, system, rules, date, labels,
        and room for the longest reminder a retry appends after the data."""
        return self.count(self.render(layout.rolling_messages("", "", WORST_REMINDER)))
