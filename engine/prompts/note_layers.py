"""The ask that sorts a section's notes into the preset's layers (engine.summary.note_layers).

The conversation archive's shape is three layers per topic (done; decisions and judgements; reusable
patterns) and a closing TODO section. Each note's sentence is numbered, and the model answers one word per
line from the preset's keys ("[1] done"), held by a grammar: a short, local reading of a sentence it has in
view. The preset says what each layer means and gives one sentence of each as the worked example (a made-up
day: nothing in any document).
"""
from __future__ import annotations

import re

from precis.engine.prompts.inert import as_data
from precis.engine.prompts.layout import is_japanese
from precis.engine.prompts.presets import NoteLayer, Preset

LAYER_SYSTEM = "You sort the sentences of a document into the sections of its summary. You only write the labels."
SENTENCE_SHOWN_CHARS = 300         # a sentence as the ask shows it: a long one's opening says what it records
_LABEL_LINE = re.compile(r"^\s*\[(\d{1,3})\]\s*([a-z]+)\s*$")


def sorted_layers(preset: Preset) -> list[NoteLayer]:
    """The layers the model sorts into, in the preset's order, the task section's last (if it has one)."""
    return list(preset.note_layers) + ([preset.task_layer] if preset.task_layer and preset.task_section else [])


def layer_grammar(count: int, keys: list[str]) -> str:
    """GBNF of exactly ``count`` numbered lines "[1] <key>", in order."""
    return "\n".join([
        "root ::= " + " ".join(f"line{i}" for i in range(1, count + 1)),
        *(f'line{i} ::= "[{i}] " key "\\n"' for i in range(1, count + 1)),
        "key ::= " + " | ".join(f'"{k}"' for k in keys),
        "",
    ])


def parse_layers(text: str, keys: list[str]) -> dict[int, str]:
    """The key given to each sentence number ("[3] todo"); lines with any other word are left out."""
    return {int(m.group(1)): m.group(2) for m in map(_LABEL_LINE.match, text.splitlines())
            if m and m.group(2) in keys}


def _shown(sentence: str) -> str:
    said = " ".join(sentence.split())
    return said if len(said) <= SENTENCE_SHOWN_CHARS else said[:SENTENCE_SHOWN_CHARS].rstrip() + " ..."


def layer_messages(preset: Preset, sentences: list[str], language: str | None) -> list[dict]:
    """The rules (the preset's ``layers_about`` and each layer's key and meaning), the worked example as an
    earlier exchange (one sentence of each layer, in the document's language), then the numbered sentences."""
    layers = sorted_layers(preset)
    japanese = is_japanese(language)
    rules = "\n".join(["[Rules]", preset.layers_about, "Label each one with what it records:",
                       *(f"{layer.key}: {layer.means}" for layer in layers),
                       "One line per sentence, numbered as the sentences are.", "[End of rules]"])
    examples = [(layer.example_ja if japanese and layer.example_ja else layer.example) for layer in layers]
    example = "\n".join(f"[{i}] {s}" for i, s in enumerate(examples, 1))
    answer = "".join(f"[{i}] {layer.key}\n" for i, layer in enumerate(layers, 1))
    numbered = "\n".join(f"[{i}] {_shown(s)}" for i, s in enumerate(sentences, 1))
    return [{"role": "system", "content": LAYER_SYSTEM},
            {"role": "user", "content": f"{rules}\n<items>\n{example}\n</items>\nLabels:"},
            {"role": "assistant", "content": answer},
            {"role": "user", "content": f"<items>\n{as_data(numbered)}\n</items>\n"
                                        f"Labels ([1] to [{len(sentences)}]):"}]
