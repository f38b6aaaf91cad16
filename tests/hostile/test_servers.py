"""A model server that refuses, fails, sends what is not a stream, or is slow under --parallel, through
the real command line: the exit code a cron wrapper reads (docs/servers.md, docs/cli.md), one message
on stderr that says what happened and what to do, and the finished rounds kept. The runtime's own
answers to the same faults are in tests/engine/test_server_runtime.py."""
from __future__ import annotations

import errno
import json
import signal
import time

import pytest

from precis.engine.runtime.server.waits import READ_TIMEOUT_VARIABLE
from precis.models.cli.main import main
from tests.hostile.server_runs import (
    DATE,
    REPLY,
    STOP_WITHIN_S,
    day,
    end,
    only_run_state,
    precis_process,
    stop_and_time,
    summarize_args,
    wait_for,
)
from tests.openai_server import FakeOpenAIServer, Script

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def no_backoff(monkeypatch):
    """The same retries, without the real 1, 2 and 4 s between them."""
    monkeypatch.setattr("precis.engine.runtime.server.connection.Connection._retry_delay",
                        lambda self, attempt, response: 0.01)


def _run(args, capsys) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().err


# ----- refusals ------------------------------------------------------------------------------------
def test_a_model_the_server_does_not_serve_exits_5_and_lists_the_ones_it_does(tmp_path, capsys):
    with FakeOpenAIServer(Script(models=["qwen-7b", "llama-8b"])) as server:
        code, err = _run(summarize_args(server.url, day(tmp_path, 3), tmp_path / "out", "--server-model", "gpt-4"),
                         capsys)
    assert code == 5                       # the server's side, as docs/servers.md says (it was 2)
    assert "has no model 'gpt-4'; it serves: qwen-7b, llama-8b" in err and "--server-model" in err
    assert err.count("has no model") == 1


@pytest.mark.parametrize("key, said", [
    (None, "Set PRECIS_API_KEY to the server's API key"),
    ("wrong", "The key in PRECIS_API_KEY was refused"),
])
def test_a_refused_key_exits_5_and_says_whether_it_was_missing_or_wrong(tmp_path, capsys, monkeypatch, key, said):
    if key is None:
        monkeypatch.delenv("PRECIS_API_KEY", raising=False)
    else:
        monkeypatch.setenv("PRECIS_API_KEY", key)
    with FakeOpenAIServer(Script(api_key="sesame")) as server:
        code, err = _run(summarize_args(server.url, day(tmp_path, 3), tmp_path / "out"), capsys)
    assert code == 5 and "HTTP 401" in err and said in err
    assert err.count("HTTP 401") == 1 and "sesame" not in err


# ----- failures mid-run ----------------------------------------------------------------------------
def test_http_500_is_retried_then_exits_5_said_once_with_the_finished_rounds_kept(tmp_path, capsys, no_backoff,
                                                                                  precis_home):
    script = Script(reply=REPLY, fail_status=500, fail_times=99, fail_from_generation=2,
                    fail_message="CUDA out of memory")
    with FakeOpenAIServer(script) as server:
        code, err = _run(summarize_args(server.url, day(tmp_path), tmp_path / "out"), capsys)
    assert code == 5 and script.generations == 1 + 4          # the first round, then four attempts
    assert "HTTP 500: CUDA out of memory" in err and "after 4 attempts" in err
    assert err.count("CUDA out of memory") == 1               # it was printed twice
    assert "1 finished round kept; resume with `precis summarize --resume" in err
    assert len(only_run_state(precis_home)["rounds"]) == 1


def test_a_stream_cut_mid_reply_exits_5_said_once(tmp_path, capsys, precis_home):
    with FakeOpenAIServer(Script(reply=REPLY, cut_from_generation=2)) as server:
        code, err = _run(summarize_args(server.url, day(tmp_path), tmp_path / "out"), capsys)
    assert code == 5 and "broke off the reply after 1 token (the stream ended" in err
    assert err.count("broke off the reply") == 1
    assert len(only_run_state(precis_home)["rounds"]) == 1


# ----- what is not a stream ------------------------------------------------------------------------
@pytest.mark.parametrize("lines, shown", [
    ([b"<html><body><h1>502 Bad Gateway</h1></body></html>"], "<html><body><h1>502 Bad Gateway"),
    ([b'data: {"choices": [{"delta": {"content": "The te'], 'data: {"choices": [{"delta"'),
    ([b'data: {"id": "x", "object": "chat.completion.chunk"}'], '"object": "chat.completion.chunk"'),
])
def test_a_malformed_stream_is_called_malformed_shown_and_explained(tmp_path, capsys, lines, shown):
    with FakeOpenAIServer(Script(raw_stream=lines)) as server:
        code, err = _run(summarize_args(server.url, day(tmp_path, 3), tmp_path / "out"), capsys)
    assert code == 5
    assert "reply was malformed: no text came, only 1 line(s) that are not streamed JSON events" in err, err
    assert shown in err and "OpenAI-compatible base" in err and "stream" in err
    assert "broke off the reply after 0 tokens" not in err


def test_a_models_list_that_is_not_json_says_so(tmp_path, capsys):
    with FakeOpenAIServer(Script(models_body=b"<html>Welcome to nginx!</html>")) as server:
        code, err = _run(summarize_args(server.url, day(tmp_path, 3), tmp_path / "out"), capsys)
    assert code == 5 and "answered with something that is not JSON" in err and "Welcome to nginx" in err


def test_a_server_that_ignores_stream_and_sends_the_whole_reply_is_read_not_empty(tmp_path, capsys):
    whole = {"choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY}, "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 0, "completion_tokens": 30}}
    with FakeOpenAIServer(Script(raw_stream=[json.dumps(whole).encode()], report_prompt_tokens=0)) as server:
        code, err = _run(summarize_args(server.url, day(tmp_path, 3), tmp_path / "out"), capsys)
    summary = (tmp_path / "out" / f"{DATE}-summary.md").read_text(encoding="utf-8")
    assert code == 0, err
    assert "Alice will update the changelog" in summary


# ----- slow under --parallel -----------------------------------------------------------------------
def _two_files(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    day(folder, 3, "monday.txt")
    day(folder, 4, "tuesday.txt")
    return folder


def test_a_slow_server_under_parallel_is_a_bounded_wait_per_document(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(READ_TIMEOUT_VARIABLE, "1")
    script = Script(reply=REPLY, hang="completion")
    with FakeOpenAIServer(script) as server:
        started = time.monotonic()
        code, err = _run(summarize_args(server.url, _two_files(tmp_path), tmp_path / "out", "--parallel", "2"),
                         capsys)
        took = time.monotonic() - started
    assert code == 5 and took < 20, (code, took)
    assert err.count("sent no token within 1 s (waiting for the first token") == 2      # one per document
    index = json.loads((tmp_path / "out" / f"{DATE}-batch.json").read_text(encoding="utf-8"))
    assert [d["status"] for d in index["documents"]] == ["failed", "failed"]
    assert all(d["exit_code"] == 5 for d in index["documents"])


def test_ctrl_c_stops_a_parallel_batch_waiting_on_a_slow_server_within_2_s(tmp_path):
    script = Script(reply=REPLY, hang="completion")
    out = tmp_path / "out"
    with FakeOpenAIServer(script) as server:
        proc = precis_process(summarize_args(server.url, _two_files(tmp_path), out, "--parallel", "2"))
        try:
            wait_for(lambda: script.hanging >= 2 or proc.poll() is not None, what="both documents waiting")
            code, took, err = stop_and_time(proc, signal.SIGINT)
        finally:
            end(proc)
    assert code == 130 and took < STOP_WITHIN_S, (code, took, err)
    index = json.loads((out / f"{DATE}-batch.json").read_text(encoding="utf-8"))
    assert [d["status"] for d in index["documents"]] == ["cancelled", "cancelled"]


# ----- a full disk ---------------------------------------------------------------------------------
def _disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_output_disk_exits_2_and_says_where_the_results_are(tmp_path, capsys, monkeypatch, precis_home):
    monkeypatch.setattr("precis.models.cli.summarize_command.write_outputs", _disk_full)
    with FakeOpenAIServer(Script(reply=REPLY)) as server:
        code, err = _run(summarize_args(server.url, day(tmp_path, 3), tmp_path / "out"), capsys)
    run_dir = next((precis_home).rglob("state.json")).parent
    assert code == 2, err                        # an output folder that cannot be used, not a bug (1)
    assert "No space left on device" in err and f"they are saved in {run_dir}" in err
    assert (run_dir / f"{DATE}-summary.md").is_file()


def test_a_full_output_disk_in_a_batch_exits_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("precis.models.session.batch.write_outputs", _disk_full)
    with FakeOpenAIServer(Script(reply=REPLY)) as server:
        code, err = _run(summarize_args(server.url, _two_files(tmp_path), tmp_path / "out", "--per-file"), capsys)
    assert code == 2 and err.count("No space left on device") == 2, err


# ----- what --help says ----------------------------------------------------------------------------
def test_help_lists_exit_code_5_and_says_what_runs_does(capsys):
    with pytest.raises(SystemExit):
        main(["summarize", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "5 model server (--server) unreachable, refusing or broke off" in text
    with pytest.raises(SystemExit):
        main(["runs", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "List the saved runs" in text and "--resume RUN" in text


def test_resuming_through_a_server_keeps_the_context_the_run_was_planned_with():
    """`precis summarize --resume RUN --server URL` after the server restarted: the saved request's context
    stands (it became the server's whole context, so the plan differed and the resume was refused)."""
    from precis.models.cli.main import build_parser
    from precis.models.session.request import SERVER_CONTEXT, RunRequest, request_from_args
    base = RunRequest(files=["day.txt"], server="http://127.0.0.1:8080/v1", n_ctx=2048)
    args = build_parser().parse_args(["summarize", "--resume", "RUN", "--server", "http://127.0.0.1:8080/v1"])
    assert request_from_args(args, base).n_ctx == 2048
    fresh = build_parser().parse_args(["summarize", "day.txt", "--server", "http://127.0.0.1:8080/v1"])
    assert request_from_args(fresh).n_ctx == SERVER_CONTEXT
