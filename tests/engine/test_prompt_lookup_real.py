"""A reply drafted from its prompt (engine.runtime.prompt_lookup) with the real bundled model: the reply sampled
token by token, in fewer evaluations where it repeats its prompt; a guess that never holds changes nothing."""
from __future__ import annotations

import numpy as np
import pytest

from precis.engine.prompts.notes import restate_grammar
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.protocol import SamplingParams
from precis.engine.runtime.settings import RuntimeSettings

pytestmark = pytest.mark.real_model

SENTENCE = ("The pilot ducked out of sight, came back, and handed Retief a heavy old-fashioned power pistol before "
            "the skiff dropped through the clouds toward the dome.")


@pytest.fixture(scope="module")
def runtime(smollm2_path):
    rt = LlamaRuntime.load(smollm2_path, RuntimeSettings(n_ctx=1024))
    yield rt
    rt.close()


def _reply(rt: LlamaRuntime, prompt: str, params: SamplingParams, lookup: bool) -> str:
    rt.prompt_lookup = "all" if lookup else "off"
    return "".join(rt.stream(prompt, params))


@pytest.mark.parametrize("grammar", [None, restate_grammar()])
def test_a_reply_that_repeats_its_prompt_is_the_same_in_fewer_evaluations(runtime, grammar):
    prompt = runtime.render_chat([{"role": "user", "content": f"Repeat this sentence exactly:\n{SENTENCE}"}])
    params = SamplingParams(max_tokens=80, temperature=0.0, grammar=grammar)
    _reply(runtime, prompt, params, False)           # both compared replies start from the same reused prefix
    stock = _reply(runtime, prompt, params, False)
    stock_ids = list(runtime.last_call.generated_token_ids)
    drafted = _reply(runtime, prompt, params, True)
    call, draft = runtime.last_call, runtime.last_draft
    assert "Retief a heavy old-fashioned power pistol" in stock     # the model did repeat it
    assert drafted == stock
    assert call.generated_token_ids == stock_ids
    # the point of it: most of the reply came from guesses that held, in far fewer evaluations than tokens
    assert draft.held_tokens > len(stock_ids) // 2
    assert call.decode_steps < len(stock_ids) // 2


def test_guesses_that_never_hold_leave_the_reply_as_it_was(runtime, monkeypatch):
    """Every guess wrong (a token the reply never writes): the first position of each batch of guesses is
    sampled from its own row of logits, and a sentence repeated (a reply whose every token is clearly the
    likeliest) comes out as token by token; read from another row, it would not."""
    prompt = runtime.render_chat([{"role": "user", "content": f"Repeat this sentence exactly:\n{SENTENCE}"}])
    params = SamplingParams(max_tokens=60, temperature=0.0)
    _reply(runtime, prompt, params, False)
    stock = _reply(runtime, prompt, params, False)
    never = runtime.tokenize("\u2603")[-1]           # a snowman: not in the sentence nor in a reply to it
    from precis.engine.runtime import prompt_lookup
    monkeypatch.setattr(prompt_lookup.PromptLookup, "__call__",
                        lambda self, input_ids, **_: np.array([never] * 3, dtype=np.intc))
    wrong = _reply(runtime, prompt, params, True)
    assert never not in runtime.last_call.generated_token_ids
    assert wrong == stock
    # one evaluation a token: each batch gave only the token sampled at its first position
    assert runtime.last_call.decode_steps >= runtime.last_call.generated_tokens - 1


def test_a_reply_left_unfinished_leaves_no_guessing_behind(runtime):
    """A weighed answer (answer_logprobs) reads the prompt's last row of logits: guesses, and a row for each
    position of a short batch, belong to a streaming reply only, however it ends."""
    prompt = runtime.render_chat([{"role": "user", "content": f"Repeat this sentence exactly:\n{SENTENCE}"}])
    runtime.prompt_lookup = "all"
    reply = runtime.stream(prompt, SamplingParams(max_tokens=40, temperature=0.0))
    next(reply)
    assert runtime._llm.draft_model is not None
    reply.close()                                    # the caller stopped reading
    assert runtime._llm.draft_model is None


def test_by_default_only_a_reply_no_grammar_holds_is_guessed(runtime):
    """The default ("free"): the notes' grammar-held replies one token at a time, as measured best on a CPU."""
    prompt = runtime.render_chat([{"role": "user", "content": f"Repeat this sentence exactly:\n{SENTENCE}"}])
    runtime.prompt_lookup = "free"
    "".join(runtime.stream(prompt, SamplingParams(max_tokens=30, temperature=0.0, grammar=restate_grammar())))
    assert runtime.last_draft is None
    "".join(runtime.stream(prompt, SamplingParams(max_tokens=30, temperature=0.0)))
    assert runtime.last_draft is not None and runtime.last_draft.held_tokens > 0


def test_no_guesses_with_a_reduced_sliding_window_cache(gemma3_path):
    """Gemma 3's sliding-window layers keep only the window's cells (512, and a batch's) unless swa_full, where
    the context is larger than that: a guess taken back could leave cells the window already pushed out, so
    such a cache is never guessed; with the full cache it is."""
    prompt_text = f"Repeat this sentence exactly:\n{SENTENCE}"
    for swa_full, guessed in ((False, False), (True, True)):
        with LlamaRuntime.load(gemma3_path, RuntimeSettings(n_ctx=4096, swa_full=swa_full)) as rt:
            rt.prompt_lookup = "all"
            prompt = rt.render_chat([{"role": "user", "content": prompt_text}])
            "".join(rt.stream(prompt, SamplingParams(max_tokens=12, temperature=0.0)))
            assert (rt.last_draft is not None) is guessed
