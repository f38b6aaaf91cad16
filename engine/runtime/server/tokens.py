"""How a server run counts tokens and renders chat prompts, best source first.

``tokenize``: the server's own tokenizer over HTTP (llama.cpp and vLLM ``/tokenize``, llama-cpp-python
``/extras/tokenize``): exact. ``local-gguf``: the served GGUF is on this machine (llama-cpp-python
names it by path, Ollama's blobs are GGUFs), so its vocabulary is loaded alone: exact. ``estimate``:
tiktoken's cl100k_base scaled up by a safety margin, labelled as such everywhere it shows.

Rendering follows the same order: the server renders (llama.cpp ``/apply-template``, vLLM tokenizes
chat messages), else the local GGUF's template, else ChatML (whose markers the margin covers).
"""
from __future__ import annotations

import math
import threading
from collections import OrderedDict

from precis.engine.errors import ServerError
from precis.engine.runtime.server.connection import Connection
from precis.engine.runtime.server.discovery import LLAMA_CPP, LLAMA_CPP_PYTHON, VLLM, ServerInfo
from precis.engine.runtime.server.waits import TOKENIZE as TOKENIZE_PHASE

TOKENIZE, LOCAL_GGUF, ESTIMATE = "tokenize", "local-gguf", "estimate"
# cl100k_base against the tokenizers of small open models, measured on the development corpus:
# English within 10%, Japanese up to ~40% more for some vocabularies. The estimate plans with 1.5x and
# a fixed allowance for template markers, so a prompt it passes fits.
ESTIMATE_FACTOR = 1.5
ESTIMATE_TEMPLATE_TOKENS = 16
COUNT_CACHE_SIZE = 4096


class _Counts(OrderedDict):
    """A small LRU of text -> count: the planner and the rounds count the same texts again. Locked:
    parallel map calls count from several threads."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def get_or(self, key, make):
        with self._lock:
            if key in self:
                self.move_to_end(key)
                return self[key]
        value = make()                    # outside the lock: a server round trip
        with self._lock:
            self[key] = value
            if len(self) > COUNT_CACHE_SIZE:
                self.popitem(last=False)
        return value


class ServerTokenizer:
    """Exact counts from the server's tokenize endpoint."""
    source = TOKENIZE

    def __init__(self, connection: Connection, info: ServerInfo) -> None:
        self.connection, self.info = connection, info
        self._counts = _Counts()
        self._leading = 0
        if info.kind == LLAMA_CPP_PYTHON:     # its endpoint always adds the BOS token the model declares
            self._leading = len(self._call("", special=True))

    def _post(self, endpoint: str, payload: dict):
        return self.connection.post_json(endpoint, payload, root=True, phase=TOKENIZE_PHASE)

    def _call(self, text: str, *, special: bool, with_pieces: bool = False):
        endpoint = self.info.tokenize_endpoint
        if self.info.kind == LLAMA_CPP:
            data = self._post(endpoint, {"content": text, "add_special": False, "parse_special": special,
                                         "with_pieces": with_pieces})
        elif self.info.kind == VLLM:
            data = self._post(endpoint, {"model": self.info.model, "prompt": text, "add_special_tokens": False})
        else:
            data = self._post(endpoint, {"input": text, "model": self.info.model})
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(tokens, list):
            raise ServerError(f"The server's {endpoint} answered without tokens.")
        return tokens

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        return self._call(text, special=special)[self._leading:]

    def count(self, text: str, *, special: bool = False) -> int:
        return self._counts.get_or((text, special), lambda: len(self.tokenize(text, special=special)))

    def remember(self, prompt: str, n_tokens: int) -> None:
        """A rendered prompt's count, known from the server's own rendering (vLLM tokenizes messages)."""
        self._counts.get_or((prompt, True), lambda: n_tokens)

    def detokenize(self, tokens) -> str:
        tokens = [int(t) for t in tokens]
        if self.info.kind == LLAMA_CPP:
            return self._post("/detokenize", {"tokens": tokens}).get("content", "")
        if self.info.kind == VLLM:
            return self._post("/detokenize", {"model": self.info.model, "tokens": tokens}).get("prompt", "")
        return self._post("/extras/detokenize", {"tokens": tokens}).get("text", "")

    def token_char_starts(self, text: str) -> list[int] | None:
        """Where each token starts, from one call (llama.cpp returns each token's piece); None elsewhere."""
        if self.info.kind != LLAMA_CPP:
            return None
        pieces = self._call(text, special=False, with_pieces=True)
        starts, chars, rebuilt = [], 0, []
        for item in pieces:
            piece = item.get("piece") if isinstance(item, dict) else None
            if isinstance(piece, list):       # bytes that are not valid UTF-8 on their own
                return None
            starts.append(chars)
            chars += len(piece or "")
            rebuilt.append(piece or "")
        return starts if "".join(rebuilt) == text else None


class LocalGgufTokenizer:
    """The served model's own vocabulary, loaded from its GGUF on this machine (no weights)."""
    source = LOCAL_GGUF

    def __init__(self, path: str) -> None:
        from precis.engine.runtime.llama import LlamaRuntime
        from precis.engine.runtime.settings import RuntimeSettings
        self.vocab = LlamaRuntime.load(path, RuntimeSettings(n_ctx=256), vocab_only=True)
        self._counts = _Counts()

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        return self.vocab.tokenize(text, special=special)

    def count(self, text: str, *, special: bool = False) -> int:
        return self._counts.get_or((text, special), lambda: len(self.tokenize(text, special=special)))

    def detokenize(self, tokens) -> str:
        return self.vocab.detokenize(tokens)

    def token_char_starts(self, text: str) -> list[int] | None:
        return self.vocab.token_char_starts(text)

    def close(self) -> None:
        self.vocab.close()


class EstimateTokenizer:
    """cl100k_base with a safety margin: for servers that cannot tokenize for us."""
    source = ESTIMATE

    def __init__(self) -> None:
        from precis.engine.documents.token_estimate import cl100k
        self._encoding = cl100k()
        self._counts = _Counts()

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        return self._encoding.encode(text, disallowed_special=())

    def count(self, text: str, *, special: bool = False) -> int:
        def make() -> int:
            raw = len(self.tokenize(text))
            return math.ceil(raw * ESTIMATE_FACTOR) + (ESTIMATE_TEMPLATE_TOKENS if special else 0) if raw else 0
        return self._counts.get_or((text, special), make)

    def detokenize(self, tokens) -> str:
        return self._encoding.decode(list(tokens))

    def token_char_starts(self, text: str) -> list[int] | None:
        return None                          # spans are counted one by one, each with the margin


def tokenizer_for(connection: Connection, info: ServerInfo):
    if info.tokenize_endpoint:
        return ServerTokenizer(connection, info)
    if info.local_gguf:
        return LocalGgufTokenizer(info.local_gguf)
    return EstimateTokenizer()


def render_chatml(messages: list[dict]) -> str:
    return "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages) + \
        "<|im_start|>assistant\n"
