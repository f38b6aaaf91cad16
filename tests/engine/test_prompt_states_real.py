"""Saved prompt states with the real bundled model (engine.runtime.prompt_states): a prompt whose static prefix a
prompt of another kind pushed out of the cache starts from the saved cells, and its reply is the one it gets when
the cache still held them."""
from __future__ import annotations

import pytest

from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.protocol import SamplingParams
from precis.engine.runtime.settings import RuntimeSettings

pytestmark = pytest.mark.real_model

RULES_B = ("You restate one sentence from a meeting as a short note. Keep every name and number; add nothing; "
           "write one line. ") * 6
RULES_A = ("You name the topic of a few numbered notes in a short heading of at most six words. Use the notes' "
           "own words. ") * 6
GREEDY = SamplingParams(max_tokens=24, temperature=0.0)


def _ask(rt, rules: str, text: str) -> tuple[list[int], object]:
    prompt = rt.render_chat([{"role": "system", "content": rules}, {"role": "user", "content": text}])
    "".join(rt.stream(prompt, GREEDY))
    return list(rt.last_call.generated_token_ids), rt.last_call


def test_a_prefix_pushed_out_is_restored_and_answers_as_if_it_had_stayed(smollm2_path):
    settings = RuntimeSettings(n_ctx=2048)
    with LlamaRuntime.load(smollm2_path, settings) as rt:
        _ask(rt, RULES_B, "Marketing moved the launch to Friday because the tests failed.")
        _ask(rt, RULES_A, "[1] The launch moved to Friday. [2] Tests failed on Tuesday.")
        restored_reply, restored = _ask(rt, RULES_B, "Oskar pays the plot fee of 40 euros by March.")
        assert rt.prompt_states is not None and rt.prompt_states.restored == 1
    # the B rules came back without evaluation: all but the few chat-template tokens the A prompt shared
    assert restored.reused_tokens > 100 and restored.reused_tokens - restored.restored_tokens < 10
    with LlamaRuntime.load(smollm2_path, settings) as rt:     # the same two B prompts, the cache never switched
        _ask(rt, RULES_B, "Marketing moved the launch to Friday because the tests failed.")
        stayed_reply, stayed = _ask(rt, RULES_B, "Oskar pays the plot fee of 40 euros by March.")
        assert stayed.restored_tokens == 0
    assert stayed.reused_tokens == restored.reused_tokens
    assert restored_reply == stayed_reply


def test_without_saved_states_the_prefix_is_evaluated_again(smollm2_path):
    with LlamaRuntime.load(smollm2_path, RuntimeSettings(n_ctx=2048)) as rt:
        rt.prompt_states = None
        _ask(rt, RULES_B, "Marketing moved the launch to Friday because the tests failed.")
        _ask(rt, RULES_A, "[1] The launch moved to Friday. [2] Tests failed on Tuesday.")
        _, again = _ask(rt, RULES_B, "Oskar pays the plot fee of 40 euros by March.")
    assert again.restored_tokens == 0 and again.reused_tokens < 20


def test_forgotten_prompts_leave_the_next_call_to_be_answered_as_by_a_freshly_loaded_model(smollm2_path):
    settings = RuntimeSettings(n_ctx=2048)
    with LlamaRuntime.load(smollm2_path, settings) as rt:
        _ask(rt, RULES_B, "Marketing moved the launch to Friday because the tests failed.")
        _ask(rt, RULES_A, "[1] The launch moved to Friday. [2] Tests failed on Tuesday.")
        rt.forget_prompts()
        forgotten_reply, forgotten = _ask(rt, RULES_B, "Oskar pays the plot fee of 40 euros by March.")
        assert rt.prompt_states is not None and rt.prompt_states.restored == 0
    assert forgotten.reused_tokens == 0 and forgotten.restored_tokens == 0     # the saved B rules not restored
    with LlamaRuntime.load(smollm2_path, settings) as rt:
        fresh_reply, fresh = _ask(rt, RULES_B, "Oskar pays the plot fee of 40 euros by March.")
    assert fresh.reused_tokens == 0 and forgotten_reply == fresh_reply
