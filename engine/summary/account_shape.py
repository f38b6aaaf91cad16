"""The account's lines in the preset's shape, by code: prose paragraphs in the document's order, with the
references of each sentence, and the sections a preset asks for after them. No model call.

- Any document: a paragraph per part, a part of fewer than PARAGRAPH_MIN_SENTENCES lines running on into the
  next, each sentence followed by the references to the sentences of the document it rests on ("... [4, 5].").
- A meeting (the minutes' preset, whose tasks are "Action" lines): the lines that say what is left to do
  (``left_to_do``: "Ravi will book the rental by Friday") close the account under "## Action items".
- A day with an assistant (the conversation archive's preset): the seed's layers: "## Done" over the paragraphs
  of what was done, then "## Decisions and judgements" and "## Reusable patterns" as bullets, a line going to
  the first layer whose cue words it holds (resources/presets), and what is left to do under "## TODO" (and in
  the run's TODO file: engine.runs.report).
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from precis.engine.prompts.presets import Preset
from precis.engine.summary.facts import is_task
from precis.engine.summary.language import is_japanese

# An account's line says what happens in the present ("Ravi books the rental"); what is left to do is said by
# the line's form: someone who will, plans to or has yet to do it; in Japanese a plan (予定, つもり), a deadline
# (までに, 明日, 来週), what remains (が残る) or is not done yet (未着手, まだ ... ない). facts.is_task reads a
# document's sentences, whose Japanese tasks are polite (送ります) and whose English "will" needs a deadline: the
# account's plain "田中が金曜日までにレンタルを予約する。" (the Japanese meeting example's own line) and "The user
# plans to move the archives to the NAS tomorrow." (the English chat example's) were no tasks, and no Japanese
# line could reach a TODO section. The English verb comes after a subject of one to four words: "The assistant
# says the job will check ..." reports what was done.
_LEFT_EN = re.compile(r"^(?:[\w'’.-]+ ){1,4}?(?:will(?! be\b)|plans? to|intends? to|(?:is|are) going to|"
                      r"(?:has|have) yet to|still (?:has|have|needs?) to)\b|\bnot yet\b|\byet to\b", re.I)
_LEFT_JA = re.compile(r"予定|つもり|までに|明日|明後日|来週|が残(?:る|って|され)|未(?:完了|着手|解決|対応|実装)|"
                      r"まだ[^。]{0,30}?(?:ない|ず)|あとで|後で|次回(?!から)")


def left_to_do(text: str) -> bool:
    """Whether an account's line says what is still to be done (see ``_LEFT_EN``), or assigns a task as a
    document's sentence does (facts.is_task)."""
    return is_task(text) or bool(_LEFT_EN.search(text) or _LEFT_JA.search(text))


PARAGRAPH_MIN_SENTENCES = 3
ACTION_ITEMS, ACTION_ITEMS_JA = "Action items", "対応事項"
_END = re.compile(r"([.!?。！？]+[\"”’」)]?)$")


@dataclass
class AccountLine:
    text: str                          # one sentence, as the model wrote it (checked)
    part: int                          # the chunk it tells
    notes: list[int] = field(default_factory=list)   # the notes (the document's sentences) it rests on
    asked_again: bool = False          # its first wording was refused; this is the second ask's
    from_notes: bool = False           # no line the model wrote for its part passed: the part's checked note
    doubt: float | None = None         # the second reading's No against Yes in log-odds (None: not read)

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "AccountLine":
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})

    def cited(self) -> str:
        """The sentence with its references before its full stop: "Maitland wakes in a strange room [3]."."""
        if not self.notes:
            return self.text
        refs = f"[{', '.join(str(i) for i in self.notes)}]"
        m = _END.search(self.text)
        if not m:
            return f"{self.text} {refs}"
        body = self.text[:m.start()]
        return f"{body}{'' if is_cjk(body[-1:]) else ' '}{refs}{m.group(1)}"


def is_cjk(ch: str) -> bool:
    return bool(ch) and ord(ch) > 0x3000


def reading_chars(lines: list[AccountLine]) -> int:
    """What the account takes to read: its sentences and the spaces between them (no references)."""
    return sum(len(line.text) + 1 for line in lines)


def paragraphs(lines: list[AccountLine]) -> list[str]:
    """Consecutive lines as paragraphs, one per part, a short part's lines running on into the next."""
    out: list[str] = []
    current: list[AccountLine] = []
    for line in lines:
        if current and line.part != current[-1].part and len(current) >= PARAGRAPH_MIN_SENTENCES:
            out.append(_joined(current))
            current = []
        current.append(line)
    if current:
        out.append(_joined(current))
    return out


def _joined(lines: list[AccountLine]) -> str:
    cited = [line.cited() for line in lines]
    if all(is_cjk(c[-1:]) or c.endswith(("。", "」")) for c in cited):
        return "".join(cited)
    return " ".join(cited)


def _label(label: str, label_ja: str, language: str | None) -> str:
    return label_ja if label_ja and is_japanese(language) else label


def open_items(lines: list[AccountLine], preset: Preset) -> list[AccountLine]:
    """The lines a preset with tasks (a meeting's action items, a day's TODO) closes the account with."""
    return [line for line in lines if (preset.task_section or preset.task_label) and left_to_do(line.text)]


def account_text(lines: list[AccountLine], preset: Preset, language: str | None, untold: tuple[int, ...] = ()) -> str:
    """The account as the summary shows it (see the module's docstring); ``untold``: the parts (0-based) none of
    whose lines nor notes was kept, said under it."""
    tasks = open_items(lines, preset)
    told = [line for line in lines if line not in tasks]
    out: list[str] = []
    if preset.note_layers:
        rest = next((i for i, layer in enumerate(preset.note_layers) if layer.cue is None), 0)
        layered: dict[int, list[AccountLine]] = {}
        for line in told:
            at = next((i for i, layer in enumerate(preset.note_layers) if layer.cue and layer.cue.search(line.text)),
                      rest)
            layered.setdefault(at, []).append(line)
        for i, layer in enumerate(preset.note_layers):
            if i not in layered:
                continue
            out += [f"## {_label(layer.label, layer.label_ja, language)}", ""]
            if i == rest:
                out += [p + "\n" for p in paragraphs(layered[i])]
            else:
                out += [f"- {line.cited()}" for line in layered[i]] + [""]
    else:
        out += [p + "\n" for p in paragraphs(told)]
    if tasks:
        heading = _label(preset.task_section, preset.task_section_ja, language) if preset.task_section \
            else _label(ACTION_ITEMS, ACTION_ITEMS_JA, language)
        out += [f"## {heading}", ""] + [f"- {line.cited()}" for line in tasks]
    told_by_notes = sorted({line.part + 1 for line in lines if line.from_notes})
    marks = [m for m in (parts_mark(told_by_notes, language, untold=False),
                         parts_mark(sorted(p + 1 for p in untold), language, untold=True)) if m]
    if marks:
        out += [""] + marks
    return "\n".join(out).strip()


def parts_mark(parts: list[int], language: str | None, untold: bool) -> str:
    """The mark under an account some of whose parts are told by their checked notes (the notes strategy's
    sentences, each said in a few words and checked) because no line the model wrote for them passed, or
    (``untold``) not told at all because none of their notes could stand in the account either."""
    if not parts:
        return ""
    if is_japanese(language):
        which = f"第{'・'.join(str(p) for p in parts)}部"
        if untold:
            return (f"> {which}は、モデルの文も要点もどれも検証を通らなかったため、要約に含まれていません"
                    "（run.jsonに記録）。")
        return f"> {which}は、モデルの文がどれも検証を通らなかったため、本文から選んで確かめた要点で記しています。"
    named = f"Part {parts[0]}" if len(parts) == 1 else \
        "Parts " + ", ".join(str(p) for p in parts[:-1]) + f" and {parts[-1]}"
    one = len(parts) == 1
    if untold:
        return (f"> {named} {'is' if one else 'are'} not told: no sentence the model wrote for "
                f"{'it' if one else 'them'} passed its checks, nor any of {'its' if one else 'their'} notes "
                "(run.json lists each one refused and why).")
    return (f"> {named} {'is' if one else 'are'} told by the document's checked notes: no sentence the model wrote "
            f"for {'it' if one else 'them'} passed its checks.")
