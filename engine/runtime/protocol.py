"""The runtime seam: what every strategy needs from a model, and the small values that cross it.

``LlamaRuntime`` (engine.runtime.llama) implements it in-process, ``ServerRuntime``
(engine.runtime.server.runtime) over an OpenAI-compatible server; tests also use a scripted fake.
Nothing here imports llama_cpp.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Protocol


class CancelToken:
    """Set from any thread; checked between tokens and by llama.cpp's abort callback mid-prompt."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


@dataclass
class SamplingParams:
    max_tokens: int = 512
    temperature: float = 0.2
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    repeat_penalty: float = 1.1
    seed: int = 0
    grammar: str | None = None       # GBNF: the reply must match it (llama.cpp constrains sampling)


@dataclass
class CallStats:
    """What one model call cost, measured."""
    prompt_tokens: int = 0
    reused_tokens: int = 0           # prompt tokens served from the KV cache (prefix reuse)
    evaluated_tokens: int = 0        # prompt tokens llama.cpp actually processed
    restored_tokens: int = 0         # of reused_tokens, those from a saved prompt state (engine.runtime.prompt_states)
    generated_tokens: int = 0
    decode_steps: int = 0            # evaluations of a drafted reply (fewer than its tokens where guesses held)
    hit_max_tokens: bool = False
    stopped_by: str = ""             # "eos", "max_tokens", "cancelled", "caller"
    prompt_seconds: float = 0.0
    generate_seconds: float = 0.0
    generated_token_ids: list[int] = field(default_factory=list)


class Runtime(Protocol):
    """What the planner and the strategies call. One runtime is owned by one thread."""
    n_ctx: int
    path: Path | None
    last_call: CallStats

    def tokenize(self, text: str, *, special: bool = False) -> list[int]: ...
    def count_tokens(self, text: str, *, special: bool = False) -> int: ...
    def detokenize(self, tokens) -> str: ...
    def render_chat(self, messages: list[dict]) -> str: ...
    def stream(self, prompt: str, params: SamplingParams, cancel: CancelToken | None = None) -> Iterator[str]: ...
    def answer_logprobs(self, prompt: str, answers, cancel: CancelToken | None = None) -> dict[str, float] | None:
        """The log-probability of each answer as the reply's first token; None where the runtime cannot
        tell (a server that returns no log-probabilities)."""
        ...
    def close(self) -> None: ...
