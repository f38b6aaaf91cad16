"""Per-file summaries of documents of different kinds under the automatic preset: each document follows
the preset its own kind calls for (a night's folder of a meeting and a git log), with the fake runtime."""
from __future__ import annotations

from precis.engine.documents.bundle import load_documents
from precis.engine.prompts.layout import PromptRenderer
from precis.engine.prompts.presets import load_preset
from precis.engine.runs.report import build_ledgers, build_report, static_prefix_tokens
from precis.engine.runs.run import RunOptions, new_state, run_summary
from precis.models.session.plan_text import plan_lines
from precis.models.session.planner import plan_run
from precis.models.session.request import RunRequest
from tests.engine.test_document_kind import GIT_LOG_TEXT
from tests.fake_runtime import FakeRuntime
from tests.summary_fixtures import meeting_transcript


def _documents(tmp_path, texts: dict[str, str]):
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return load_documents([tmp_path / name for name in texts]).documents


def _plan(tmp_path, texts, **request):
    rt = FakeRuntime()
    docs = _documents(tmp_path, texts)
    return rt, plan_run(RunRequest(files=[], n_ctx=2048, date="2026-11-27", **request), rt, docs, None)


def test_each_file_follows_the_preset_its_kind_calls_for(tmp_path):
    # the git log has the most characters, the meeting's rules the longer prompt
    rt, plan = _plan(tmp_path, {"meeting.txt": meeting_transcript(), "log.txt": GIT_LOG_TEXT * 3},
                     per_file=True, strategy="rolling")
    assert {name: layout.preset.name for name, layout in plan.document_layouts.items()} == \
        {"meeting.txt": "meeting-minutes", "log.txt": "project-log"}
    assert plan.document_layouts["log.txt"].preset_reason == "a git log of 12 commits"
    assert "preset by file: meeting.txt meeting-minutes; log.txt project-log" in plan_lines(plan)[0].text
    assert plan.as_dict()["presets_by_document"]["meeting.txt"]["preset"] == "meeting-minutes"
    renderer = PromptRenderer(rt)          # the budget leaves room for the longer of the two prompts
    assert plan.layout.preset.name == "project-log"
    assert plan.budget.static_prompt_tokens == renderer.static_prompt_tokens(plan.document_layouts["meeting.txt"]) \
        > renderer.static_prompt_tokens(plan.layout)

    options = RunOptions(strategy="rolling")
    state = new_state(plan, None, {"n_ctx": 2048}, options, ["meeting.txt", "log.txt"])
    events = list(run_summary(rt, plan, state, options))
    planned = events[0]
    assert planned.preset == "by file"
    assert planned.preset_chosen_for.startswith("meeting.txt meeting-minutes for a meeting transcript (12 turns")
    for call in rt.calls:                  # each part was read under its own document's rules
        own = "meeting-minutes" if "Project Manager" in call.content else "project-log"
        other = "project-log" if own == "meeting-minutes" else "meeting-minutes"
        assert load_preset(own).system in call.prompt and load_preset(other).system not in call.prompt
    assert {"Project Manager" in c.content for c in rt.calls} == {True, False}
    report = build_report(plan, state, build_ledgers(plan, state), static_prefix_tokens(rt, plan)).as_json()
    assert report["preset"] == "by file"
    assert [d["preset"] for d in report["documents"]] == ["meeting-minutes", "project-log"]


def test_one_preset_when_the_files_share_a_kind_are_bundled_or_the_person_chose_it(tmp_path):
    texts = {"meeting.txt": meeting_transcript(), "log.txt": GIT_LOG_TEXT}
    for request in ({"per_file": False}, {"per_file": True, "preset": "generic"}):
        _, plan = _plan(tmp_path, texts, **request)
        assert plan.document_layouts == {} and "by file" not in plan_lines(plan)[0].text
    _, plan = _plan(tmp_path, {"a.txt": meeting_transcript(), "b.txt": meeting_transcript()}, per_file=True)
    assert plan.document_layouts == {} and plan.layout.preset.name == "meeting-minutes"
