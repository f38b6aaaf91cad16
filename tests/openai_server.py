"""A scriptable OpenAI-compatible server on localhost for the server runtime's tests.

It speaks the shapes real servers send (SSE chat chunks with usage, llama.cpp's /props, /tokenize and
/apply-template, vLLM's max_model_len, Ollama's /api/show and NDJSON /api/chat, llama-cpp-python's
/extras/tokenize) and fails on request: a status for the next N calls, a stream cut after N pieces,
a sleep before answering, a hang at one phase (it accepts, and never answers there), lines that are
not a stream. Tokens are whitespace-separated words, so counts are easy to reason about.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Script:
    kind: str = "llama.cpp"                # llama.cpp, vllm, ollama, llama-cpp-python, plain
    models: list = field(default_factory=lambda: ["test-model"])
    n_ctx: int = 4096
    reply: str = "A short summary of the part."
    api_key: str | None = None
    fail_status: int = 0                   # answer this status ...
    fail_times: int = 0                    # ... to this many generation calls ...
    fail_from_generation: int = 1          # ... from this one on (1-based)
    fail_message: str = "server busy"
    retry_after: str | None = None
    cut_after_pieces: int | None = None    # end the stream after this many pieces, without finishing
    cut_from_generation: int | None = None  # ... in every generation call from this one on (1-based)
    sleep_seconds: float = 0.0             # before answering a generation call
    # Never answer, until the server stops: "everything" (connections are accepted, nothing is said),
    # "tokenize" (/tokenize, /apply-template), "completion" (no headers), "after-headers" (headers, then
    # nothing), "mid-stream" (hang_after_pieces pieces, then nothing). Completions hang from the
    # hang_from_generation-th on (1-based); the ones before are answered.
    hang: str = ""
    hang_from_generation: int = 1
    hang_after_pieces: int = 2
    hanging: int = 0                       # requests hanging now
    raw_stream: list | None = None         # lines (bytes) a generation sends instead of its events
    models_body: bytes | None = None       # what /v1/models answers instead of the list
    released: threading.Event = field(default_factory=threading.Event)
    report_prompt_tokens: int | None = None   # usage.prompt_tokens to report (default: the real count)
    max_prompt_tokens: int | None = None      # refuse longer prompts as vLLM does (a context shorter than said)
    requests: list = field(default_factory=list)   # (method, path, json body or None, headers)
    generations: int = 0
    in_flight: int = 0                     # generation calls being answered now ...
    max_in_flight: int = 0                 # ... and the most at once
    lock: threading.Lock = field(default_factory=threading.Lock)
    # A non-streamed call asking for logprobs gets these as its first token's top_logprobs (None: none sent)
    top_logprobs: list | None = field(default_factory=lambda: [{"token": "Yes", "logprob": -0.2},
                                                               {"token": "No", "logprob": -1.7}])


def count_words(text: str) -> int:
    return len(text.split())


def _render(messages: list[dict]) -> str:
    return "".join(f"<{m['role']}> {m['content']} " for m in messages) + "<assistant> "


class _Handler(BaseHTTPRequestHandler):
    script: Script
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def _send(self, status: int, data, content_type="application/json", extra_headers=None):
        body = json.dumps(data).encode() if not isinstance(data, bytes) else data
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _hang(self) -> None:
        """Say nothing more until the server stops (the client must give up or be stopped first)."""
        s = self.script
        with s.lock:
            s.hanging += 1
        try:
            s.released.wait()
        finally:
            with s.lock:
                s.hanging -= 1
        self.close_connection = True

    def _authorised(self) -> bool:
        key = self.script.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._send(401, {"error": {"message": "Invalid API key", "type": "invalid_request_error"}})
        return False

    def do_GET(self):  # noqa: N802 - http.server API
        s = self.script
        s.requests.append(("GET", self.path, None, dict(self.headers)))
        if s.hang == "everything":
            return self._hang()
        if not self._authorised():
            return
        if self.path == "/v1/models" and s.models_body is not None:
            return self._send(200, s.models_body, content_type="text/html")
        if self.path == "/v1/models":
            entries = []
            for m in s.models:
                entry = {"id": m, "object": "model", "owned_by": {"vllm": "vllm", "llama-cpp-python": "me"}.get(
                    s.kind, "llamacpp" if s.kind == "llama.cpp" else "library")}
                if s.kind == "vllm":
                    entry["max_model_len"] = s.n_ctx
                entries.append(entry)
            return self._send(200, {"object": "list", "data": entries})
        if self.path == "/props" and s.kind == "llama.cpp":
            return self._send(200, {"default_generation_settings": {"n_ctx": s.n_ctx}, "total_slots": 2,
                                    "chat_template": "{{ messages }}"})
        if self.path == "/api/version" and s.kind == "ollama":
            return self._send(200, {"version": "0.9.0"})
        self._send(404, {"error": {"message": f"File Not Found: {self.path}"}})

    def do_POST(self):  # noqa: N802 - http.server API
        s = self.script
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        s.requests.append(("POST", self.path, body, dict(self.headers)))
        if s.hang == "everything" or (s.hang == "tokenize" and self.path in ("/tokenize", "/apply-template")):
            return self._hang()
        if not self._authorised():
            return
        if self.path == "/tokenize" and s.kind in ("llama.cpp", "vllm"):
            text = body.get("content", body.get("prompt", ""))
            if "messages" in body:
                text = _render(body["messages"])
            words = text.split()
            if body.get("with_pieces"):
                pieces, pos = [], 0
                for w in words:                     # each word with the spaces before it
                    end = text.index(w, pos) + len(w)
                    pieces.append({"id": len(pieces), "piece": text[pos:end]})
                    pos = end
                if pos < len(text):
                    pieces.append({"id": len(pieces), "piece": text[pos:]})
                return self._send(200, {"tokens": pieces})
            return self._send(200, {"tokens": list(range(len(words)))})
        if self.path == "/detokenize":
            return self._send(200, {"content": " ".join("w" for _ in body.get("tokens", [])),
                                    "prompt": " ".join("w" for _ in body.get("tokens", []))})
        if self.path == "/apply-template" and s.kind == "llama.cpp":
            return self._send(200, {"prompt": _render(body["messages"])})
        if self.path == "/extras/tokenize" and s.kind == "llama-cpp-python":
            return self._send(200, {"tokens": list(range(count_words(body.get("input", ""))))})
        if self.path == "/api/show" and s.kind == "ollama":
            if body.get("model") not in s.models:
                return self._send(404, {"error": f"model '{body.get('model')}' not found"})
            return self._send(200, {"model_info": {"llama.context_length": s.n_ctx}, "modelfile": "FROM /nowhere\n"})
        if self.path in ("/v1/chat/completions", "/v1/completions", "/api/chat"):
            return self._generate(body)
        self._send(404, {"error": {"message": f"File Not Found: {self.path}"}})

    def _generate(self, body: dict) -> None:
        s = self.script
        with s.lock:
            s.generations += 1
            s.in_flight += 1
            s.max_in_flight = max(s.max_in_flight, s.in_flight)
        try:
            self._answer(body)
        finally:
            with s.lock:
                s.in_flight -= 1

    def _answer(self, body: dict) -> None:
        s = self.script
        if body.get("model") not in s.models:
            return self._send(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
        if s.fail_times > 0 and s.generations >= s.fail_from_generation:
            s.fail_times -= 1
            headers = {"Retry-After": s.retry_after} if s.retry_after else None
            return self._send(s.fail_status, {"error": {"message": s.fail_message}}, extra_headers=headers)
        hang = s.hang if s.generations >= s.hang_from_generation else ""
        if hang == "completion":
            return self._hang()
        if s.sleep_seconds:
            time.sleep(s.sleep_seconds)
        prompt = _render(body["messages"]) if "messages" in body else body.get("prompt", "")
        if s.max_prompt_tokens is not None and count_words(prompt) > s.max_prompt_tokens:
            return self._send(400, {"error": {"message": f"This model's maximum context length is "
                                              f"{s.max_prompt_tokens} tokens. However, you requested "
                                              f"{count_words(prompt)} tokens in the messages."}})
        real = count_words(prompt) if s.kind in ("llama.cpp", "vllm", "llama-cpp-python") else \
            max(count_words(prompt), len(prompt) // 4)     # servers Precis cannot ask: a tokenizer of its own
        prompt_tokens = real if s.report_prompt_tokens is None else s.report_prompt_tokens
        if body.get("stream") is False and body.get("logprobs"):
            first = {"token": (s.top_logprobs or [{"token": "Yes"}])[0]["token"], "logprob": -0.1}
            if s.top_logprobs is not None:
                first["top_logprobs"] = s.top_logprobs
            if self.path == "/api/chat":
                return self._send(200, {"model": body["model"], "message": {"role": "assistant", "content": "Yes"},
                                        "done": True, **({"logprobs": [first]} if s.top_logprobs is not None else {})})
            return self._send(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Yes"},
                                                 "logprobs": {"content": [first]} if s.top_logprobs is not None
                                                 else None}],
                                    "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 1}})
        pieces = [w + " " for w in s.reply.split()][: int(body.get("max_tokens") or body.get("options", {}).get(
            "num_predict", 10_000))]
        self.send_response(200)
        ollama = self.path == "/api/chat"
        self.send_header("Content-Type", "application/x-ndjson" if ollama else "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        if s.raw_stream is not None:
            for line in s.raw_stream:
                self.wfile.write(line + b"\n")
            self.wfile.flush()
            self.close_connection = True
            return
        if hang == "after-headers":
            self.wfile.flush()
            return self._hang()
        cut = s.cut_after_pieces
        if s.cut_from_generation is not None and s.generations >= s.cut_from_generation:
            cut = 1
        for i, piece in enumerate(pieces):
            if hang == "mid-stream" and i >= s.hang_after_pieces:
                return self._hang()
            if cut is not None and i >= cut:
                self.wfile.flush()
                self.close_connection = True
                return
            if ollama:
                self._line({"message": {"role": "assistant", "content": piece}, "done": False})
            else:
                self._event({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
        reason = "length" if len(pieces) < len(s.reply.split()) else "stop"
        if ollama:
            self._line({"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": reason,
                        "prompt_eval_count": prompt_tokens, "eval_count": len(pieces)})
        else:
            self._event({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
            self._event({"choices": [], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(pieces)},
                         "timings": {"cache_n": 0, "prompt_n": prompt_tokens}})
            self.wfile.write(b"data: [DONE]\n\n")
        self.close_connection = True

    def _event(self, data: dict) -> None:
        self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
        self.wfile.flush()

    def _line(self, data: dict) -> None:
        self.wfile.write(json.dumps(data).encode() + b"\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        import sys
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)   # a client that hung up (Stop, a cut) is expected


class FakeOpenAIServer:
    def __init__(self, script: Script | None = None) -> None:
        self.script = script or Script()
        handler = type("Handler", (_Handler,), {"script": self.script})
        self.httpd = _Server(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "FakeOpenAIServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.script.released.set()         # hanging handlers return and close their connections
        self.httpd.shutdown()
        self.httpd.server_close()
