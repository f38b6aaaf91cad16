"""One plan against a model server: `precis plan --server`, the window's planner (tests/gui/
test_server_window.py) and the run itself plan alike (models/session/planner.plan_on_server), so the
plan a person reads is the plan that runs."""
from __future__ import annotations

import json

from precis.models.cli.main import main
from precis.models.library.bundled import bundled_model_path
from tests.openai_server import FakeOpenAIServer, Script
from tests.summary_fixtures import conversation_day

DATE = "2026-11-30"
REPLY = "Alice will update the changelog before Friday, and Bob checks the installer on Windows."


def served_here() -> Script:
    """A llama.cpp server named by a GGUF on this machine (as llama-cpp-python's server names its model):
    the model's size profile applies (SmolLM2-135M: parts of at most 1,024 tokens, the notes strategy)."""
    return Script(kind="llama.cpp", models=[str(bundled_model_path())], n_ctx=4096, reply=REPLY)


def run_planned(capsys, doc, server, out) -> dict:
    """The RunPlanned event of `precis summarize` through ``server``: the plan the run follows."""
    assert main(["summarize", str(doc), "--server", server.url, "--json-events", "--out", str(out), "--date", DATE]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return next(e for e in events if e["event"] == "RunPlanned")


def day_file(tmp_path):
    doc = tmp_path / "day.txt"
    doc.write_text(conversation_day(10, ()), encoding="utf-8")
    return doc


def test_plan_on_a_server_whose_model_is_here_is_the_plan_the_run_follows(tmp_path, capsys):
    doc = day_file(tmp_path)
    with FakeOpenAIServer(served_here()) as server:
        assert main(["plan", str(doc), "--server", server.url, "--json", "--date", DATE]) == 0
        shown = json.loads(capsys.readouterr().out)
        planned = run_planned(capsys, doc, server, tmp_path / "out")
    assert planned["strategy"] == "notes"                          # "auto" read the served model's size
    assert [c["tokens"] for c in shown["chunks"]] == planned["chunk_tokens"]
    assert shown["budget"] == planned["budget"] and shown["n_ctx_used"] == 4096
    assert max(planned["chunk_tokens"]) <= 1024 < planned["budget"]["n_ctx"] // 2   # the profile's cap, not the context's
