"""The server runtime: the runtime seam (engine.runtime.protocol) over an OpenAI-compatible server.

Every strategy, the guard, checkpoints, the curve and the reports work unchanged: they render chat
messages, count tokens and stream a reply, as with the in-process model. ``render_chat`` returns the
prompt text the model will see (for exact counting) carrying its messages, and ``stream`` sends the
messages as a chat completion, so the server applies its own template. Each reply's reported
``usage.prompt_tokens`` is checked against the count: a prompt the server cut is an error, never a
summary of half a chunk.
"""
from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass
from typing import Iterator

from precis.engine.errors import Cancelled, ContextOverflow, ServerContextShort, ServerError
from precis.engine.runtime.protocol import CallStats, CancelToken, SamplingParams
from precis.engine.runtime.server.connection import Connection, ServerAddress
from precis.engine.runtime.server.discovery import LLAMA_CPP, OLLAMA, VLLM, ServerInfo, discover
from precis.engine.runtime.server.tokens import (
    ESTIMATE,
    ESTIMATE_FACTOR,
    ESTIMATE_TEMPLATE_TOKENS,
    LocalGgufTokenizer,
    render_chatml,
    tokenizer_for,
)
from precis.engine.runtime.server.waits import (
    FIRST_TOKEN,
    MID_STREAM,
    READ_TIMEOUT_SECONDS,
    TOKENIZE,
    ServerSilent,
    tokens_text,
)

API_KEY_VARIABLE = "PRECIS_API_KEY"
# A reported prompt this much shorter than the exact count means the server dropped part of it.
TRUNCATION_SLACK_TOKENS = 8
# The answers a yes/no reading weighs are looked for among this many of the first token's likeliest; one not
# among them is taken as this unlikely.
TOP_LOGPROBS = 10
UNLISTED_LOGPROB = -30.0


class ChatPrompt(str):
    """The rendered prompt (what counts) with the messages it came from (what is sent)."""
    messages: list[dict]

    def __new__(cls, text: str, messages: list[dict]) -> "ChatPrompt":
        obj = super().__new__(cls, text)
        obj.messages = messages
        return obj


@dataclass(frozen=True)
class ServerSettings:
    """Where and how to reach a server. The key is read from the environment, never stored."""
    url: str
    model: str = ""
    n_ctx: int = 0                      # 0: the server's context; otherwise at most this
    read_timeout_s: float = READ_TIMEOUT_SECONDS   # generation's longest silence; every other wait is shorter
    key_env: str = API_KEY_VARIABLE     # the environment variable holding the key (the name, not the key)

    def as_dict(self) -> dict:
        return {"url": ServerAddress.parse(self.url).display, "model": self.model, "n_ctx": self.n_ctx}


DEFAULT_N_CTX_WHEN_UNKNOWN = 4096


class ServerRuntime:
    path = None                         # no local model file: speeds are not recorded per GGUF

    def __init__(self, connection: Connection, info: ServerInfo, n_ctx_wanted: int = 0) -> None:
        self.connection, self.info = connection, info
        self.tokens = tokenizer_for(connection, info)
        self._renderer_vocab = None
        if info.local_gguf and not isinstance(self.tokens, LocalGgufTokenizer) and info.kind not in (LLAMA_CPP, VLLM):
            self._renderer_vocab = LocalGgufTokenizer(info.local_gguf)   # its template renders the prompt
        server_ctx = info.n_ctx
        if server_ctx and n_ctx_wanted:
            self.n_ctx, self.n_ctx_note = min(server_ctx, n_ctx_wanted), (
                f"{min(server_ctx, n_ctx_wanted):,} tokens (--n-ctx; the server offers {server_ctx:,})"
                if n_ctx_wanted < server_ctx else f"{server_ctx:,} tokens (from the server's {info.n_ctx_source})")
        elif server_ctx:
            self.n_ctx, self.n_ctx_note = server_ctx, f"{server_ctx:,} tokens (from the server's {info.n_ctx_source})"
        else:
            self.n_ctx = n_ctx_wanted or DEFAULT_N_CTX_WHEN_UNKNOWN
            self.n_ctx_note = (f"{self.n_ctx:,} tokens ({'--n-ctx' if n_ctx_wanted else 'assumed'}; the server does "
                               "not report its context)")
        self.last_call = CallStats()
        self.context_short: ServerContextShort | None = None   # set when the server refused or cut a prompt
        self.calls = 0
        self.reuse_reported = False      # True once the server said how many prompt tokens it reused

    @classmethod
    def connect(cls, settings: ServerSettings, api_key: str | None = None,
                cancel: CancelToken | None = None) -> "ServerRuntime":
        """Discover the server; ``cancel`` (the run's token) ends this and every later request at once."""
        connection = Connection(ServerAddress.parse(settings.url), api_key, read_timeout_s=settings.read_timeout_s,
                                cancel=cancel)
        return cls(connection, discover(connection, settings.model or None), settings.n_ctx)

    @property
    def token_source(self) -> str:
        return self.tokens.source

    @property
    def template_source(self) -> str:
        if self.info.kind in (LLAMA_CPP, VLLM):
            return "server"
        if isinstance(self.tokens, LocalGgufTokenizer) or self._renderer_vocab is not None:
            return "local-gguf"
        return "chatml-estimate"

    def describe(self) -> dict:
        """For run.json and the plan: never the key, never credentials in the URL."""
        described = self.info.as_dict()
        described.pop("models")               # the server's whole list: the window shows it, a report need not
        return {"backend": "server", **described, "n_ctx_used": self.n_ctx, "n_ctx_note": self.n_ctx_note,
                "token_counts": self.token_source, "chat_template": self.template_source}

    def clone(self) -> "ServerRuntime":
        """The same server for another thread (parallel map calls): shared connection, tokenizer and
        facts; its own last_call."""
        twin = copy.copy(self)
        twin.last_call, twin.context_short, twin.calls = CallStats(), None, 0
        twin._owner = False               # closing a clone leaves the shared tokenizer to its origin
        return twin

    def shrink_context(self, short: ServerContextShort) -> None:
        """Plan with less: the context the server named, or three quarters of what was tried."""
        smaller = short.n_ctx if short.n_ctx and short.n_ctx < self.n_ctx else int(self.n_ctx * 0.75)
        self.n_ctx_note = f"{smaller:,} tokens (the server refused {self.n_ctx:,} as too long)"
        self.n_ctx, self.context_short = smaller, None

    def close(self) -> None:
        if not getattr(self, "_owner", True):
            return
        for tok in (self.tokens, self._renderer_vocab):
            if hasattr(tok, "close"):
                tok.close()

    # ----- text and tokens -----------------------------------------------------------------
    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        return self.tokens.tokenize(text, special=special)

    def count_tokens(self, text: str, *, special: bool = False) -> int:
        return self.tokens.count(text, special=special)

    def detokenize(self, tokens) -> str:
        return self.tokens.detokenize(tokens)

    @property
    def token_char_starts(self):
        return getattr(self.tokens, "token_char_starts", None)

    def render_chat(self, messages: list[dict]) -> ChatPrompt:
        messages = [{"role": m["role"], "content": m["content"]} for m in messages]
        if self.info.kind == LLAMA_CPP:
            text = self.connection.post_json("/apply-template", {"messages": messages}, root=True,
                                             phase=TOKENIZE).get("prompt")
        elif self.info.kind == VLLM:
            ids = self.connection.post_json("/tokenize", {"model": self.info.model, "messages": messages,
                                                          "add_generation_prompt": True}, root=True,
                                            phase=TOKENIZE).get("tokens")
            text = self.detokenize(ids or [])
            self.tokens.remember(text, len(ids or []))    # counted already: no second /tokenize of the text
        elif self._renderer_vocab is not None:
            text = self._renderer_vocab.vocab.render_chat(messages)
        elif isinstance(self.tokens, LocalGgufTokenizer):
            text = self.tokens.vocab.render_chat(messages)
        else:
            text = render_chatml(messages)
        if not isinstance(text, str):
            raise ServerError("The server did not render the chat prompt.")
        return ChatPrompt(text, messages)

    # ----- generation ----------------------------------------------------------------------
    def stream(self, prompt: str, params: SamplingParams, cancel: CancelToken | None = None) -> Iterator[str]:
        counted = self.count_tokens(prompt, special=True)
        if counted + params.max_tokens > self.n_ctx:
            raise ContextOverflow(
                f"Prompt of {counted} tokens plus {params.max_tokens} reply tokens exceeds the server's context of "
                f"{self.n_ctx} tokens. This is a planning bug; the round was not sent.")
        stats = self.last_call = CallStats(prompt_tokens=counted, evaluated_tokens=counted)
        self.calls += 1
        if self.info.kind == OLLAMA:
            endpoint, payload, root = "/api/chat", self._ollama_payload(prompt, params), True
        elif isinstance(prompt, ChatPrompt):
            endpoint, payload, root = "/chat/completions", self._chat_payload(prompt.messages, params), False
        else:                            # a raw prompt (the speed probe): the completions endpoint
            endpoint, payload, root = "/completions", self._chat_payload(None, params, prompt), False
        started = time.perf_counter()
        first_at = None
        finished = False
        odd = _OddLines()
        lines = self.connection.stream_lines(endpoint, payload, cancel, root=root)
        try:
            for line in lines:
                event = _event_of(line)
                if event is None:
                    continue
                if event == "[DONE]":
                    finished = True
                    break
                if event is MALFORMED or not _KNOWN_KEYS.intersection(event):
                    odd.add(line, stats.generated_tokens, self.connection.address.display)
                    continue
                piece, done = self._read_event(event, stats)
                if piece:
                    if first_at is None:
                        first_at = time.perf_counter()
                    stats.generated_tokens += 1       # corrected from usage when the server reports it
                    yield piece
                if done:
                    finished = True
                    if self.info.kind == OLLAMA:
                        break
            if not finished:
                raise ServerError(odd.message(stats.generated_tokens, self.connection.address.display) or
                                  f"The server broke off the reply after {tokens_text(stats.generated_tokens)} (the "
                                  "stream ended without finishing): it may have crashed or restarted; check its log "
                                  "and run again to resume.")
        except ServerSilent as exc:
            if stats.generated_tokens and exc.phase != MID_STREAM:     # silent after the reply had started
                raise ServerSilent(MID_STREAM, exc.url, exc.waited_s, tokens=stats.generated_tokens) from exc
            raise
        except Cancelled:
            stats.stopped_by = "cancelled"
            raise
        except ServerContextShort as exc:
            self.context_short = exc
            raise
        except GeneratorExit:
            stats.stopped_by = stats.stopped_by or "caller"
            raise
        finally:
            lines.close()
            end = time.perf_counter()
            stats.prompt_seconds = (first_at or end) - started
            stats.generate_seconds = end - (first_at or end)
        try:
            self._check_prompt_count(stats, counted)
        except ServerContextShort as exc:
            self.context_short = exc
            raise
        stats.evaluated_tokens = max(0, stats.prompt_tokens - stats.reused_tokens)
        if stats.generated_tokens >= params.max_tokens or stats.stopped_by == "max_tokens":
            stats.hit_max_tokens, stats.stopped_by = True, "max_tokens"
        stats.stopped_by = stats.stopped_by or "eos"

    def answer_logprobs(self, prompt: str, answers, cancel: CancelToken | None = None) -> dict[str, float] | None:
        """The log-probability of each of ``answers`` as the reply's first token, from the server's
        ``top_logprobs`` (OpenAI's chat completions; Ollama's /api/chat where it returns them); None when the
        server returns none or refuses the request (then it is not asked again: each question would cost a
        round trip for nothing). A silent server is an error here as anywhere."""
        if cancel is not None and cancel.cancelled:
            raise Cancelled("Stopped by the user.")
        if getattr(self, "_no_logprobs", False):
            return None
        counted = self.count_tokens(prompt, special=True)
        self.last_call = stats = CallStats(prompt_tokens=counted, evaluated_tokens=counted)
        self.calls += 1
        messages = prompt.messages if isinstance(prompt, ChatPrompt) else [{"role": "user", "content": str(prompt)}]
        started = time.perf_counter()
        try:
            if self.info.kind == OLLAMA:
                reply = self.connection.post_json("/api/chat", {
                    "model": self.info.model, "messages": messages, "stream": False, "logprobs": True,
                    "top_logprobs": TOP_LOGPROBS,
                    "options": {"num_predict": 1, "temperature": 0, "num_ctx": self.n_ctx}},
                    phase=FIRST_TOKEN, root=True)
                first = (reply.get("logprobs") or [None])[0] if isinstance(reply, dict) else None
            else:
                reply = self.connection.post_json("/chat/completions", {
                    "model": self.info.model, "messages": messages, "stream": False, "max_tokens": 1,
                    "temperature": 0, "logprobs": True, "top_logprobs": TOP_LOGPROBS}, phase=FIRST_TOKEN)
                choice = (reply.get("choices") or [{}])[0] if isinstance(reply, dict) else {}
                first = (((choice or {}).get("logprobs") or {}).get("content") or [None])[0]
        except ServerSilent:
            raise
        except ServerError:
            first = None            # a 4xx for the logprobs fields: this server cannot weigh answers
        finally:
            stats.prompt_seconds = time.perf_counter() - started
        top = first.get("top_logprobs") if isinstance(first, dict) else None
        if not top:
            self._no_logprobs = True
            return None
        stats.generated_tokens, stats.stopped_by = 1, "max_tokens"
        out = {}
        for answer in answers:
            found = [float(t["logprob"]) for t in top
                     if isinstance(t, dict) and isinstance(t.get("logprob"), (int, float))
                     and str(t.get("token", "")).strip().lower() == answer.lower()]
            out[answer] = max(found, default=UNLISTED_LOGPROB)
        return out

    def _check_prompt_count(self, stats: CallStats, counted: int) -> None:
        reported = stats.prompt_tokens
        if self.token_source == ESTIMATE:
            # The estimate is generous by design (factor and template allowance); only gross cuts show.
            floor = (counted - ESTIMATE_TEMPLATE_TOKENS) / ESTIMATE_FACTOR / 2 - TRUNCATION_SLACK_TOKENS
        else:
            floor = counted - TRUNCATION_SLACK_TOKENS
        if reported < floor:
            raise ServerContextShort(
                f"The server read only {reported:,} of the {counted:,} prompt tokens: it cut the prompt to fit a "
                f"shorter context than {self.n_ctx:,}. Run again with a smaller --n-ctx (such as "
                f"{max(256, reported):,}).",
                reported)

    def _sampling(self, params: SamplingParams) -> dict:
        return {"temperature": params.temperature, "top_p": params.top_p, "top_k": params.top_k,
                "min_p": params.min_p, "seed": params.seed}

    def _chat_payload(self, messages, params: SamplingParams, prompt: str | None = None) -> dict:
        payload = {"model": self.info.model, "stream": True, "max_tokens": params.max_tokens,
                   "stream_options": {"include_usage": True}, **self._sampling(params)}
        if messages is not None:
            payload["messages"] = messages
        else:
            payload["prompt"] = prompt
        if self.info.kind == VLLM:
            payload["repetition_penalty"] = params.repeat_penalty
        else:
            payload["repeat_penalty"] = params.repeat_penalty
        if self.info.kind == LLAMA_CPP:
            payload["cache_prompt"] = True       # the static prefix stays first: the slot reuses it
        if params.grammar and self.info.grammar_field:
            payload[self.info.grammar_field] = params.grammar
        return payload

    def _ollama_payload(self, prompt: str, params: SamplingParams) -> dict:
        options = {**self._sampling(params), "repeat_penalty": params.repeat_penalty,
                   "num_predict": params.max_tokens, "num_ctx": self.n_ctx}   # its default would cut prompts
        messages = prompt.messages if isinstance(prompt, ChatPrompt) else [{"role": "user", "content": str(prompt)}]
        return {"model": self.info.model, "messages": messages, "stream": True, "options": options}

    def _read_event(self, event: dict, stats: CallStats) -> tuple[str, bool]:
        """(text piece, finished) from one streamed event; usage and timings land in ``stats``."""
        if "error" in event:
            message = event["error"].get("message") if isinstance(event["error"], dict) else event["error"]
            raise ServerError(f"The server stopped the reply with an error: {message}")
        if self.info.kind == OLLAMA:
            piece = (event.get("message") or {}).get("content") or ""
            if event.get("done"):
                stats.prompt_tokens = event.get("prompt_eval_count", stats.prompt_tokens)
                stats.generated_tokens = event.get("eval_count", stats.generated_tokens)
                stats.stopped_by = "max_tokens" if event.get("done_reason") == "length" else "eos"
                return piece, True
            return piece, False
        usage = event.get("usage")
        if isinstance(usage, dict) and usage.get("prompt_tokens"):
            stats.prompt_tokens = int(usage["prompt_tokens"])
            stats.generated_tokens = int(usage.get("completion_tokens", stats.generated_tokens))
            cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
            if cached is not None:
                stats.reused_tokens, self.reuse_reported = int(cached), True
        timings = event.get("timings")
        if isinstance(timings, dict) and "cache_n" in timings:        # llama.cpp: what the slot reused
            stats.reused_tokens, self.reuse_reported = int(timings["cache_n"]), True
        piece, done = "", False
        for choice in event.get("choices") or []:
            # "message": a server that ignored "stream" and sent the whole reply at once
            delta = choice.get("delta") or choice.get("message") or {}
            piece += delta.get("content") or choice.get("text") or ""
            reason = choice.get("finish_reason")
            if reason:
                done = True
                stats.stopped_by = "max_tokens" if reason == "length" else "eos"
        return piece, done


MALFORMED = object()
# What an OpenAI-compatible chunk or an Ollama line carries; a JSON line with none of these is not one.
_KNOWN_KEYS = frozenset(("choices", "usage", "error", "timings", "message", "done"))
# A reply that goes on with lines Precis cannot read is given up after this many (not read to its end).
MAX_MALFORMED_LINES = 100


class _OddLines:
    """Lines of a reply that are not streamed events: counted, the first kept, to say what was received."""

    def __init__(self) -> None:
        self.count, self.first = 0, ""

    def add(self, line: str, tokens: int, url: str) -> None:
        self.count += 1
        self.first = self.first or line
        if self.count >= MAX_MALFORMED_LINES:
            raise ServerError(self.message(tokens, url))

    def message(self, tokens: int, url: str) -> str:
        if not self.count:
            return ""
        got = f"{self.count} line(s) that are not streamed JSON events, the first: {self.first[:120]!r}"
        where = (f"Is {url} the OpenAI-compatible base of the model server itself (not a proxy's or a web page), and "
                 "does it stream replies (\"stream\": true)? Check the server's log; run again to resume.")
        if tokens:
            return f"The server's reply was malformed after {tokens_text(tokens)} ({got}). {where}"
        return f"The server's reply was malformed: no text came, only {got}. {where}"


def _event_of(line: str):
    """The JSON of one SSE ``data:`` line or NDJSON line; "[DONE]"; None for comments and blanks;
    MALFORMED for anything else."""
    if not line or line.startswith(":"):
        return None
    if line.startswith("data:"):
        line = line[5:].strip()
        if line == "[DONE]":
            return "[DONE]"
        if not line:                      # an empty event: a keep-alive some proxies send
            return None
    elif line.startswith(("event:", "id:", "retry:")):
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return MALFORMED
    return event if isinstance(event, dict) else MALFORMED
