"""The server runtime against a scriptable OpenAI-compatible server: discovery per server kind, exact
counts, and every failure the issue names, provoked and answered with a clear error."""
from __future__ import annotations

import socket
import threading
import time

import pytest

from precis.engine.errors import BadInput, Cancelled, ServerContextShort, ServerError
from precis.engine.runtime.protocol import CancelToken, SamplingParams
from precis.engine.runtime.server.connection import MAX_ATTEMPTS, Connection, ServerAddress
from precis.engine.runtime.server.discovery import LLAMA_CPP, LLAMA_CPP_PYTHON, OLLAMA, OPENAI, VLLM
from precis.engine.runtime.server.runtime import ServerRuntime, ServerSettings
from precis.engine.runtime.server.tokens import ESTIMATE, TOKENIZE
from precis.engine.runtime.server.waits import DISCOVERY
from tests.openai_server import FakeOpenAIServer, Script

MESSAGES = [{"role": "system", "content": "Summarize."}, {"role": "user", "content": "one two three four"}]


def _connect(server, api_key=None, n_ctx=0, model="", read_timeout_s=600.0) -> ServerRuntime:
    runtime = ServerRuntime.connect(ServerSettings(server.url, model, n_ctx, read_timeout_s), api_key)
    runtime.connection.backoff = (0.01, 0.02, 0.04)       # the same retries, without the real waits
    return runtime


def _reply(runtime, params=None, cancel=None) -> str:
    prompt = runtime.render_chat(MESSAGES)
    return "".join(runtime.stream(prompt, params or SamplingParams(max_tokens=64), cancel))


@pytest.mark.parametrize("kind, expected_kind, ctx_source, tokens", [
    ("llama.cpp", LLAMA_CPP, "/props (per slot)", TOKENIZE),
    ("vllm", VLLM, "/v1/models max_model_len", TOKENIZE),
    ("ollama", OLLAMA, "/api/show (trained context; Precis sets num_ctx)", ESTIMATE),
    ("llama-cpp-python", LLAMA_CPP_PYTHON, "", TOKENIZE),
    ("plain", OPENAI, "", ESTIMATE),
])
def test_discovery_names_the_server_its_context_and_where_counts_come_from(kind, expected_kind, ctx_source, tokens):
    with FakeOpenAIServer(Script(kind=kind, n_ctx=3072)) as server:
        runtime = _connect(server)
        assert runtime.info.kind == expected_kind
        assert runtime.info.n_ctx_source == ctx_source
        assert runtime.n_ctx == (3072 if ctx_source else 4096)      # unknown: assumed, and said so
        assert ("assumed" in runtime.n_ctx_note) == (not ctx_source)
        assert runtime.token_source == tokens
        assert _reply(runtime) == "A short summary of the part. "
        assert runtime.last_call.stopped_by == "eos"


def test_n_ctx_can_only_lower_the_servers_context():
    with FakeOpenAIServer(Script(n_ctx=2048)) as server:
        assert _connect(server, n_ctx=1024).n_ctx == 1024
        assert _connect(server, n_ctx=8192).n_ctx == 2048


def test_exact_counts_and_usage_come_from_the_server():
    with FakeOpenAIServer(Script(kind="llama.cpp")) as server:
        runtime = _connect(server)
        assert runtime.count_tokens("alpha beta  gamma") == 3
        assert runtime.token_char_starts("alpha beta  gamma") == [0, 5, 10]
        prompt = runtime.render_chat(MESSAGES)
        _reply(runtime)
        assert runtime.last_call.prompt_tokens == runtime.count_tokens(prompt, special=True) == len(prompt.split())
        assert runtime.last_call.generated_tokens == 6
        assert runtime.reuse_reported            # llama.cpp's timings.cache_n was read
        sent = [b for m, p, b, _ in server.script.requests if p == "/v1/chat/completions"][0]
        assert sent["messages"] == MESSAGES and sent["cache_prompt"] is True and sent["seed"] == 0


def test_ollama_gets_num_ctx_so_it_never_cuts_a_prompt_silently():
    with FakeOpenAIServer(Script(kind="ollama", n_ctx=8192)) as server:
        runtime = _connect(server, n_ctx=6144)
        assert _reply(runtime, SamplingParams(max_tokens=3)) == "A short summary "
        sent = [b for m, p, b, _ in server.script.requests if p == "/api/chat"][0]
        assert sent["options"]["num_ctx"] == 6144 and sent["options"]["num_predict"] == 3
        assert runtime.last_call.hit_max_tokens


def test_a_prompt_the_server_cut_is_an_error_not_a_summary():
    with FakeOpenAIServer(Script(report_prompt_tokens=30)) as server:
        runtime = _connect(server)
        long_part = [{"role": "user", "content": "word " * 200}]
        with pytest.raises(ServerContextShort, match="read only 30 of the 202"):
            "".join(runtime.stream(runtime.render_chat(long_part), SamplingParams(max_tokens=8)))
        assert runtime.context_short is not None
        before = runtime.n_ctx
        runtime.shrink_context(runtime.context_short)
        assert runtime.n_ctx < before


def test_a_rejection_for_length_names_the_servers_context():
    message = "This model's maximum context length is 1024 tokens. However, you requested 3000 tokens."
    with FakeOpenAIServer(Script(fail_status=400, fail_times=1, fail_message=message)) as server:
        runtime = _connect(server)
        with pytest.raises(ServerContextShort) as caught:
            _reply(runtime)
        assert caught.value.n_ctx == 1024
        runtime.shrink_context(caught.value)
        assert runtime.n_ctx == 1024


def test_a_wrong_or_missing_key_says_what_to_set():
    with FakeOpenAIServer(Script(api_key="sesame")) as server:
        with pytest.raises(ServerError, match="HTTP 401.*Set PRECIS_API_KEY"):
            _connect(server)
        with pytest.raises(ServerError, match="HTTP 401.*was refused"):
            _connect(server, api_key="wrong")
        runtime = _connect(server, api_key="sesame")
        assert _reply(runtime)
        assert all(h.get("Authorization") == "Bearer sesame" for *_, h in server.script.requests[2:])


def test_an_unknown_model_lists_the_ones_served():
    with FakeOpenAIServer(Script(models=["a", "b"])) as server:
        with pytest.raises(ServerError, match="no model 'c'; it serves: a, b"):   # the server's side: exit 5
            _connect(server, model="c")
        assert _connect(server, model="b").info.model == "b"
        assert _connect(server).info.model == "a"


def test_a_wrong_url_says_what_the_base_url_looks_like():
    with FakeOpenAIServer() as server:
        with pytest.raises(ServerError, match="HTTP 404.*OpenAI-compatible base"):
            ServerRuntime.connect(ServerSettings(server.url.replace("/v1", "/api/v2")))


def test_a_server_that_is_down_is_named_with_its_address():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    connection = Connection(ServerAddress.parse(f"http://127.0.0.1:{port}/v1"), backoff=(0.01,))
    with pytest.raises(ServerError, match=f"127.0.0.1:{port}.*connection refused"):
        connection.get_json("/models", phase=DISCOVERY)
    assert connection.retries == MAX_ATTEMPTS - 1       # retried: a restarting server comes back


@pytest.mark.parametrize("status", [429, 500, 503])
def test_busy_or_failing_servers_are_retried_with_backoff(status):
    with FakeOpenAIServer(Script(fail_status=status, fail_times=2, retry_after="0")) as server:
        runtime = _connect(server)
        assert _reply(runtime) == "A short summary of the part. "
        assert runtime.connection.retries == 2


def test_a_server_that_keeps_failing_gives_up_after_bounded_attempts():
    with FakeOpenAIServer(Script(fail_status=500, fail_times=99, fail_message="CUDA out of memory")) as server:
        runtime = _connect(server)
        with pytest.raises(ServerError, match=f"HTTP 500: CUDA out of memory.*after {MAX_ATTEMPTS} attempts"):
            _reply(runtime)
        assert server.script.generations == MAX_ATTEMPTS


def test_a_stream_cut_mid_reply_is_an_error():
    with FakeOpenAIServer(Script(cut_after_pieces=2)) as server:
        runtime = _connect(server)
        with pytest.raises(ServerError, match="broke off the reply after 2 tokens"):
            _reply(runtime)


def test_a_server_that_does_not_answer_times_out():
    with FakeOpenAIServer(Script(sleep_seconds=3)) as server:
        runtime = _connect(server, read_timeout_s=0.5)
        with pytest.raises(ServerError, match=r"sent no token within 0\.5 s \(waiting for the first token"):
            _reply(runtime)


def test_stop_closes_a_stream_that_is_waiting_for_the_server():
    with FakeOpenAIServer(Script(sleep_seconds=5)) as server:
        runtime = _connect(server)
        cancel = CancelToken()
        threading.Timer(0.3, cancel.cancel).start()
        started = time.monotonic()
        with pytest.raises(Cancelled):
            _reply(runtime, cancel=cancel)
        assert time.monotonic() - started < 2.0       # not the 5 s the server sleeps


def test_the_url_shown_and_saved_never_carries_credentials():
    address = ServerAddress.parse("https://user:secret@example.org:8443/v1?token=abc")
    assert address.display == "https://example.org:8443/v1"
    with pytest.raises(BadInput, match="http:// or https://"):
        ServerAddress.parse("ftp://example.org")
