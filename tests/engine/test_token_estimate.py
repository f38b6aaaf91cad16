from __future__ import annotations

import socket

import pytest

from precis.engine.documents import token_estimate


@pytest.fixture
def no_network(monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "empty-cache"))  # no previously downloaded file
    token_estimate.cl100k.cache_clear()
    yield
    token_estimate.cl100k.cache_clear()


def test_estimate_works_without_network(no_network):
    count = token_estimate.estimate_tokens("The release moved to Friday because two tests failed.")
    assert 8 <= count.tokens <= 14
    assert not count.exact and count.label().startswith("~") and "estimate" in count.label()


def test_estimate_handles_special_token_text_and_japanese(no_network):
    text = "<|endoftext|> 会議は金曜日に延期されました。"
    assert token_estimate.estimate_tokens(text).tokens > 5


def test_a_long_text_is_estimated_in_proportion_to_its_length(no_network):
    """The window once showed ~338k tokens for a 63M-character text (a 2 MB sample, not scaled): 33x low."""
    unit = "The committee reviewed item 42 and approved the budget of EUR 1,200 on 2024-06-12.\n"
    text = unit * 60_000                                     # ~5 M characters: sampled, then scaled
    exact_per_unit = token_estimate.estimate_tokens(unit * 100).tokens / 100
    estimated = token_estimate.estimate_tokens(text).tokens
    assert abs(estimated - exact_per_unit * 60_000) / (exact_per_unit * 60_000) < 0.02
