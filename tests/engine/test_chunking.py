"""The chunker with the bundled model's real tokenizer (vocab-only load: no weights)."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from precis.engine.planning.chunking import chunk_document
from precis.engine.runtime.llama import LlamaRuntime
from precis.engine.runtime.settings import RuntimeSettings
from tests.conftest import CORPUS_DIR


@pytest.fixture(scope="module")
def tokenizer(smollm2_path):
    rt = LlamaRuntime.load(smollm2_path, RuntimeSettings(n_ctx=512), vocab_only=True)
    yield rt
    rt.close()


def _check(text, chunks, tok, budget):
    assert "".join(text[c.start_char:c.end_char] for c in chunks) == text
    for c in chunks:
        assert c.tokens == tok.count_tokens(text[c.start_char:c.end_char]) <= budget
    assert [c.index for c in chunks] == list(range(len(chunks)))


ENGLISH = st.text(st.sampled_from(list("abcdefghij klmnop.,!?\n")), min_size=0, max_size=3000)
JAPANESE = st.text(st.sampled_from(list("会議の議事録を要約します。金曜日に延期！はい？\n")), max_size=2000)
EMOJI = st.lists(st.sampled_from(["😀", "🎉", "👩‍💻", "é", "a", " ", "\n", "。"]), max_size=1500).map("".join)
# Lone surrogates cannot come out of a decoded file, so they are not generated.
ANY = st.text(st.characters(blacklist_categories=("Cs",)), max_size=1500)
NO_NEWLINES = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), min_size=200,
                      max_size=3000)


@settings(max_examples=int(__import__("os").environ.get("PRECIS_HYPOTHESIS_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(ENGLISH, JAPANESE, EMOJI, ANY, NO_NEWLINES,
                      st.lists(st.one_of(ENGLISH, JAPANESE), max_size=4).map("\n\n".join)),
       budget=st.integers(min_value=16, max_value=600))
def test_every_chunk_fits_and_chunks_rebuild_the_text(tokenizer, text, budget):
    _check(text, chunk_document(text, tokenizer, budget), tokenizer, budget)


def test_huge_single_line_is_split_and_flagged(tokenizer):
    text = "x" * 40_000
    chunks = chunk_document(text, tokenizer, 256)
    _check(text, chunks, tokenizer, 256)
    assert any(c.flagged for c in chunks)


def test_sample_day_cuts_at_sessions_and_turns(tokenizer, sample_document):
    text = sample_document.read_text(encoding="utf-8")
    chunks = chunk_document(text, tokenizer, 1500)
    _check(text, chunks, tokenizer, 1500)
    assert all(c.boundary in ("heading", "speaker", "timestamp", "paragraph", "end") for c in chunks)
    assert sum(c.tokens for c in chunks) >= 0.6 * 1500 * (len(chunks) - 1)  # packed, not scattered


def _corpus_texts():
    if not CORPUS_DIR.is_dir():
        return []
    return sorted(CORPUS_DIR.rglob("*.json"))


@pytest.mark.skipif(not CORPUS_DIR.is_dir(), reason="the shared development corpus is not beside this checkout")
@pytest.mark.parametrize("budget", [1024, 2560])
def test_corpus_documents_cut_at_turns_and_paragraphs(tokenizer, budget):
    files = _corpus_texts()
    assert len(files) >= 20
    mid_sentence = 0
    total = 0
    for path in files:
        text = json.loads(path.read_text(encoding="utf-8"))["text"]
        chunks = chunk_document(text, tokenizer, budget)
        _check(text, chunks, tokenizer, budget)
        for c in chunks[:-1]:
            total += 1
            mid_sentence += c.boundary in ("line", "token") and text[c.end_char - 2:c.end_char].rstrip()[-1:] \
                not in ".!?。！？」』)"
    assert mid_sentence <= 0.05 * total, f"{mid_sentence} of {total} cuts fall mid-sentence"
