"""Which layer of the preset's shape each note of a section goes in, read by the model: one short call per
section, a word per note under a grammar (engine.prompts.note_layers).

The conversation archive's shape (the seed's three layers per topic and a closing TODO section) had been
filled by cue words, a note going to the first layer whose words ("because", "instead", "always", "次回から",
"パターン") its quote or its point held, and to TODO when a task finder's words did. On the development day
(claude_code_sessions_ja/04) a blind reader's layers agreed with the cue words' on 28 of its 40 notes, and
of the 7 notes the reader put under TODO ("次のステップ: エンジニアが `/kitchen:recipe #10` を実行して ...")
the cue words found 1: one went under "Reusable patterns" for its word "パターン" ("既存パターンを調査します").
Reading a sentence and saying what it records is what a small model does well with the sentence in view.

Where the model gives no usable answer for a note (a missing line), the cue words place it as before.
"""
from __future__ import annotations

from dataclasses import replace

from precis.engine.prompts.note_layers import layer_grammar, layer_messages, parse_layers, sorted_layers
from precis.engine.prompts.presets import Preset
from precis.engine.summary.compaction import Bullet

LABEL_TOKENS = 6                   # "[12] decision\n"


def sorts_by_model(preset: Preset, bullets: list[Bullet]) -> bool:
    """Whether the model sorts these bullets: the preset asks for it, and they are not a git log's commit
    subjects (a changelog's layers are read from its subjects' words)."""
    return preset.model_sorts_layers and not all(n.origin == "subject" for b in bullets for n in b.notes)


def layer_keys(ctx, index: int, bullets: list[Bullet], language: str | None, written):
    """Generator; returns each bullet's layer key (engine.prompts.note_layers.sorted_layers' keys), None
    for a bullet the reply gave no key; the call and a flag go to ``written`` (writing.Written). A merged
    bullet is shown its first note's sentence: a merge joins neighbours of one topic."""
    preset = ctx.layout.preset
    keys = [layer.key for layer in sorted_layers(preset)]
    sentences = [b.notes[0].quote for b in bullets]
    result = yield from ctx.call(index, layer_messages(preset, sentences, language),
                                 LABEL_TOKENS * len(bullets) + LABEL_TOKENS,
                                 replace(ctx.strict_sampling, grammar=layer_grammar(len(bullets), keys)))
    written.results.append(result)
    given = parse_layers(result.reply, keys)
    written.flags.append("layers_sorted" if len(given) == len(bullets) else "layers_partly_sorted")
    return [given.get(i) for i in range(1, len(bullets) + 1)]
