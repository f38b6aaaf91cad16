"""Every named check on its own examples: the failures it must refuse and the fair cases it must pass."""
from __future__ import annotations

import pytest

from precis.engine.summary.checks import ACCOUNT_LINE, Claim, judge, registered

REFUSALS = [(c.name, e) for c in registered() for e in c.refuses]
PASSES = [(c.name, e) for c in registered() for e in c.passes]


def test_every_check_has_a_name_of_its_own_and_examples_both_ways():
    names = [c.name for c in registered()]
    assert len(names) == len(set(names))
    for check in registered():
        assert check.refuses and check.passes, check.name


@pytest.mark.parametrize("name, example", REFUSALS, ids=[f"{n}-refuses-{i}" for i, (n, _) in enumerate(REFUSALS)])
def test_a_check_refuses_its_failures(name, example):
    check = next(c for c in registered() if c.name == name)
    assert check.reads(example.claim), f"{name} does not read {example.claim.text!r}"
    assert check.test(example.claim), f"{name} let through {example.claim.text!r} ({example.why})"


@pytest.mark.parametrize("name, example", PASSES, ids=[f"{n}-passes-{i}" for i, (n, _) in enumerate(PASSES)])
def test_a_check_passes_its_fair_cases(name, example):
    """A fair case passes the check, or is in a language the check does not read (judge leaves it alone)."""
    check = next(c for c in registered() if c.name == name)
    assert not check.reads(example.claim) or check.test(example.claim) is None, \
        f"{name} refused {example.claim.text!r} ({example.why})"


def test_judge_names_every_check_that_refused_and_skips_checks_of_other_languages():
    from precis.engine.summary.alignment import PartIndex
    part = "Maitland remained standing, staring at the closed door for a minute after she was gone."
    text = "He remained standing, staring at the closed door for a minute after she was gone?"
    verdict = judge(Claim(text, part, PartIndex(part).align(text)), ACCOUNT_LINE)
    assert {"lifted", "question", "opener"} <= set(verdict.names) and not verdict.passed
    japanese = judge(Claim(text, part, PartIndex(part).align(text), language="Japanese"), ACCOUNT_LINE)
    assert "opener" not in japanese.names and "lifted" in japanese.names


def test_a_speakers_label_ties_a_line_to_no_sentence_but_holds_its_naming_of_the_speaker():
    """Alignment in a transcript: a backchannel ("Industrial Designer: Yeah .") is never a reference for the
    label's words, a sentence is said by the turn it is in, and a line naming its speaker is held by the label."""
    from precis.engine.summary.alignment import PartIndex
    part = ("Project Manager: So first, let's see the prototype.\nIndustrial Designer: Yeah .\n"
            "User Interface: and then we'll give some technical specifications .\n"
            "Industrial Designer: Uh, here we have our prototype model. It has a kinetic battery.\nMarketing: Mm .\n")
    index = PartIndex(part)
    assert [s.speaker for s in index.sentences if "kinetic" in s.text] == ["Industrial Designer"]
    wrong = index.align("Industrial Designer explains the technical specifications.")
    assert [s.speaker for s in wrong.references] == ["User Interface"] and wrong.held_share < 0.5
    right = index.align("The Industrial Designer shows the prototype with a kinetic battery.")
    assert "Industrial Designer" in {s.speaker for s in right.references} and right.held_share > 0.8
    story = "Chapter 1: The Start\nBruce looked at the mountain. It was cold.\n"
    assert not any(s.speaker for s in PartIndex(story).sentences)      # one label is no transcript


def test_the_checks_doc_names_every_check():
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[2] / "docs" / "quality-checks.md").read_text(encoding="utf-8")
    assert [c.name for c in registered() if f"`{c.name}`" not in doc] == []
