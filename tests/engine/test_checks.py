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
    assert check.test(example.claim), f"{name} let through {example.claim.text!r} ({example.why})"


@pytest.mark.parametrize("name, example", PASSES, ids=[f"{n}-passes-{i}" for i, (n, _) in enumerate(PASSES)])
def test_a_check_passes_its_fair_cases(name, example):
    check = next(c for c in registered() if c.name == name)
    assert check.test(example.claim) is None, f"{name} refused {example.claim.text!r} ({example.why})"


def test_judge_names_every_check_that_refused_and_skips_checks_of_other_languages():
    from precis.engine.summary.alignment import PartIndex
    part = "Maitland remained standing, staring at the closed door for a minute after she was gone."
    text = "He remained standing, staring at the closed door for a minute after she was gone?"
    verdict = judge(Claim(text, part, PartIndex(part).align(text)), ACCOUNT_LINE)
    assert {"lifted", "question", "opener"} <= set(verdict.names) and not verdict.passed
    japanese = judge(Claim(text, part, PartIndex(part).align(text), language="Japanese"), ACCOUNT_LINE)
    assert "opener" not in japanese.names and "lifted" in japanese.names
