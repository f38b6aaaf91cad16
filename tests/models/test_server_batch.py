"""`precis summarize --server URL --parallel N` over a scriptable server: one summary per file, a batch
index, a killed or failed batch resumed document by document, and one batch per output folder."""
from __future__ import annotations

import json

import pytest

from precis.models.cli.main import main
from precis.models.session.preflight import OutputLock
from tests.openai_server import FakeOpenAIServer, Script
from tests.summary_fixtures import conversation_day

REPLY = ("The team reviewed the release plan and agreed to ship the parser fix first. Alice will update the "
         "changelog before Friday, and Bob checks the installer on Windows.")
DATE = "2026-11-30"


def _files(tmp_path, n: int, turns: int = 3):
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(n):
        (folder / f"day-{i}.txt").write_text(conversation_day(turns + i), encoding="utf-8")
    return folder


def _day(tmp_path, turns: int):
    """One generated conversation day and the output folder beside it."""
    doc = tmp_path / "day.txt"
    doc.write_text(conversation_day(turns), encoding="utf-8")
    return doc, tmp_path / "out"


def _args(url, folder, out, *extra):
    return ["summarize", str(folder), "--server", url, "--strategy", "rolling", "--out", str(out), "--date", DATE,
            *extra]


def test_parallel_batch_writes_one_summary_per_file_and_an_index(tmp_path, capsys):
    folder = _files(tmp_path, 4)
    with FakeOpenAIServer(Script(reply=REPLY)) as server:
        assert main(_args(server.url, folder, tmp_path / "out", "--parallel", "3")) == 0
    index = json.loads((tmp_path / "out" / f"{DATE}-batch.json").read_text(encoding="utf-8"))
    assert [d["status"] for d in index["documents"]] == ["finished"] * 4
    for i in range(4):
        summary = (tmp_path / "out" / f"day-{i}" / f"{DATE}-summary.md").read_text(encoding="utf-8")
        assert "Alice will update the changelog" in summary
    assert "batch done: 4 finished" in capsys.readouterr().err


def test_a_batch_cut_off_by_the_server_resumes_each_document_where_it_stopped(tmp_path, capsys):
    folder = _files(tmp_path, 2, turns=12)
    out = tmp_path / "out"
    # Small context: several rounds per document; from the 2nd model call on, the server breaks off.
    with FakeOpenAIServer(Script(reply=REPLY, n_ctx=1536, cut_from_generation=2)) as server:
        assert main(_args(server.url, folder, out, "--per-file")) == 5
    err = capsys.readouterr().err
    assert "broke off the reply" in err
    index = json.loads((out / f"{DATE}-batch.json").read_text(encoding="utf-8"))
    assert [d["status"] for d in index["documents"]] == ["failed", "failed"]
    assert all(d["run_dir"] for d in index["documents"])
    with FakeOpenAIServer(Script(reply=REPLY, n_ctx=1536)) as server:
        assert main(_args(server.url, folder, out, "--parallel", "2")) == 0
    err = capsys.readouterr().err
    assert "resuming after 1 round\n" in err or "resuming after 1 round," in err   # the first document kept its finished round
    index = json.loads((out / f"{DATE}-batch.json").read_text(encoding="utf-8"))
    assert [d["status"] for d in index["documents"]] == ["finished", "finished"]


def test_two_batches_never_write_one_output_folder(tmp_path, capsys):
    folder = _files(tmp_path, 2)
    out = tmp_path / "out"
    out.mkdir()
    lock = OutputLock.for_outputs(out, DATE)
    lock.acquire()
    try:
        with FakeOpenAIServer(Script(reply=REPLY)) as server:
            assert main(_args(server.url, folder, out, "--parallel", "2")) == 2
            assert server.script.generations == 0
    finally:
        lock.release()
    assert "Another Precis run" in capsys.readouterr().err


def test_parallel_needs_a_server(tmp_path, capsys):
    folder = _files(tmp_path, 2)
    assert main(["summarize", str(folder), "--parallel", "2", "--out", str(tmp_path / "out")]) == 2
    assert "--parallel needs --server" in capsys.readouterr().err


def test_a_server_whose_context_is_shorter_than_it_said_is_planned_again_before_any_round(tmp_path, capsys):
    doc, out = _day(tmp_path, 6)
    # /props says 4,096 tokens, but the server refuses any prompt over 2,048 (as a vLLM with a smaller
    # --max-model-len behind a proxy would).
    with FakeOpenAIServer(Script(reply=REPLY, n_ctx=4096, max_prompt_tokens=2048)) as server:
        assert main(_args(server.url, doc, out)) == 0
    report = json.loads((out / f"{DATE}-run.json").read_text(encoding="utf-8"))
    assert report["settings"]["n_ctx_used"] == 2048
    assert "refused 4,096" in report["settings"]["n_ctx_note"]
    assert report["outcome"] == "finished" and all(r["prompt_tokens"] <= 2048 for r in report["rounds"])
    from precis.engine.runs.state import list_runs
    assert [r.status for r in list_runs()] == ["finished"]      # the empty refused attempt is not kept


@pytest.mark.parametrize("parallel", [1, 3])
def test_map_calls_of_one_document_go_out_side_by_side_up_to_parallel(tmp_path, parallel):
    doc, out = _day(tmp_path, 10)
    # Each reply takes a moment, so calls sent together overlap at the server.
    with FakeOpenAIServer(Script(reply=REPLY, n_ctx=1536, sleep_seconds=0.3)) as server:
        assert main(_args(server.url, doc, out, "--strategy", "map-reduce", "--parallel", str(parallel))) == 0
        assert server.script.max_in_flight == parallel
    report = json.loads((out / "day" / f"{DATE}-run.json").read_text(encoding="utf-8")) if parallel > 1 else \
        json.loads((out / f"{DATE}-run.json").read_text(encoding="utf-8"))
    maps = [r for r in report["rounds"] if r["kind"] == "map"]
    assert len(maps) >= 4 and [r["chunk_index"] for r in maps] == sorted(r["chunk_index"] for r in maps)
    assert all(r["summary_chars"] == len(REPLY) and not r["flags"] for r in maps)   # each part's reply, accepted


def test_stop_during_parallel_map_calls_ends_at_once_and_keeps_finished_rounds(tmp_path):
    import threading
    import time

    from precis.engine.events import RunFinished
    from precis.engine.runs.run import RunOptions, new_state, run_summary
    from precis.engine.runtime.protocol import CancelToken
    from precis.engine.runtime.server.runtime import ServerRuntime, ServerSettings
    from precis.models.session.planner import plan_run, read_documents
    from precis.models.session.request import RunRequest
    doc, _out = _day(tmp_path, 10)
    with FakeOpenAIServer(Script(reply=REPLY, n_ctx=1536, sleep_seconds=1.5)) as server:
        runtime = ServerRuntime.connect(ServerSettings(server.url))
        request = RunRequest(files=[str(doc)], n_ctx=1536, strategy="map-reduce", date=DATE)
        plan = plan_run(request, runtime, read_documents(request.files).documents, None, measured_here=False)
        options = RunOptions("map-reduce", parallel_calls=3)
        state = new_state(plan, None, {}, options, [str(doc)])
        cancel = CancelToken()
        threading.Timer(2.5, cancel.cancel).start()     # after the first wave of three, during the second
        started = time.monotonic()
        events = list(run_summary(runtime, plan, state, options, cancel))
        took = time.monotonic() - started
    assert isinstance(events[-1], RunFinished) and events[-1].outcome == "cancelled"
    assert took < 4.5                                    # the second wave's streams were closed, not awaited
    assert len(state.rounds) == 3 and [r.chunk_index for r in state.rounds] == [0, 1, 2]


def test_a_server_run_resumes_with_resume_also_on_a_new_address(tmp_path, capsys):
    doc, out = _day(tmp_path, 12)
    with FakeOpenAIServer(Script(reply=REPLY, n_ctx=1536, cut_from_generation=3)) as server:
        assert main(_args(server.url, doc, out)) == 5
    err = capsys.readouterr().err
    run_id = err.split("--resume ")[1].split("`")[0]
    with FakeOpenAIServer(Script(reply=REPLY, n_ctx=1536)) as server:        # restarted on another port
        assert main(["summarize", "--resume", run_id, "--server", server.url]) == 0
    report = json.loads((out / f"{DATE}-run.json").read_text(encoding="utf-8"))
    assert report["outcome"] == "finished" and report["settings"]["url"] == server.url
    assert report["rounds"][0]["index"] == 0 and len(report["rounds"]) > 2


def test_seed_reaches_every_sampled_call_and_is_saved_for_resume(tmp_path):
    from precis.engine.runs.state import list_runs
    doc, out = _day(tmp_path, 3)
    with FakeOpenAIServer(Script(reply=REPLY)) as server:
        assert main(_args(server.url, doc, out, "--seed", "7")) == 0
        seeded = [body for method, path, body, _ in server.script.requests if path.endswith("completions")]
        assert main(_args(server.url, doc, tmp_path / "out2")) == 0
        default = [body for method, path, body, _ in server.script.requests
                   if path.endswith("completions")][len(seeded):]
    assert seeded and {b["seed"] for b in seeded} == {7}                # retries too: one seed per run
    assert default and {b["seed"] for b in default} == {0}
    saved = sorted((r.request.get("seed") for r in list_runs()), key=str)
    assert saved == [0, 7], saved                      # --resume continues with the same draw
