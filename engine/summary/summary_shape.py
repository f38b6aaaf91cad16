"""The preset's summary shape, applied by code to each section's bullets: no model call.

The presets describe a shape (resources/presets/*.json): the conversation archive's three layers per topic
(what was done; decisions and judgements; reusable patterns) and a closing TODO section, the minutes'
"Action:" lines for the tasks a meeting assigns. A prose merge by the 1.5B model lost facts (writing.py
says how much), so the notes stay the bullets and code puts them in the shape: a note goes to the first
layer whose cue words its quote or its point holds (the layer without cues takes the rest); each layer is a
"### " subheading over a bullet per note, citing that note (a project log's layers read as a Keep a
Changelog section: "### Added", "### Fixed"). A note whose quote assigns a task (the task finder of
engine.summary.facts: "X will send ...", "by next meeting", 宿題) becomes an "Action:" line, or moves to
the TODO section.

Why a bullet per note: one line per layer, the notes joined by "; ", read as a run-on list on the
development chat sessions (seven notes on one line, "- 実施: ...; ...; ...") and a reference on such a line
opened seven quotes at once; now a line's reference opens the one quote it rests on.
"""
from __future__ import annotations

from dataclasses import dataclass

from precis.engine.documents.spoken_text import SPEAKER_PREFIX
from precis.engine.prompts.presets import Preset
from precis.engine.summary.compaction import Bullet
from precis.engine.summary.facts import is_task
from precis.engine.summary.language import is_japanese


@dataclass
class ShapedLine:
    text: str                  # without citation markers
    notes: list[int]


def assigns_task(bullet: Bullet) -> bool:
    return any(is_task(n.quote) for n in bullet.notes)


def _label(label: str, label_ja: str, language: str | None) -> str:
    return label_ja if label_ja and is_japanese(language) else label


TASK = -1                  # a bullet's place: the closing TODO section


def places(bullets: list[Bullet], preset: Preset, keys: list[str | None] | None = None) -> list[int]:
    """Each bullet's place in the shape: TASK for the TODO section, else the index of its layer (0 where the
    preset has none). The model's key for a bullet (engine.summary.note_layers) decides where it gave one;
    else a note that assigns a task is TASK and the first layer whose cue words its quote or point holds
    takes it (the layer without cues takes the rest)."""
    names = [layer.key for layer in preset.note_layers]
    task_key = preset.task_layer.key if preset.task_layer else None
    rest = next((i for i, layer in enumerate(preset.note_layers) if layer.cue is None),
                len(preset.note_layers) - 1)
    out = []
    for i, b in enumerate(bullets):
        key = keys[i] if keys else None
        if key is not None and (key in names or key == task_key):
            out.append(TASK if key == task_key else names.index(key))
        elif preset.task_section and assigns_task(b):
            out.append(TASK)
        elif preset.note_layers:
            text = f"{b.point} {b.quote}"
            out.append(next((j for j, layer in enumerate(preset.note_layers) if layer.cue and layer.cue.search(text)),
                            rest))
        else:
            out.append(0)
    return out


def section_lines(bullets: list[Bullet], preset: Preset, language: str | None,
                  keys: list[str | None] | None = None) -> list[ShapedLine]:
    """A section's bullets in the preset's shape (tasks for the TODO section left out: see ``todo_lines``).
    ``keys``: the model's layer for each bullet, where it sorted them (``places``)."""
    placed = places(bullets, preset, keys)
    kept = [(b, at) for b, at in zip(bullets, placed) if not (preset.task_section and at == TASK)]
    if preset.note_layers:
        lines = []
        for i, layer in enumerate(preset.note_layers):
            under = [b for b, at in kept if at == i]
            if under:
                lines.append(ShapedLine(f"### {_label(layer.label, layer.label_ja, language)}", []))
                lines += [ShapedLine(f"- {b.point}", b.ids) for b in under]
        return lines
    lines = []
    for b, _ in kept:
        task = preset.task_label and assigns_task(b)
        label = ""
        if task:     # "Action: Marketing: Yes, I will ..." of a note said as it was said reads as two labels
            word = _label(preset.task_label, preset.task_label_ja, language)
            label = f"{word} — " if SPEAKER_PREFIX.match(b.point) else f"{word}: "
        lines.append(ShapedLine(f"- {label}{b.point}", b.ids))
    return lines


def todo_lines(bullets: list[Bullet], preset: Preset, language: str | None,
               keys: list[str | None] | None = None) -> list[ShapedLine]:
    """The closing TODO section of a preset that has one: its heading, then the notes that assign tasks (or
    that the model put there: ``keys``, as ``section_lines``')."""
    if not preset.task_section:
        return []
    tasks = [b for b, at in zip(bullets, places(bullets, preset, keys)) if at == TASK]
    if not tasks:
        return []
    heading = _label(preset.task_section, preset.task_section_ja, language)
    return [ShapedLine(f"## {heading}", [])] + [ShapedLine(f"- {b.point}", b.ids) for b in tasks]
