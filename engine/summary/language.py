"""Which script a text is written in, so that a reply in another language than the one asked for (the
document's own by default) is a failed round. Measured: map-reduce summarised a Japanese project log in
English. Scripts, not full language identification: Japanese (kana/kanji) against Latin text is what
the product meets and what can be told apart reliably in a few hundred characters."""
from __future__ import annotations

JAPANESE_NAMES = {"japanese", "日本語", "ja", "jp"}
LATIN_NAMES = {"english", "en", "french", "german", "spanish", "italian", "portuguese", "dutch", "français",
               "deutsch", "español"}
MIN_LETTERS = 40           # below this a reply is too short to judge


def script_of(text: str) -> str:
    """"cjk", "latin", or "" when there are too few letters to tell."""
    cjk = latin = 0
    for ch in text:
        if ch.isalpha():
            if "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uff66" <= ch <= "\uff9f":
                cjk += 1
            elif ch.isascii() or "\u00c0" <= ch <= "\u024f":
                latin += 1
    if cjk + latin < MIN_LETTERS and not (cjk >= 15):
        return ""
    # Japanese prose carries Latin names and numbers; 20% kana/kanji already means Japanese.
    return "cjk" if cjk >= 0.2 * (cjk + latin) else "latin"


def expected_script(requested_language: str | None, source: str) -> str:
    if requested_language:
        name = requested_language.strip().lower()
        if name in JAPANESE_NAMES:
            return "cjk"
        if name in LATIN_NAMES:
            return "latin"
        return ""                     # a language Precis cannot check by script: not judged
    return script_of(source)


def wrong_language(reply: str, source: str, requested_language: str | None) -> bool:
    want = expected_script(requested_language, source)
    got = script_of(reply)
    return bool(want and got and want != got)
