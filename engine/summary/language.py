"""Which script a text is written in, so that a reply in another language than the one asked for (the
document's own by default) is a failed round. Measured: map-reduce summarised a Japanese project log in
English. Scripts, not full language identification: Japanese (kana/kanji) against Latin text is what
the product meets and what can be told apart reliably in a few hundred characters."""
from __future__ import annotations

from precis.engine.prompts.layout import is_japanese

LATIN_NAMES = {"english", "en", "french", "german", "spanish", "italian", "portuguese", "dutch", "français",
               "deutsch", "español"}
MIN_LETTERS = 40           # below this a reply is judged only when its script is plain
MIN_SHORT_LATIN = 8        # a short reply with this many Latin letters and no kana/kanji is Latin text
MIN_SHORT_CJK = 2


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
        # A note or a heading is short, and the 1.5B model answered Japanese sentences in English ones
        # ("The SDL usage for Windows was corrected to H.264"): judged when its script is plain.
        if cjk >= MIN_SHORT_CJK and cjk >= 0.2 * (cjk + latin):
            return "cjk"
        return "latin" if cjk == 0 and latin >= MIN_SHORT_LATIN else ""
    # Japanese prose carries Latin names and numbers; 20% kana/kanji already means Japanese.
    return "cjk" if cjk >= 0.2 * (cjk + latin) else "latin"


def named_language(text: str) -> str | None:
    """The language to name in a prompt for a document in this script: "Japanese", or None (Latin text:
    "the same language as the content", Precis cannot tell English from French by script). Asked for
    "the same language as the content", the 1.5B model reworded Japanese commit messages in English."""
    return "Japanese" if script_of(text) == "cjk" else None


def expected_script(requested_language: str | None, source: str) -> str:
    if requested_language:
        name = requested_language.strip().lower()
        if is_japanese(name):
            return "cjk"
        if name in LATIN_NAMES:
            return "latin"
        return ""                     # a language Precis cannot check by script: not judged
    return script_of(source)


def foreign_ideographs(text: str, source: str) -> set[str]:
    """The ideographs of ``text`` that Japanese is not written with, unless ``source`` holds them: those
    outside JIS X 0208 with its Windows extensions (code page 932, which every kanji of ordinary Japanese
    text is in). Qwen, trained on much Chinese, slips into simplified Chinese inside Japanese: on a
    development novel its notes and headings wrote "银河ステーション" for "銀河ステーション" and "车掌的红帽子"
    (车, 红, 为: none of them in code page 932, as 銀, 車, 紅 are). Simplified forms Japanese shares (与, 厨,
    残, 学) are not told apart, and a rare kanji of a name passes when the source writes it."""
    found = set()
    for ch in text:
        if ("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff") and ch not in source:
            try:
                ch.encode("cp932")
            except UnicodeEncodeError:
                found.add(ch)
    return found


def wrong_language(reply: str, source: str, requested_language: str | None) -> bool:
    """True when ``reply`` is not in the language asked for (``requested_language``, else the script of
    ``source``); asked for Japanese, a reply with a character of Chinese that ``source`` lacks is not."""
    want = expected_script(requested_language, source)
    got = script_of(reply)
    if want and got and want != got:
        return True
    return is_japanese(requested_language) and bool(foreign_ideographs(reply, source))
