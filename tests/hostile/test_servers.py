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
    precis_process,
    stop_and_time,
    summarize_args,
    wait_for,
)
from tests.openai_server import FakeOpenAIServer, Script

pytestmark = pytest.mark.timeout(90)


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
