"""The memory bar's legend: every part named with its size, wrapped where the window is narrow."""
from __future__ import annotations

from precis.engine.planning.memory_plan import plan_memory
from precis.engine.runtime.settings import RuntimeSettings
from precis.gui.memory_bar import MemoryBarWidget
from precis.models.gguf.facts import read_model_facts


def _bar(qtbot, smollm2_path, width: int) -> MemoryBarWidget:
    bar = MemoryBarWidget()
    qtbot.addWidget(bar)
    bar.resize(width, 62)
    bar.set_plan(plan_memory(read_model_facts(smollm2_path), RuntimeSettings(n_ctx=8192), 16 * 2**30))
    bar.show()
    qtbot.waitExposed(bar)
    return bar


def test_every_part_of_the_plan_has_a_legend_label(qtbot, smollm2_path):
    bar = _bar(qtbot, smollm2_path, 900)
    labels = bar.legend_labels()
    assert [label.split(" ")[0] for label in labels] == ["weights", "KV", "compute", "saved", "runtime"]
    assert labels[3].startswith("saved prompts ") and labels[-1].endswith(" MiB")
    assert {row for _, row in bar.legend_layout(bar.width())} == {0}          # one line where it fits
    assert len(bar.verdict_lines()) == 1


def test_a_narrow_bar_wraps_its_legend_and_grows_to_show_it(qtbot, smollm2_path):
    bar = _bar(qtbot, smollm2_path, 390)                 # the model column's width in the window
    layout = bar.legend_layout(bar.width())
    metrics = bar.fontMetrics()
    for (x, _row), label in zip(layout, bar.legend_labels()):
        assert x + 13 + metrics.horizontalAdvance(label) <= bar.width()      # no label cut off
    rows = 1 + max(row for _, row in layout)
    assert rows >= 2
    verdict = bar.verdict_lines()                         # too long for one line at this width: two
    assert len(verdict) == 2 and verdict[1].startswith("largest context that fits ")
    assert all(metrics.horizontalAdvance(line) <= bar.width() for line in verdict)
    qtbot.waitUntil(lambda: bar.height() >= 62 + 18 * (rows + len(verdict) - 2))
    assert bar.grab().width() == bar.width()            # it paints at that size without error
