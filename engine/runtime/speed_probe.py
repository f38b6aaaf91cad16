"""A short real call that measures this machine's prompt and generation speed for a model."""
from __future__ import annotations

from precis.engine.runtime.protocol import SamplingParams
from precis.engine.storage.speed_log import Speeds, record_speeds


def measure_speeds(runtime, text: str, prompt_tokens: int = 512, generate_tokens: int = 32,
                   placement: str = "") -> Speeds:
    """A short real call on a loaded runtime: ``prompt_tokens`` of ``text`` in, ``generate_tokens`` out.
    ``placement``: the speed log's key for the GPUs and layers it ran with ("" on the CPU alone)."""
    prompt_tokens = max(16, min(prompt_tokens, runtime.n_ctx - generate_tokens - 8))
    ids = runtime.tokenize(text)[:prompt_tokens]
    prompt = runtime.detokenize(ids)
    params = SamplingParams(max_tokens=generate_tokens, temperature=0.0)
    for _ in runtime.stream(prompt, params):
        pass
    stats = runtime.last_call
    prompt_tps = stats.evaluated_tokens / max(stats.prompt_seconds, 1e-6)
    generate_tps = max(stats.generated_tokens - 1, 1) / max(stats.generate_seconds, 1e-6)
    return record_speeds(runtime.path, runtime.settings.n_threads, prompt_tps, generate_tps, placement)
