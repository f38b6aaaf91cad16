"""A grammar-held reply sampled with the grammar checked on the likeliest tokens first is the reply llama-cpp-python's
own sampler chain gives, token for token (engine.runtime.llama_sampling), with the real bundled model."""
from __future__ import annotations

import pytest

from precis.engine.prompts.notes import restate_grammar, reword_grammar
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.llama_sampling import CandidatesFirstSampler
from precis.engine.runtime.protocol import SamplingParams
from precis.engine.runtime.settings import RuntimeSettings

pytestmark = pytest.mark.real_model

SENTENCES = ["The team moved the release to Friday because the tests failed on Tuesday.",
             "Marketing wants a yellow case; the designer thinks it costs 12 euros more.",
             "Nobody agreed on the battery, so it waits for the next meeting."]


@pytest.fixture(scope="module")
def runtime(smollm2_path):
    rt = LlamaRuntime.load(smollm2_path, RuntimeSettings(n_ctx=1024))
    yield rt
    rt.close()


def _reply(rt: LlamaRuntime, prompt: str, params: SamplingParams, candidates_first: bool) -> list[int]:
    rt.candidates_first = candidates_first
    "".join(rt.stream(prompt, params))
    return list(rt.last_call.generated_token_ids)


@pytest.mark.parametrize("temperature,seed,grammar", [
    (0.2, 1, reword_grammar(3)), (0.2, 5, reword_grammar(3)), (0.0, 0, reword_grammar(3)),
    (0.8, 3, restate_grammar()), (0.0, 0, restate_grammar())])
def test_candidates_first_gives_the_stock_samplers_reply(runtime, temperature, seed, grammar):
    numbered = "\n".join(f"[{i}] {s}" for i, s in enumerate(SENTENCES, 1))
    prompt = runtime.render_chat([
        {"role": "system", "content": "You turn sentences into short notes in your own words."},
        {"role": "user", "content": f"Say each sentence as a short note, one numbered line each:\n{numbered}"}])
    params = SamplingParams(max_tokens=120, temperature=temperature, seed=seed, grammar=grammar, repeat_penalty=1.1)
    # both compared replies start from the same cache: the prompt but its last token reused (a prompt evaluated
    # afresh gives its last token's logits from another batch shape, which can move a near tie)
    _reply(runtime, prompt, params, candidates_first=False)
    stock = _reply(runtime, prompt, params, candidates_first=False)
    assert not isinstance(runtime.last_sampler, CandidatesFirstSampler)
    fast = _reply(runtime, prompt, params, candidates_first=True)
    sampler = runtime.last_sampler
    assert isinstance(sampler, CandidatesFirstSampler)
    assert fast == stock, (runtime.detokenize(stock), runtime.detokenize(fast))
    # the point of it: most tokens were checked on the candidates alone, not the whole vocabulary
    assert len(fast) > 5
    assert sampler.candidate_checks > sampler.full_checks


def test_a_reply_without_grammar_keeps_the_stock_sampler(runtime):
    prompt = runtime.render_chat([{"role": "user", "content": "Say hello."}])
    runtime.candidates_first = True
    "".join(runtime.stream(prompt, SamplingParams(max_tokens=8)))
    assert not isinstance(runtime.last_sampler, CandidatesFirstSampler)


def test_only_a_draw_bounded_by_top_k_or_greedy_takes_the_candidates_first(runtime):
    """Where the samplers after the grammar weigh every token (a draw from all of them, top-k off, typical
    sampling), the candidates' answer would not be the vocabulary's: llama-cpp-python's own chain samples."""
    from llama_cpp import LlamaGrammar
    grammar = LlamaGrammar.from_string(restate_grammar(), verbose=False)
    common = dict(top_p=0.95, min_p=0.05, repeat_penalty=1.1, frequency_penalty=0.0, presence_penalty=0.0,
                  tfs_z=1.0, mirostat_mode=0, mirostat_tau=5.0, mirostat_eta=0.1, penalize_nl=True,
                  logits_processor=None, grammar=grammar)
    runtime.candidates_first = True
    assert isinstance(runtime._init_sampler(top_k=40, typical_p=1.0, temp=0.2, **common), CandidatesFirstSampler)
    assert isinstance(runtime._init_sampler(top_k=40, typical_p=1.0, temp=0.0, **common), CandidatesFirstSampler)
    for odd in (dict(top_k=40, typical_p=1.0, temp=-1.0), dict(top_k=0, typical_p=1.0, temp=0.2),
                dict(top_k=40, typical_p=0.9, temp=0.2)):
        assert not isinstance(runtime._init_sampler(**odd, **common), CandidatesFirstSampler)
