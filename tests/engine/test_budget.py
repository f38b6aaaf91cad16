"""The budget arithmetic, and the proof with the real tokenizer that no round can overflow."""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from precis.engine.errors import BadInput
from precis.engine.planning.budget import MIN_CHUNK_TOKENS, ContextTooSmall, plan_budget
from precis.engine.planning.run_plan import make_budget, plan_documents
from precis.engine.prompts.layout import WORST_REMINDER, PromptRenderer, RoundLayout
from precis.engine.prompts.presets import list_presets, load_preset
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.settings import RuntimeSettings
from tests.conftest import CORPUS_DIR


@pytest.fixture(scope="module")
def tokenizer(smollm2_path):
    rt = LlamaRuntime.load(smollm2_path, RuntimeSettings(n_ctx=512), vocab_only=True)
    yield rt
    rt.close()


def test_budget_adds_up_to_n_ctx():
    b = plan_budget(4096, 269)
    assert b.worst_case_tokens == 4096
    assert b.summary_in_cap == b.summary_out_cap == 819 and b.margin == 48 and b.chunk_budget == 2141


def test_overrides_are_used_and_checked():
    b = plan_budget(8192, 300, summary_out_cap=1000, summary_in_cap=1200, margin=10)
    assert (b.summary_out_cap, b.summary_in_cap, b.margin, b.chunk_budget) == (1000, 1200, 10, 8192 - 2510)
    with pytest.raises(BadInput, match="input cap .* must be at least the output cap"):
        plan_budget(8192, 300, summary_out_cap=1000, summary_in_cap=500)


@pytest.mark.parametrize("static", [300, 600, 900])
def test_too_small_context_names_one_that_works(static):
    with pytest.raises(ContextTooSmall) as info:
        plan_budget(1024, static)
    need = info.value.suggested_n_ctx
    assert f"Use a context of {need:,} tokens" in str(info.value)
    assert plan_budget(need, static).chunk_budget >= MIN_CHUNK_TOKENS   # the suggestion works
    with pytest.raises(ContextTooSmall):
        plan_budget(need - 256, static)                                 # and is the smallest that does


def test_every_preset_renders_with_the_rules_first(tokenizer):
    renderer = PromptRenderer(tokenizer)
    for preset in list_presets():
        layout = RoundLayout(preset, "2026-11-27")
        prompt = renderer.render(layout.rolling_messages("OLD SUMMARY", "NEW CHUNK"))
        user = prompt[prompt.index("[Mandatory rules"):]
        assert user.index(preset.rules.splitlines()[0]) < user.index("Archive date: 2026-11-27") \
            < user.index("OLD SUMMARY") < user.index("NEW CHUNK")
        # The static part is a byte-identical prefix of every round (what prefix reuse needs).
        other = renderer.render(layout.rolling_messages("another summary", "another chunk"))
        static = prompt[:prompt.index("OLD SUMMARY")]
        assert other.startswith(static)


def test_unknown_preset_lists_the_known_ones():
    with pytest.raises(BadInput, match="conversation-archive.*generic"):
        load_preset("nope")


def _text_of_tokens(tokenizer, source: str, n: int) -> str:
    """A summary of (at most) exactly ``n`` tokens, the worst case a round can receive."""
    ids = tokenizer.tokenize((source + " ") * (n // max(1, len(source) // 4) + 2))[:n]
    text = tokenizer.detokenize(ids)
    while tokenizer.count_tokens(text) > n:
        text = text[:-1]
    return text


def _assert_every_round_fits(tokenizer, layout, budget, text):
    renderer = PromptRenderer(tokenizer)
    summary = _text_of_tokens(tokenizer, "Priya decided 3 things on 2026-11-27; 会議は延期。", budget.summary_in_cap)
    (doc,) = plan_documents(tokenizer, [("doc", text, ())], budget)
    assert "".join(text[c.start_char:c.end_char] for c in doc.chunks) == text
    for c in doc.chunks:
        chunk_text = text[c.sent_start_char:c.end_char]
        assert c.tokens == tokenizer.count_tokens(chunk_text) <= budget.chunk_budget
        prompt = renderer.render(layout.rolling_messages(summary, chunk_text, WORST_REMINDER))  # a retry
        assert renderer.count(prompt) + budget.summary_out_cap <= budget.n_ctx


TEXTS = st.one_of(
    st.text(st.sampled_from(list("abcdefghij klmnop.,!?\n")), max_size=6000),
    st.text(st.sampled_from(list("会議の議事録を要約します。金曜日に延期！はい？\n　")), max_size=4000),
    st.lists(st.sampled_from(["😀", "🎉", "👩‍💻", "é", "a", " ", "\n", "。"]), max_size=3000).map("".join),
    st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), min_size=500, max_size=5000),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=3000),
).filter(lambda t: t.strip())


@settings(max_examples=int(os.environ.get("PRECIS_HYPOTHESIS_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS, n_ctx=st.sampled_from([1536, 2048, 3072, 4096, 8192]),
       preset=st.sampled_from(["conversation-archive", "meeting-minutes", "generic"]),
       overlap=st.sampled_from([0, 0, 64]))
def test_worst_case_round_fits_for_random_texts(tokenizer, text, n_ctx, preset, overlap):
    layout = RoundLayout(load_preset(preset), "2026-11-27")
    budget = make_budget(tokenizer, layout, n_ctx, overlap_tokens=overlap)
    _assert_every_round_fits(tokenizer, layout, budget, text)


def test_huge_single_line_worst_case(tokenizer):
    layout = RoundLayout(load_preset("generic"), "2026-11-27")
    budget = make_budget(tokenizer, layout, 2048)
    _assert_every_round_fits(tokenizer, layout, budget, "tokens " * 30_000)


CORPUS = sorted(CORPUS_DIR.glob("*/*.json")) if CORPUS_DIR.is_dir() else []


@pytest.mark.skipif(not CORPUS, reason=f"development corpus not found at {CORPUS_DIR}")
@pytest.mark.parametrize("n_ctx", [2048, 4096, 8192])
def test_plan_holds_on_the_corpus(tokenizer, n_ctx):
    """Every corpus document: chunks fit and rebuild the text, and cuts fall on seams, not mid-sentence."""
    import json
    layout = RoundLayout(load_preset("conversation-archive"), "2026-11-27")
    budget = make_budget(tokenizer, layout, n_ctx)
    for path in CORPUS:
        data = json.loads(path.read_text(encoding="utf-8"))
        text = data["text"]
        (doc,) = plan_documents(tokenizer, [(path.name, text, ())], budget)
        assert "".join(text[c.start_char:c.end_char] for c in doc.chunks) == text, path
        for c in doc.chunks:
            assert tokenizer.count_tokens(text[c.start_char:c.end_char]) == c.tokens <= budget.chunk_budget
            assert c.boundary != "token", (path.name, c)   # every corpus document has seams to use
            if c.boundary == "end":
                continue
            before = text[:c.end_char]
            at_sentence_end = before.rstrip()[-1] in ".!?。！？\"'”」』)）:;"
            assert before.endswith("\n") or c.boundary == "sentence" and at_sentence_end, (path.name, c)
            if c.boundary in ("line", "sentence"):
                assert at_sentence_end, (path.name, c)          # never inside a sentence
        seams = [c.boundary for c in doc.chunks[:-1]]
        if data.get("turns"):
            # Transcripts and chat logs: cut between turns (or at paragraphs inside a long speech).
            structural = sum(b in ("heading", "speaker", "timestamp", "paragraph") for b in seams)
            assert structural >= 0.9 * len(seams), (path.name, n_ctx, seams)
        else:
            # Stories and calls: at paragraphs or sentence ends; a line break inside a sentence ("break")
            # only in logs, whose lines have no sentences.
            assert all(b != "break" or data["kind"] == "project_log" for b in seams), (path.name, seams)
