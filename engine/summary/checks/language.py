"""Checks that a written text is in the language asked for (the document's own by default): by script
(engine.summary.language), and, asked for Japanese, without the Chinese the model slips into."""
from __future__ import annotations

from precis.engine.summary.checks import (
    ACCOUNT_MERGE,
    HEADING,
    MERGE,
    REWORDING,
    Check,
    Claim,
    Example,
    heading_claim,
    merge_claim,
)
from precis.engine.summary.checks import note_example as _note
from precis.engine.summary.checks.grounding import TITANIUM
from precis.engine.summary.language import wrong_language


def _wrong_language(claim: Claim) -> str | None:
    """A note is held to its sentence's script, a merge to its notes'."""
    if wrong_language(claim.text, claim.rests_on, claim.language):
        return f"not in {claim.language or 'the language of what it rests on'}"
    return None


def _cjk(text: str) -> bool:
    return any(ord(c) > 0x3000 for c in text)


def _heading_language(claim: Claim) -> str | None:
    """A heading is held to its notes and their quotes; one with kana or kanji over notes of none is another
    language's, however few its letters."""
    if wrong_language(claim.text, claim.evidence, claim.language) or (_cjk(claim.text) and not _cjk(claim.evidence)):
        return f"not in {claim.language or 'the language of its notes'}"
    return None


COMMIT = "Windows のビルドにアーキテクチャを追加する"
STATION = ("するとどこかで、ふしぎな声が、銀河ステーション、銀河ステーションと言う声がしたと思うと、"
           "眼の前が明るくなった。")
CONDUCTOR = "「切符を拝見いたします」三人の席の横に、赤い帽子をかぶったせいの高い車掌が立っていて言いました。"
TICKET = (("赤い帽子の車掌が切符を拝見", CONDUCTOR),)

CHECKS = (
    Check("wrong_language", frozenset({REWORDING, MERGE, ACCOUNT_MERGE}), None, _wrong_language,
          refuses=(Example(_note("The Windows build gets an architecture", COMMIT),
                           "a Japanese commit said in English (development project log)"),
                   Example(_note("The Windows build gets an architecture", COMMIT, "Japanese"), "asked for Japanese"),
                   Example(_note("银河ステーションでふしぎな声を聞くと明るくなる", STATION, "Japanese"),
                           "Chinese 银 for 銀 (development novel)"),
                   Example(merge_claim("The Windows build and its settings were changed",
                                       ((COMMIT,) * 2, ("x86_64 向けの設定ファイルを分けました",) * 2), None),
                           "a merge of Japanese notes, in English")),
          passes=(Example(_note("銀河ステーションでふしぎな声を聞くと明るくなる", STATION, "Japanese"), "Japanese"),
                  Example(_note("Windows 版", COMMIT), "too little to tell"),
                  Example(_note("次のステップは厨房の準備を実装計画に分解", "厨房の準備を実装計画に分解します。",
                                "Japanese"),
                          "a simplified form Japanese writes too"),
                  Example(_note("鹺の漁を手伝う", "鹺の漁を手伝うことにした。", "Japanese"),
                          "a rare kanji the sentence itself holds"))),
    Check("heading_wrong_language", frozenset({HEADING}), None, _heading_language,
          refuses=(Example(heading_claim("车掌的红帽子と捕食行为", TICKET, "Japanese"),
                           "Chinese in a Japanese heading (development novel)"),
                   Example(heading_claim("Titanium case 蔬菜", TITANIUM, None), "Chinese over English notes"),
                   Example(heading_claim("Windows build changes", ((COMMIT,) * 2,), "Japanese"),
                           "English over Japanese notes (development project log)")),
          passes=(Example(heading_claim("車掌の赤い帽子と切符", TICKET, "Japanese"),
                          "Japanese"),
                  Example(heading_claim("Titanium case for the remote", TITANIUM, None), "English"))),
)
