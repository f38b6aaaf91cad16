"""A rewording that leaves out all of its sentence's figures is asked again; where the model never keeps them,
its first such answer stands rather than the sentence verbatim (check ``figures_dropped``)."""
from __future__ import annotations

import re

from precis.engine.runs.run import RunOptions
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import make_plan, run_all, start

REPORT = "\n".join([
    "Harwick Tools expects capital expenditures in the range of $1.05 billion to $1.15 billion next year.",
    "Same-store sales at the Harwick Tools outlets increased 5.7% in February despite the weather closures.",
    "The board of Harwick Tools approved the new distribution centre in Ohio after a long review.",
    "Harwick Tools opened forty new stores in the US and closed twelve of its older stores in Europe.",
] * 5) + "\n"
CAPEX = "capital expenditures in the range of $1.05 billion to $1.15 billion"


def _without_figures(keep_on_second_ask: bool):
    """Rewordings that say the capex sentence without its range (on the second ask with it, if
    ``keep_on_second_ask``); every other sentence as the fake's diligent rewordings say it."""
    def script(call):
        if call.kind == "reword":
            said = re.findall(r"^\[(\d+)\] (.+)$", call.content, re.M)
            lines = []
            for i, sentence in said:
                if CAPEX in sentence:
                    lines.append(f"[{i}] Harwick Tools expects capex of $1.05 to 1.15 billion"
                                 if keep_on_second_ask and call.retry else
                                 f"[{i}] Harwick Tools plans capital spending in a specific range")
                else:
                    lines.append(f"[{i}] {' '.join(reversed(sentence.rstrip('.').split()[:12]))}")
            return "\n".join(lines) + "\n"
        if call.kind == "restate" and CAPEX in call.content:
            return "Harwick Tools plans capital spending in a given range\n"
        return diligent(call)
    return script


def _capex_notes(script) -> list[dict]:
    rt = FakeRuntime(script=script)
    plan = make_plan(rt, REPORT * 2, preset="generic")
    state, options = start(rt, plan, RunOptions(strategy="notes"))
    run_all(rt, plan, state, options)
    return [n for n in state.notes["day.txt"] if CAPEX in n["quote"]]


def test_a_figure_kept_on_the_second_ask_is_the_note():
    notes = _capex_notes(_without_figures(keep_on_second_ask=True))
    assert notes and all(n["origin"] == "reworded" and "$1.05 to 1.15 billion" in n["point"] for n in notes)


def test_never_kept_the_figureless_rewording_stands_not_the_sentence_verbatim():
    notes = _capex_notes(_without_figures(keep_on_second_ask=False))
    assert notes and all(n["origin"] == "reworded" for n in notes)
    assert all(n["point"] == "Harwick Tools plans capital spending in a specific range" for n in notes)
