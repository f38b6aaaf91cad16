"""Summaries through a real OpenAI-compatible server: llama-cpp-python's own server (its `[server]`
extra) with the bundled SmolLM2, started on localhost for this module. One model process computes
at a time: the server is idle while the in-process comparison runs, and the reverse."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from precis.engine.events import RunFinished
from precis.engine.runs.run import RunOptions, new_state, run_summary
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.protocol import SamplingParams
from precis.engine.runtime.server.runtime import ServerRuntime, ServerSettings
from precis.engine.runtime.settings import RuntimeSettings
from precis.models.cli.main import main
from precis.models.session.planner import plan_run
from precis.models.session.request import RunRequest

# Starts a real model server and loads the bundled model in process: the whole suite only (`make test`).
pytestmark = pytest.mark.real_model

SERVER_N_CTX = 2048
API_KEY = "precis-test-key-1234"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(smollm2_path, tmp_path_factory):
    """`python -m llama_cpp.server` with the bundled model and an API key; its URL."""
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_path),
                                 "--n_ctx", str(SERVER_N_CTX), "--host", "127.0.0.1", "--port", str(port),
                                 "--api_key", API_KEY, "--n_threads", "2"], stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while True:
        try:
            request = urllib.request.Request(url + "/models", headers={"Authorization": f"Bearer {API_KEY}"})
            urllib.request.urlopen(request, timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"llama_cpp.server did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.5)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def _sample(sample_document, chars: int, start: int = 0) -> str:
    text = sample_document.read_text(encoding="utf-8")[start:start + chars]
    return text[:text.rfind("\n") + 1]


def _rounds(runtime, doc_path: Path, model_path: Path) -> list[tuple[str, int, str]]:
    """A greedy rolling run with ``runtime``: (kind, chunk tokens, summary) of every round."""
    from precis.models.session.planner import read_documents
    # Small parts and a small summary cap: two or three short rounds, the comparison in well under a minute.
    request = RunRequest(files=[str(doc_path)], n_ctx=SERVER_N_CTX, strategy="rolling", date="2026-11-30",
                         max_chunk_tokens=384, summary_cap=160)
    documents = read_documents(request.files).documents
    plan = plan_run(request, runtime, documents, model_path)
    options = RunOptions("rolling", sampling=SamplingParams(temperature=0.0))
    state = new_state(plan, model_path, {}, options, [str(doc_path)])
    events = list(run_summary(runtime, plan, state, options))
    assert isinstance(events[-1], RunFinished) and events[-1].outcome == "finished", events[-1]
    return [(r.kind, r.chunk_tokens, r.summary) for r in state.rounds]


def test_a_greedy_rolling_run_through_the_server_gives_the_same_rounds_as_in_process(
        llama_server, smollm2_path, sample_document, tmp_path):
    doc = tmp_path / "day.txt"
    doc.write_text(_sample(sample_document, 2500), encoding="utf-8")
    server = ServerRuntime.connect(ServerSettings(llama_server, n_ctx=SERVER_N_CTX), API_KEY)
    try:
        assert server.token_source == "tokenize" and server.template_source == "local-gguf"
        through_server = _rounds(server, doc, smollm2_path)
        # The counts the plan used came from the server's tokenizer, and match the model's own.
        local = LlamaRuntime.load(smollm2_path, RuntimeSettings(n_ctx=SERVER_N_CTX))
        try:
            text = doc.read_text(encoding="utf-8")
            assert server.count_tokens(text) == local.count_tokens(text)
            prompt = server.render_chat([{"role": "user", "content": text[:400]}])
            assert server.count_tokens(prompt, special=True) == local.count_tokens(prompt, special=True)
            in_process = _rounds(local, doc, smollm2_path)
        finally:
            local.close()
    finally:
        server.close()
    assert len(through_server) >= 2
    assert through_server == in_process


def test_a_batch_through_the_server_with_parallel_2_finishes_every_document_and_resumes(
        llama_server, sample_document, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PRECIS_API_KEY", API_KEY)
    files = []
    for i in range(3):
        path = tmp_path / "in" / f"note-{i}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_text(_sample(sample_document, 1500, start=i * 1500), encoding="utf-8")
        files.append(path)
    out = tmp_path / "out"
    args = ["summarize", str(tmp_path / "in"), "--server", llama_server, "--parallel", "2", "--strategy", "rolling",
            "--n-ctx", str(SERVER_N_CTX), "--out", str(out), "--date", "2026-11-30"]
    assert main(args) == 0
    err = capsys.readouterr().err
    manifest = json.loads((out / "2026-11-30-batch.json").read_text(encoding="utf-8"))
    assert [d["status"] for d in manifest["documents"]] == ["finished"] * 3, err
    for path in files:
        summary = (out / path.stem / "2026-11-30-summary.md").read_text(encoding="utf-8")
        assert len(summary) > 40
        report = json.loads((out / path.stem / "2026-11-30-run.json").read_text(encoding="utf-8"))
        assert report["settings"]["backend"] == "server"
        assert report["settings"]["url"] == llama_server and report["settings"]["token_counts"] == "tokenize"
    # The key was used (the server demands it) and is written nowhere.
    written = [p for p in tmp_path.rglob("*") if p.is_file()] + \
        [p for p in Path(manifest["documents"][0]["run_dir"]).parent.rglob("*") if p.is_file()]
    assert not [p for p in written if API_KEY in p.read_text(encoding="utf-8", errors="replace")]
    # The same command again: every document is already done, none is sent to the model again.
    assert main(args) == 0
    err = capsys.readouterr().err
    assert err.count("already summarized by an earlier run of this batch, skipped") == 3


def test_a_wrong_key_is_refused_before_any_round_with_what_to_set(llama_server, sample_document, tmp_path, capsys,
                                                                   monkeypatch):
    monkeypatch.setenv("PRECIS_API_KEY", "not-the-key")
    doc = tmp_path / "a.txt"
    doc.write_text(_sample(sample_document, 800), encoding="utf-8")
    assert main(["summarize", str(doc), "--server", llama_server, "--out", str(tmp_path / "out")]) == 5
    assert "HTTP 401" in capsys.readouterr().err
    assert not list((tmp_path / "out").glob("*-summary.md"))
