"""End to end with the real bundled model through llama-cpp-python."""
from __future__ import annotations

import pytest

from precis.engine.errors import Cancelled, ContextOverflow, ModelLoadError
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.protocol import CancelToken, SamplingParams
from precis.engine.runtime.settings import RuntimeSettings

pytestmark = pytest.mark.real_model


@pytest.fixture(scope="module")
def runtime(smollm2_path):
    rt = LlamaRuntime.load(smollm2_path, RuntimeSettings(n_ctx=1024))
    yield rt
    rt.close()


def _prompt(rt, text):
    return rt.render_chat([{"role": "system", "content": "You summarize text in one sentence."},
                           {"role": "user", "content": text}])


def test_bundled_model_generates_text(runtime):
    prompt = _prompt(runtime, "Summarize: The meeting moved the release to Friday because tests failed.")
    assert prompt.startswith("<|im_start|>system") and prompt.endswith("<|im_start|>assistant\n")
    reply = "".join(runtime.stream(prompt, SamplingParams(max_tokens=48)))
    stats = runtime.last_call
    assert reply.strip(), "the model produced no text"
    assert "\x00" not in reply
    assert 0 < stats.generated_tokens <= 48
    assert stats.prompt_tokens == len(runtime.tokenize(prompt, special=True))
    assert stats.stopped_by in ("eos", "max_tokens")


def test_prefix_reuse_is_measured(runtime):
    base = _prompt(runtime, "Summarize: the cat sat on the mat and looked at the rain for an hour.")
    "".join(runtime.stream(base, SamplingParams(max_tokens=8)))
    changed = _prompt(runtime, "Summarize: the cat sat on the mat and looked at the snow for an hour.")
    "".join(runtime.stream(changed, SamplingParams(max_tokens=8)))
    stats = runtime.last_call
    assert stats.reused_tokens > 10  # the system prompt and the start of the message come from the cache
    assert stats.reused_tokens + stats.evaluated_tokens == stats.prompt_tokens


def test_overflow_is_refused_before_the_call(runtime):
    prompt = _prompt(runtime, "word " * 900)
    with pytest.raises(ContextOverflow):
        "".join(runtime.stream(prompt, SamplingParams(max_tokens=200)))


def test_cancel_stops_generation(runtime):
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        "".join(runtime.stream(_prompt(runtime, "Tell a long story."), SamplingParams(max_tokens=64), token))


def test_truncated_model_file_gets_a_clear_error(tmp_path, smollm2_path):
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(smollm2_path.read_bytes()[: 20_000_000])
    with pytest.raises(ModelLoadError) as err:
        LlamaRuntime.load(cut, RuntimeSettings(n_ctx=512))
    assert "cut.gguf" in str(err.value)


def test_long_token_pieces_round_trip(smollm2_path):
    """llama-cpp-python's own detokenize truncates pieces over 32 bytes (SmolLM2 has 40-dash tokens)."""
    text = "| a | b |\n| " + "-" * 120 + " | --- |\n" + "=" * 64 + "\n日本語のテキスト。😀\n"
    with LlamaRuntime.load(smollm2_path, RuntimeSettings(n_ctx=512), vocab_only=True) as rt:
        ids = rt.tokenize(text)
        assert any(len(rt.token_piece(t)) > 32 for t in ids)
        assert rt.detokenize(ids) == text
        starts = rt.token_char_starts(text)
        assert starts is not None and len(starts) == len(ids) and starts[0] == 0
        assert starts == sorted(starts) and starts[-1] < len(text)


def test_answers_are_weighed_from_the_prompts_last_logits_and_the_cache_stays_true(runtime):
    """The second reading's question (engine.summary.second_reading): log-probabilities of the reply's first
    token, the prompt's prefix reused, and generation afterwards as if it had never been asked."""
    import math
    prompt = _prompt(runtime, "Is Paris the capital of France? Answer Yes or No.")
    greedy = SamplingParams(max_tokens=6, temperature=0.0)
    before = "".join(runtime.stream(prompt, greedy))
    first = runtime.detokenize(runtime.last_call.generated_token_ids[:1])
    found = runtime.answer_logprobs(prompt, ("Yes", "No", first))
    assert all(v < 0 for v in found.values()) and math.exp(found["Yes"]) + math.exp(found["No"]) <= 1 + 1e-6
    assert found[first] >= max(found["Yes"], found["No"]) - 1e-4     # greedy's first token is the likeliest
    stats = runtime.last_call
    assert stats.reused_tokens > 0 and stats.reused_tokens + stats.evaluated_tokens == stats.prompt_tokens
    assert runtime.answer_logprobs(prompt, ("Yes", "No")) == pytest.approx(
        {k: found[k] for k in ("Yes", "No")}, abs=2e-3)               # from the cache: the same weighing
    runtime.answer_logprobs(_prompt(runtime, "Something else entirely, about rain."), ("Yes", "No"))
    assert "".join(runtime.stream(prompt, greedy)) == before        # the cache left as generation needs it
