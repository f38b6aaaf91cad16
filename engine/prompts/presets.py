"""Rule presets: resources/presets/*.json (conversation archive, meeting minutes, project log, generic),
or a preset .json file of the user's. The rules text is what the user sees and may edit. "auto" (the
default) is the preset the documents' kind calls for (``preset_for``)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources as importlib_resources
from pathlib import Path

from precis.engine.documents.document_kind import (
    ASSISTANT_CONVERSATION,
    GIT_LOG,
    MEETING_TRANSCRIPT,
    PROSE,
    document_kind,
)
from precis.engine.errors import BadInput

DEFAULT_PRESET = "conversation-archive"       # the first in the list, and "auto"'s when there is nothing to read
AUTO_PRESET = "auto"
PRESET_FOR_KIND = {ASSISTANT_CONVERSATION: "conversation-archive", MEETING_TRANSCRIPT: "meeting-minutes",
                   GIT_LOG: "project-log", PROSE: "generic"}


@dataclass(frozen=True)
class NoteLayer:
    """One layer of a topic in the summary's shape ("Decisions and judgements"): the notes whose words hold
    its cue (a regular expression; None: the layer that takes the notes no other layer's cue holds). A layer
    with ``key`` and ``means`` is one the model sorts notes into (engine.summary.note_layers): ``key`` its
    one-word label in the ask, ``means`` what a note of it records, ``example``/``example_ja`` a sentence of
    it for the ask's worked example."""
    label: str
    label_ja: str = ""
    cue: re.Pattern | None = None
    key: str = ""
    means: str = ""
    example: str = ""
    example_ja: str = ""


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    description: str
    system: str
    rules: str                 # one rule per line, as shown to and edited by the user
    content_label: str
    skip_noise: bool = False   # chunks that are only logs/tool calls keep the summary without a model call
    summary_shape: str = "A few '## ' sections in the document's order, each with bullets."
    # The shape as code applies it to the notes strategy's sections (engine.summary.summary_shape)
    note_layers: tuple[NoteLayer, ...] = ()
    task_label: str = ""           # "Action": a note that assigns a task is said as "- Action: ..."
    task_label_ja: str = ""
    task_section: str = ""         # "TODO": the notes that assign tasks close the summary in this section
    task_section_ja: str = ""
    # The model sorts the notes into the layers and the task section (engine.summary.note_layers) when every
    # layer has a key and what it means: ``task_layer`` is the task section's (label, ja label and cue unused)
    # and ``layers_about`` the ask's first line, what the numbered sentences come from.
    task_layer: NoteLayer | None = None
    layers_about: str = ""

    @property
    def model_sorts_layers(self) -> bool:
        return bool(self.note_layers) and all(layer.key and layer.means for layer in self.note_layers) \
            and bool(self.layers_about)


def _preset_dir():
    return importlib_resources.files("precis.resources") / "presets"


def list_presets() -> list[Preset]:
    return sorted((_parse(p.read_text(encoding="utf-8"), p.name) for p in _preset_dir().iterdir()
                   if p.name.endswith(".json")), key=lambda p: (p.name != DEFAULT_PRESET, p.title))


def load_preset(name_or_path: str) -> Preset:
    path = Path(name_or_path)
    if path.suffix == ".json" and path.is_file():
        return _parse(path.read_text(encoding="utf-8"), path.name)
    for preset in list_presets():
        if preset.name == name_or_path:
            return preset
    names = ", ".join(p.name for p in list_presets())
    raise BadInput(f"No preset named {name_or_path!r}. Presets: {names} (or a path to a preset .json file).")


def _parse(text: str, source: str) -> Preset:
    try:
        data = json.loads(text)
        return Preset(name=data["name"], title=data.get("title", data["name"]), description=data.get("description", ""),
                      system=data["system"], rules="\n".join(data["rules"]),
                      content_label=data.get("content_label", "New content for this round"),
                      skip_noise=bool(data.get("skip_noise", False)),
                      note_layers=tuple(_layer(layer) for layer in data.get("note_layers", ())),
                      task_layer=_layer({"label": "", **data["task_layer"]}) if data.get("task_layer") else None,
                      layers_about=str(data.get("layers_about", "")),
                      **{k: str(data[k]) for k in ("summary_shape", "task_label", "task_label_ja", "task_section",
                                                   "task_section_ja") if data.get(k)})
    except (ValueError, KeyError, TypeError, re.error) as exc:
        raise BadInput(f"Preset {source} is not valid ({exc}); it needs name, system and rules.") from exc


def _layer(data: dict) -> NoteLayer:
    cue = data.get("cue")
    return NoteLayer(str(data["label"]), str(data.get("label_ja", "")), re.compile(cue, re.I) if cue else None,
                     **{k: str(data[k]) for k in ("key", "means", "example", "example_ja") if data.get(k)})


@dataclass(frozen=True)
class PresetChoice:
    name: str
    reason: str          # what the documents are, for the person: "a meeting transcript (661 turns of 4 speakers)"
    by_file: tuple[tuple[str, str], ...] = ()   # (document, preset) when per-file summaries follow their own


def preset_for(texts: list[str]) -> PresetChoice:
    """The preset for documents summarized together: the one their kind calls for
    (engine.documents.document_kind), the kind of the most characters when they differ."""
    chars: dict[str, int] = {}
    reasons: dict[str, str] = {}
    for text in texts:
        kind = document_kind(text)
        chars[kind.name] = chars.get(kind.name, 0) + len(text)
        reasons.setdefault(kind.name, kind.reason)
    if not chars:
        return PresetChoice(DEFAULT_PRESET, "")
    kind = max(chars, key=chars.get)
    mixed = f", the kind of most of the {len(texts)} documents" if len(chars) > 1 else ""
    return PresetChoice(PRESET_FOR_KIND[kind], reasons[kind] + mixed)
