"""What a hostile day of use found (issue "Nothing lost, nothing written outside its folder, nothing
hangs"): one test per finding, through the real command line where the finding is about it. Runs
that get past the preflight use the scripted fake runtime at the model seam (LlamaRuntime.load), so
these stay fast; the real model runs end to end in test_summarize_real.py."""
from __future__ import annotations

import json
import os
import re
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from precis.engine.documents.loading import load_document
from precis.engine.runs.state import list_runs
from precis.engine.summary.facts import extract_facts
from precis.models.cli.main import main
from tests.conftest import REPO_ROOT
from tests.fake_runtime import FakeRuntime

TINY = "Mika: The budget for project Atlas is EUR 1,200 and Priya signs it off by 2026-12-01.\n" * 8


@pytest.fixture
def fake_model(monkeypatch):
    """Runs get the scripted fake instead of llama.cpp; every load is counted."""
    loads = []

    def load(path, settings, vocab_only=False):
        loads.append((path, vocab_only))
        return FakeRuntime(n_ctx=settings.n_ctx, settings=settings, path=Path(path))
    monkeypatch.setattr("precis.engine.runtime.llama.LlamaRuntime.load", staticmethod(load))
    return loads


def _tiny(tmp_path) -> Path:
    path = tmp_path / "tiny.txt"
    path.write_text(TINY, encoding="utf-8")
    return path


def _files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


# 1 ---------------------------------------------------------------------------------------------------
def test_1_an_output_file_is_refused_before_the_model_loads(tmp_path, capsys, fake_model, precis_home):
    out = tmp_path / "some-existing-file.txt"
    out.write_text("keep me", encoding="utf-8")
    code = main(["summarize", str(_tiny(tmp_path)), "--out", str(out), "--date", "2026-11-30"])
    err = capsys.readouterr().err
    assert code == 2 and f"--out {out} is a file, not a folder" in err and "Give a folder" in err
    assert fake_model == [] and out.read_text() == "keep me" and not (precis_home / "data" / "runs").exists()


def test_1_a_read_only_output_folder_is_refused_before_the_model_loads(tmp_path, capsys, fake_model, precis_home):
    """A folder this process cannot write into: mode 555 for a normal user; for root (who writes anywhere,
    as this suite runs here) the immutable attribute, which refuses root too."""
    locked = tmp_path / "locked"
    locked.mkdir()
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(locked)], check=True)
    else:
        locked.chmod(0o555)
    try:
        code = main(["summarize", str(_tiny(tmp_path)), "--out", str(locked), "--date", "2026-11-30"])
        err = capsys.readouterr().err
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(locked)], check=True)
        locked.chmod(0o755)
    assert code == 2, err
    assert f"Cannot write the results into {locked} (" in err and "Choose a folder you can write to" in err
    assert fake_model == [] and _files_under(locked) == set() and not (precis_home / "data" / "runs").exists()


# 2 ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("date", ["../escaped", "2026/11/30", "2026-13-01", "yesterday", "2026-11-30/../../x"])
def test_2_a_date_that_is_not_a_date_is_refused(tmp_path, capsys, fake_model, date):
    code = main(["summarize", str(_tiny(tmp_path)), "--out", str(tmp_path / "out"), "--date", date])
    assert code == 2 and "--date must be a date written YYYY-MM-DD" in capsys.readouterr().err
    assert fake_model == [] and not (tmp_path / "out").exists() and not (tmp_path.parent / "escaped-summary.md").exists()


names = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/\\\x00"),
                min_size=1, max_size=24).filter(lambda n: n not in (".", "..") and n.strip())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(date=st.one_of(st.dates().map(str), st.text(max_size=20)), file_name=names, folder=names)
@example(date="-:", file_name="0", folder="0")       # a value that looks like an option (found by hypothesis)
def test_2_nothing_is_ever_written_outside_out_and_the_runs_folder(tmp_path_factory, fake_model, date, file_name,
                                                                  folder):
    root = tmp_path_factory.mktemp("sandbox")
    home, inputs = root / "home", root / "inputs"
    inputs.mkdir()
    source = inputs / (file_name + ".txt")
    source.write_text(TINY, encoding="utf-8")
    out = root / "outputs" / folder
    before = _files_under(root)
    old = os.environ.get("PRECIS_HOME")
    os.environ["PRECIS_HOME"] = str(home)
    try:
        main(["summarize", str(source), "--out", str(out), f"--date={date}", "--n-ctx", "2048",
              "--strategy", "rolling"])
    finally:
        os.environ["PRECIS_HOME"] = old or ""
    written = _files_under(root) - before
    allowed = (out.resolve(), (home / "data").resolve(), (home / "cache").resolve(), (home / "config").resolve())
    assert all(any(p.resolve().is_relative_to(a) for a in allowed) for p in written), written


# 3 ---------------------------------------------------------------------------------------------------
amounts = st.builds(lambda whole, frac, unit: f"{whole:,}{frac}{unit}",
                    st.integers(min_value=1, max_value=99_999_999), st.sampled_from(["", ".5", ".25"]),
                    st.sampled_from(["円", "万円", "億円", "%", "ドル", "人"]))


@given(amount=amounts, before=st.sampled_from(["予算は", "総額", "約", "合計で", "が"]),
       after=st.sampled_from(["です。", "となります。", "でした", "。"]))
def test_3_every_japanese_amount_in_the_source_is_found_whole(amount, before, after):
    found = [f.text for f in extract_facts(f"{before}{amount}{after}") if f.kind == "amount"]
    assert found == [amount]


def test_3_the_amounts_of_the_report():
    assert [f.text for f in extract_facts("予算は1,200万円、前年は120万円、手数料3000円。") if f.kind == "amount"] == \
        ["1,200万円", "120万円", "3000円"]


# 4 ---------------------------------------------------------------------------------------------------
def test_4_a_hub_that_never_answers_times_out(monkeypatch, capsys):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted = []
    threading.Thread(target=lambda: [accepted.append(server.accept()) for _ in range(8)], daemon=True).start()
    monkeypatch.setenv("PRECIS_HF_ENDPOINT", f"http://127.0.0.1:{server.getsockname()[1]}")
    monkeypatch.setenv("PRECIS_HUB_READ_TIMEOUT", "0.5")
    monkeypatch.setattr("precis.models.library.hub.RETRY_BACKOFF_S", 0.1)
    started = time.monotonic()
    code = main(["models", "search", "llama"])
    err = capsys.readouterr().err
    assert code == 4 and "did not answer within" in err and time.monotonic() - started < 15
    server.close()


# 5 ---------------------------------------------------------------------------------------------------
def test_5_a_second_run_on_the_same_outputs_is_refused_while_the_first_runs(tmp_path, capsys, fake_model):
    out = tmp_path / "out"
    out.mkdir()
    from precis.engine.runs.state import process_started_at
    (out / ".2026-11-30.precis-lock").write_text(json.dumps(
        {"pid": os.getpid(), "started_at": process_started_at(os.getpid()), "since": time.time()}))
    code = main(["summarize", str(_tiny(tmp_path)), "--out", str(out), "--date", "2026-11-30"])
    err = capsys.readouterr().err
    assert code == 2 and "Another Precis run" in err and fake_model == []
    (out / ".2026-11-30.precis-lock").write_text(json.dumps({"pid": 999_999, "started_at": 1.0, "since": 1.0}))
    assert main(["summarize", str(_tiny(tmp_path)), "--out", str(out), "--date", "2026-11-30", "--n-ctx", "2048",
                 "--strategy", "rolling"]) == 0                     # a dead owner's lock is stale
    assert not (out / ".2026-11-30.precis-lock").exists() and (out / "2026-11-30-summary.md").exists()


# 6 ---------------------------------------------------------------------------------------------------
def test_6_western_text_is_read_as_windows_1252_and_says_so(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes("Begoña measured 12 m² of the naïve café floor.\n".encode("cp1252") * 3)
    doc = load_document(path)
    assert "Begoña" in doc.text and "m²" in doc.text and "naïve" in doc.text
    assert doc.encoding == "cp1252" and "read as cp1252" in doc.warnings[0]


# 7 ---------------------------------------------------------------------------------------------------
def test_7_a_repair_says_how_many_notes_fit_and_keeps_the_rest(tmp_path, capsys, fake_model, monkeypatch):
    import precis.engine.summary.strategies.base as base
    monkeypatch.setattr(base.RunContext, "count", lambda self, text: 10 ** 6 if "[" in text else len(text) // 4)
    rounds = {"n": 0}

    def collapse(call):
        from tests.fake_runtime import diligent
        if call.kind == "round":
            rounds["n"] += 1
            return "The summary remains unchanged." if rounds["n"] >= 3 else diligent(call)
        return diligent(call)
    monkeypatch.setattr("tests.fake_runtime.FakeRuntime.script", staticmethod(collapse), raising=False)
    doc = tmp_path / "day.txt"
    doc.write_text("".join(f"Mika: In part {i}, the budget for project P{i} is EUR {i},200 and Priya signs it by "
                           f"2026-12-0{1 + i % 8}.\n" for i in range(400)), encoding="utf-8")
    code = main(["summarize", str(doc), "--out", str(tmp_path / "out"), "--date", "2026-11-30", "--n-ctx", "2048",
                 "--strategy", "rolling", "--json-events"])
    assert code == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    repairs = [e for e in events if e["event"] == "RoundRepaired" and e["how"] == "notes_fallback"]
    assert repairs and all("did not fit under the summary cap" in e["detail"] for e in repairs)
    assert all(e["detail"].startswith("folded 0 of") for e in repairs)
    summary = (tmp_path / "out" / "2026-11-30-summary.md").read_text(encoding="utf-8")
    assert "\n## Notes from failed parts that did not fit in the summary\n" in summary


# 8 ---------------------------------------------------------------------------------------------------
def test_8_a_context_beyond_the_training_context_is_said_and_must_be_confirmed(tmp_path, capsys, fake_model):
    assert main(["plan", "--n-ctx", "16384", "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["beyond_training_context"] is True and out["n_ctx_train"] == 8192
    code = main(["summarize", str(_tiny(tmp_path)), "--n-ctx", "16384", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "beyond the 8,192" in err and "--n-ctx 8192" in err and "--beyond-training-context" in err
    assert fake_model == []


# 9 ---------------------------------------------------------------------------------------------------
def test_9_a_live_log_with_a_cut_line_keeps_its_good_lines(tmp_path):
    path = tmp_path / "live.jsonl"
    lines = [json.dumps({"role": "user" if i % 2 else "assistant", "content": f"message {i}"}) for i in range(20)]
    path.write_text("\n".join(lines) + '\n{"role": "user", "cont', encoding="utf-8")
    doc = load_document(path)
    assert doc.text.count("message ") == 20 and "skipped 1 unreadable line" in doc.warnings[0] and "21" in \
        doc.warnings[0]


def test_9_utf16_without_a_bom_and_a_stray_nul_are_text(tmp_path):
    utf16 = tmp_path / "export.txt"
    utf16.write_bytes("Meeting notes: the release moves to Friday.\n".encode("utf-16-le") * 4)
    assert load_document(utf16).text.startswith("Meeting notes") and "UTF-16" in load_document(utf16).warnings[0]
    nul = tmp_path / "log.txt"
    nul.write_bytes(b"12:00 build started\n12:01 build fin\x00ished\n" + b"12:02 all good, 40 tests\n" * 40)
    doc = load_document(nul)
    assert "build finished" in doc.text and "NUL" in doc.warnings[0]


# 10 --------------------------------------------------------------------------------------------------
def test_10_a_killed_run_is_listed_as_interrupted_and_resumable(tmp_path, capsys, fake_model):
    assert main(["summarize", str(_tiny(tmp_path)), "--out", str(tmp_path / "out"), "--date", "2026-11-30",
                 "--n-ctx", "2048", "--strategy", "rolling"]) == 0
    state = list_runs()[0]
    state.status, state.owner_pid, state.owner_started_at = "running", 999_999, 1.0   # as a kill -9 leaves it
    state.save()
    capsys.readouterr()
    assert main(["runs"]) == 0
    listed = capsys.readouterr().out
    assert "interrupted, resumable" in listed and f"--resume {state.run_id}" in listed


def test_10_progress_never_counts_past_the_plan():
    from precis.engine.events import RoundFinished, RunPlanned
    from precis.models.session.progress import ProgressModel
    from tests.summary_fixtures import conversation_day, make_plan, run_all, start
    rt = FakeRuntime()
    plan = make_plan(rt, conversation_day(sessions=12, noise_sessions=()))
    state, options = start(rt, plan)
    progress = ProgressModel()
    texts = []
    for event in run_all(rt, plan, state, options):
        progress.update(event)
        if isinstance(event, (RunPlanned, RoundFinished)):
            texts.append(progress.status_text())
    assert progress.rounds_finished > plan.rounds                      # compactions happened on top
    assert all(int(t.split()[1]) <= plan.rounds for t in texts if t.startswith("Round"))


# 12 --------------------------------------------------------------------------------------------------
def test_12_output_files_follow_the_umask(tmp_path, fake_model):
    old = os.umask(0o022)
    try:
        assert main(["summarize", str(_tiny(tmp_path)), "--out", str(tmp_path / "out"), "--date", "2026-11-30",
                     "--n-ctx", "2048", "--strategy", "rolling"]) == 0
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "out" / "2026-11-30-summary.md").stat().st_mode)
    assert mode == 0o644


def test_12_a_folder_scan_names_what_it_skipped(tmp_path, capsys, fake_model):
    folder = tmp_path / "day"
    folder.mkdir()
    (folder / "talk.txt").write_text(TINY, encoding="utf-8")
    (folder / "photo.png").write_bytes(b"\x89PNG")
    code = main(["summarize", str(folder), "--out", str(tmp_path / "out"), "--date", "2026-11-30", "--n-ctx", "2048",
                 "--strategy", "rolling"])
    assert code == 0 and "skipped 1 file(s) of a type Precis does not read: photo.png" in capsys.readouterr().err
    run = json.loads((tmp_path / "out" / "2026-11-30-run.json").read_text(encoding="utf-8"))
    assert run["inputs"]["skipped"] == [str(folder / "photo.png")]


def test_12_pdf_library_warnings_stay_with_the_document(tmp_path, capfd):
    sys.path.insert(0, str(REPO_ROOT))
    from bench.pdf_builder import write_text_pdf
    path = write_text_pdf(tmp_path / "r.pdf", 2)
    raw = path.read_bytes()
    m = re.search(rb"startxref\n(\d+)", raw)                         # a damaged cross-reference pointer
    path.write_bytes(raw[:m.start(1)] + str(int(m.group(1)) + 7).encode() + raw[m.end(1):])
    doc = load_document(path)
    assert "committee" in doc.text
    assert capfd.readouterr().err == ""                              # nothing leaks to stderr
    assert any(w.startswith("PDF:") for w in doc.warnings)


@pytest.mark.parametrize("argv,message", [
    (["models", "list", "--n-ctx", "-5"], "--n-ctx must be a positive number"),
    (["models", "list", "--folder", "/no/such/folder"], "no such folder"),
    (["plan", "--n-ctx", "99999999"], "longer than any model's context"),
    (["plan", "--n-ctx", "5000"], "use 4864 or 5120"),
])
def test_12_bad_numbers_and_folders_get_a_clear_message(argv, message, capsys):
    assert main(argv) == 2 and message in capsys.readouterr().err


# 13 --------------------------------------------------------------------------------------------------
def test_13_help_says_what_a_person_needs(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    assert "Run `precis` with no arguments to open the window" in top and "inspect model files" not in top
    with pytest.raises(SystemExit):
        main(["summarize", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for expected in ("--kv-type", "q8_0 half the memory", "(default: 4096)", "(default: default)", "(default: .)",
                     "YYYY-MM-DD", "exit codes: 0 done", "130 cancelled", "--swa-full"):
        assert expected in text, expected


def test_10_a_rejected_compaction_is_not_redone_on_resume():
    from precis.engine.events import CompactionDone, RoundFinished
    from precis.engine.runs.run import run_summary
    from precis.engine.runs.state import load_state
    from precis.engine.runtime.protocol import CancelToken
    from tests.fake_runtime import diligent
    from tests.summary_fixtures import conversation_day, make_plan, run_all, start

    def stubborn(call):
        if call.kind == "compaction":
            return "Too short."                               # rejected: drops nearly everything
        if call.summary and len(call.summary) > 1300:
            return call.summary
        return diligent(call)
    text = conversation_day(sessions=12, noise_sessions=())
    rt = FakeRuntime(script=stubborn)
    plan = make_plan(rt, text)
    state, options = start(rt, plan)
    cancel = CancelToken()
    for event in run_summary(rt, plan, state, options, cancel):
        if isinstance(event, RoundFinished) and event.record.kind == "compaction":
            cancel.cancel()                                   # stopped right after the rejected compaction
    saved = load_state(state.run_id)
    assert saved.rounds[-1].kind == "compaction" and "compaction_rejected" in saved.rounds[-1].flags
    resumed = run_all(FakeRuntime(script=stubborn), make_plan(FakeRuntime(), text), saved, options)
    assert not [e for e in resumed if isinstance(e, CompactionDone)]   # the same summary is not sent again


def test_11_a_long_text_is_planned_window_by_window_with_progress():
    from precis.engine.planning.chunking import chunk_and_count
    text = "".join(f"[{i:05d}] Mika: item {i} of the log, with a little more text to read.\n" for i in range(6000))
    seen = []
    chunks, tokens = chunk_and_count(text, FakeRuntime(), 512, progress=lambda done, total: seen.append((done, total)),
                                     window_chars=50_000)
    assert len(seen) >= len(text) // 50_000 and seen == sorted(seen) and seen[-1] == (len(text), len(text))
    assert "".join(text[c.start_char:c.end_char] for c in chunks) == text        # nothing lost at the seams
    assert all(c.tokens <= 512 for c in chunks) and tokens > 0


def test_12_a_download_that_cannot_list_says_downloading_not_listing(monkeypatch, capsys):
    monkeypatch.setenv("PRECIS_HF_ENDPOINT", "http://127.0.0.1:9")
    assert main(["models", "download", "acme/Small-GGUF", "small.gguf"]) == 4
    err = capsys.readouterr().err
    assert "cannot be reached" in err and "Listing" not in err and "answered with an error" not in err
