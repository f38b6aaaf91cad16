"""`precis summarize` end to end with the real bundled model (small inputs, n_ctx 2048)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from precis.engine.prompts.layout import PromptRenderer, RoundLayout
from precis.engine.prompts.presets import load_preset
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.settings import RuntimeSettings
from precis.engine.summary.scaffold import scaffold_lines
from precis.models.cli.main import main
from tests.conftest import CORPUS_DIR, REPO_ROOT
from tests.engine.test_document_kind import GIT_LOG_TEXT
from tests.summary_fixtures import meeting_transcript

pytestmark = pytest.mark.real_model


def _check_run(out_dir, source_text, smollm2_path, events):
    run = json.loads((out_dir / "2026-11-27-run.json").read_text(encoding="utf-8"))
    assert run["outcome"] == "finished"
    budget = run["budget"]
    rounds = run["rounds"]
    finished = [e["record"] for e in events if e["event"] == "RoundFinished"]
    assert [r["summary_chars"] for r in finished] == run["curve"]["summary_chars"] == \
        [r["summary_chars"] for r in rounds]
    with LlamaRuntime.load(smollm2_path, RuntimeSettings(n_ctx=2048), vocab_only=True) as tok:
        renderer = PromptRenderer(tok)
        layout = RoundLayout(load_preset(run["preset"]), run["date"])
        run_dir = next(e["run_dir"] for e in events if e["event"] == "RunPlanned")
        saved = json.loads((Path(run_dir) / "state.json").read_text(encoding="utf-8"))
        for r, full in zip(rounds, saved["rounds"]):
            if r["attempts"] == 0:
                continue
            assert r["prompt_tokens"] <= r["attempts"] * (budget["n_ctx"] - budget["summary_out_cap"])
            assert r["prompt_evaluated"] + r["prompt_reused"] == r["prompt_tokens"]
            assert r["generated_tokens"] <= r["attempts"] * budget["summary_out_cap"]
            assert 0 < r["prompt_seconds"] < r["seconds"]
            if r["kind"] == "round" and r["attempts"] == 1:   # the prompt really was what the record says
                chunk = source_text[r["chunk_start_char"]:r["chunk_end_char"]]
                prompt = renderer.render(layout.rolling_messages(full["summary_in"], chunk))
                assert renderer.count(prompt) == r["prompt_tokens"]
            assert r["summary_chars"] == len(full["summary"])
    reuse = run["prefix_reuse"]
    # evaluated once per run, not per round: again only after a call with another prompt (a failed part's notes)
    assert 1 <= reuse["static_prompt_evaluations"] <= 1 + reuse["prompt_switches"]
    summary_md = (out_dir / "2026-11-27-summary.md").read_text(encoding="utf-8")
    assert saved["summaries"][next(iter(saved["summaries"]))].strip() in summary_md
    assert (out_dir / "2026-11-27-todos.md").read_text(encoding="utf-8").startswith("# TODO — 2026-11-27")
    return run


def _summarize(args, capsys, strategy="rolling"):
    code = main(["summarize", *args, "--n-ctx", "2048", "--date", "2026-11-27", "--json-events",
                 "--strategy", strategy])
    captured = capsys.readouterr()
    events = [json.loads(line) for line in captured.out.splitlines() if line.strip()]
    return code, events, captured.err


def test_sample_document_end_to_end(tmp_path, capsys, smollm2_path, sample_document):
    source = tmp_path / "day.txt"
    text = sample_document.read_text(encoding="utf-8")[:7000]
    source.write_text(text, encoding="utf-8")
    code, events, err = _summarize([str(source), "--out", str(tmp_path / "out")], capsys)
    assert code == 0, err
    run = _check_run(tmp_path / "out", text, smollm2_path, events)
    assert len(run["rounds"]) >= 3
    assert run["facts"]["day.txt"]["kept"] + run["facts"]["day.txt"]["lost"] > 0


@pytest.mark.skipif(not CORPUS_DIR.is_dir(), reason=f"development corpus not found at {CORPUS_DIR}")
def test_corpus_meeting_end_to_end(tmp_path, capsys, smollm2_path):
    data = json.loads((CORPUS_DIR / "qmsum" / "val_ES2006c.json").read_text(encoding="utf-8"))
    text = data["text"][:6000]
    source = tmp_path / "meeting.txt"
    source.write_text(text, encoding="utf-8")
    code, events, err = _summarize([str(source), "--preset", "meeting-minutes", "--out", str(tmp_path / "out")], capsys)
    assert code == 0, err
    _check_run(tmp_path / "out", text, smollm2_path, events)


def _stop_after_the_first_round(tmp_path, sample_document, precis_home, sig) -> tuple[str, dict, dict]:
    """A real rolling run as a child process, sent ``sig`` once its first round finished: it must exit 130
    with its state "cancelled", its rounds kept and the partial summary written. (run_id, state, env)."""
    source = tmp_path / "day.txt"
    source.write_text(sample_document.read_text(encoding="utf-8")[:7000], encoding="utf-8")
    env = {**os.environ, "PRECIS_HOME": str(precis_home)}
    cmd = [sys.executable, "-m", "precis.gui.launcher", "summarize", str(source), "--n-ctx", "2048", "--date",
           "2026-11-27", "--out", str(tmp_path / "out"), "--json-events", "--strategy", "rolling"]
    proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run_id = None
    for line in proc.stdout:
        event = json.loads(line)
        run_id = event.get("run_id", run_id)
        if event["event"] == "RoundFinished":
            proc.send_signal(sig)
            break
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    state = json.loads((precis_home / "data" / "runs" / run_id / "state.json").read_text(encoding="utf-8"))
    assert state["status"] == "cancelled" and len(state["rounds"]) >= 1
    partial = (tmp_path / "out" / "2026-11-27-summary.md").read_text(encoding="utf-8")
    assert "> Partial: the run was cancelled" in partial
    return run_id, state, env


def test_ctrl_c_cancels_keeps_rounds_and_resume_finishes(tmp_path, sample_document, precis_home):
    run_id, state, env = _stop_after_the_first_round(tmp_path, sample_document, precis_home, signal.SIGINT)
    kept = [r["summary"] for r in state["rounds"]]

    listed = subprocess.run([sys.executable, "-m", "precis.gui.launcher", "runs"], cwd=REPO_ROOT, env=env,
                            capture_output=True, text=True)
    assert run_id in listed.stdout and "cancelled" in listed.stdout
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "precis.gui.launcher", "summarize", "--resume", run_id], cwd=REPO_ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"resuming after {len(kept)}" in done.stderr
    state = json.loads((precis_home / "data" / "runs" / run_id / "state.json").read_text(encoding="utf-8"))
    assert state["status"] == "finished" and [r["summary"] for r in state["rounds"][:len(kept)]] == kept
    assert time.monotonic() - started < 600


def test_stuff_too_long_for_the_context_exits_2_with_the_fix(tmp_path, capsys, sample_document):
    code = main(["summarize", str(sample_document), "--strategy", "stuff", "--n-ctx", "2048",
                 "--out", str(tmp_path / "out"), "--date", "2026-11-27"])
    err = capsys.readouterr().err
    assert code == 2
    assert "does not fit in one call" in err and "Use the rolling strategy" in err


def test_the_bundled_model_through_notes_gives_only_lines_linked_to_verified_quotes(tmp_path, capsys,
                                                                                  sample_document):
    """SmolLM2-135M writes poor prose; what it hands the user still holds nothing unverifiable."""
    source = tmp_path / "day.txt"
    text = sample_document.read_text(encoding="utf-8")[:7000]
    source.write_text(text, encoding="utf-8")
    code, events, err = _summarize([str(source), "--out", str(tmp_path / "out")], capsys, strategy="notes")
    assert code == 0, err
    run = json.loads((tmp_path / "out" / "2026-11-27-run.json").read_text(encoding="utf-8"))
    assert run["strategy"] == "notes" and run["outcome"] == "finished"
    notes = {n["id"]: n for n in run["evidence"]["day.txt"]["notes"]}
    assert notes
    for n in notes.values():                                     # every quote is the document's own text
        assert text[n["start_char"]:n["end_char"]] == n["quote"]
    summary_md = (tmp_path / "out" / "2026-11-27-summary.md").read_text(encoding="utf-8")
    body = summary_md.split("\n## Sources\n")[0].split("\n", 2)[2]
    lines = [ln for ln in body.splitlines() if ln.strip() and not ln.startswith(("#", ">"))]
    assert lines and all(re.search(r"\[\d+(, \d+)*\]$", ln) for ln in lines)
    assert not scaffold_lines(body)
    assert not re.search(r"</?[a-z_]+>|existing summary|new content|\?\s*$", body, re.I | re.M)


def test_a_meeting_left_on_the_automatic_preset_is_summarized_as_minutes(tmp_path, capsys):
    """The default preset is the one the document's kind calls for: a meeting's notes are minutes (no
    conversation-archive layers), and the plan says what the document was taken for."""
    source = tmp_path / "meeting.txt"
    text = meeting_transcript()
    source.write_text(text, encoding="utf-8")
    assert main(["plan", str(source), "--n-ctx", "2048"]) == 0
    assert "preset meeting-minutes, for a meeting transcript (12 turns of 4 speakers)" in capsys.readouterr().out
    assert main(["plan", str(source), "--n-ctx", "2048", "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert planned["preset"] == "meeting-minutes"
    assert planned["preset_chosen_for"] == "a meeting transcript (12 turns of 4 speakers)"
    code, events, err = _summarize([str(source), "--out", str(tmp_path / "out")], capsys, strategy="notes")
    assert code == 0, err
    planned = next(e for e in events if e["event"] == "RunPlanned")
    assert (planned["preset"], planned["preset_chosen_for"]) == \
        ("meeting-minutes", "a meeting transcript (12 turns of 4 speakers)")
    run = json.loads((tmp_path / "out" / "2026-11-27-run.json").read_text(encoding="utf-8"))
    assert run["preset"] == "meeting-minutes" and run["outcome"] == "finished"
    summary_md = (tmp_path / "out" / "2026-11-27-summary.md").read_text(encoding="utf-8")
    assert not re.search(r"^### (?:Done|Decisions and judgements|Reusable patterns)$", summary_md, re.M)
    for n in run["evidence"]["meeting.txt"]["notes"]:            # every quote is the meeting's own text
        assert text[n["start_char"]:n["end_char"]] == n["quote"]


def test_a_folder_of_a_meeting_and_a_git_log_summarized_per_file_follows_each_ones_kind(tmp_path, capsys):
    """--per-file on the automatic preset: the meeting's summary is minutes, the git log's a project log,
    and the plan, the run's first line and run.json say which file followed which."""
    folder = tmp_path / "night"
    folder.mkdir()
    (folder / "meeting.txt").write_text(meeting_transcript(), encoding="utf-8")
    (folder / "log.txt").write_text(GIT_LOG_TEXT, encoding="utf-8")
    assert main(["plan", str(folder), "--per-file", "--n-ctx", "2048"]) == 0
    assert "preset by file: log.txt project-log; meeting.txt meeting-minutes" in capsys.readouterr().out
    code, events, err = _summarize([str(folder), "--per-file", "--out", str(tmp_path / "out")], capsys,
                                   strategy="notes")
    assert code == 0, err
    planned = next(e for e in events if e["event"] == "RunPlanned")
    assert planned["preset"] == "by file"
    assert planned["preset_chosen_for"] == ("log.txt project-log for a git log of 4 commits; meeting.txt "
                                            "meeting-minutes for a meeting transcript (12 turns of 4 speakers)")
    run = json.loads((tmp_path / "out" / "2026-11-27-run.json").read_text(encoding="utf-8"))
    assert run["outcome"] == "finished" and run["preset"] == "by file"
    assert {d["name"]: d["preset"] for d in run["documents"]} == \
        {"log.txt": "project-log", "meeting.txt": "meeting-minutes"}
    summary_md = (tmp_path / "out" / "2026-11-27-summary.md").read_text(encoding="utf-8")
    meeting_part = summary_md.split("## meeting.txt", 1)[1]
    assert not re.search(r"^#### (?:Done|Decisions and judgements|Reusable patterns)$", meeting_part, re.M)


def test_sigterm_stops_like_ctrl_c_and_writes_the_partial_files(tmp_path, sample_document, precis_home):
    """A scheduler stops a job with SIGTERM: finished rounds are kept and the partial files written."""
    _stop_after_the_first_round(tmp_path, sample_document, precis_home, signal.SIGTERM)


def test_the_bundled_model_through_the_account_gives_sentences_each_traced_to_the_document(tmp_path, capsys):
    """SmolLM2-135M through the account, end to end: whatever it writes that is kept is one traced sentence
    opening with no pronoun, and every refusal is recorded with the checks that made it."""
    from bench.summary_reading import reading_counts
    source = tmp_path / "meeting.txt"
    text = meeting_transcript() * 4
    source.write_text(text, encoding="utf-8")
    code, events, err = _summarize([str(source), "--out", str(tmp_path / "out")], capsys, strategy="account")
    assert code == 0, err
    run = json.loads((tmp_path / "out" / "2026-11-27-run.json").read_text(encoding="utf-8"))
    assert run["strategy"] == "account" and run["outcome"] == "finished"
    rounds = [r for r in run["rounds"] if r["kind"] == "account"]
    assert rounds and all(r["attempts"] >= 1 for r in rounds)
    for r in rounds:
        assert all(x["checks"] for x in r["refused"])
    summary_md = (tmp_path / "out" / "2026-11-27-summary.md").read_text(encoding="utf-8")
    body = summary_md.split("\n## Sources\n")[0].split("\n", 2)[2]
    notes = {n["id"]: n for n in (run["evidence"].get("meeting.txt") or {}).get("notes", [])}
    for n in notes.values():                                     # every quote is the document's own text
        assert text[n["start_char"]:n["end_char"]] == n["quote"]
    cited = [int(i) for refs in re.findall(r"\[([\d, ]+)\]", body) for i in refs.split(", ")]
    assert set(cited) <= set(notes)
    assert cited or "passed its checks" in body          # kept lines, or said plainly that none was
    counts = reading_counts(body)
    assert counts["pronoun_openers"] == 0 and counts["first_second_person"] == 0 and counts["questions"] == 0
    assert not scaffold_lines(body)
