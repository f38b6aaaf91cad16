"""bench/topic_sections_probe.py: the cut at word shifts, and its scores, on a meeting made up here."""
from __future__ import annotations

import json

from bench.topic_sections_probe import balanced, cut_at_shifts, gap_shifts, hits, main, purity, shifts


def test_the_cuts_fall_where_the_words_change_and_the_sections_keep_their_bounds():
    lines = [f"A: the budget for the remote costs twelve euros {i}" for i in range(6)] + \
            [f"B: the rubber case feels spongy in the hand {i}" for i in range(6)]
    by_turn = shifts(lines, window_chars=120)
    assert max(range(1, len(lines)), key=lambda t: by_turn[t]) == 6          # where the talk turns to the case
    notes = [0, 2, 4, 5, 7, 9, 11]                                           # notes placed on those turns
    gaps = gap_shifts(notes, by_turn)
    sections = cut_at_shifts(gaps, len(notes), 2)
    assert sections == [(0, 4), (4, 7)]                                      # the cut between turns 5 and 7
    topics = [0, 0, 0, 0, 1, 1, 1]
    assert purity(sections, topics) == 1.0 and hits(sections, topics) == 1
    assert balanced(7, 2) == [(0, 4), (4, 7)] and balanced(8, 3) == [(0, 3), (3, 6), (6, 8)]
    # no cut fits the bounds: today's sections
    assert cut_at_shifts([0.0] * 9, 10, 2, lo=6, hi=8) == balanced(10, 2)


def test_the_probe_reports_each_meeting_and_all(tmp_path, capsys):
    turns = [f"A: the budget for the remote costs twelve euros {i}" for i in range(20)] + \
            [f"B: the rubber case feels spongy in the hand {i}" for i in range(20)]
    doc = {"id": "qmsum/val/made-up", "text": "\n".join(turns),
           "topics": [{"topic": "budget", "relevant_text_span": [["0", "19"]]},
                      {"topic": "case", "relevant_text_span": [["20", "39"]]}]}
    (tmp_path / "made-up.json").write_text(json.dumps(doc), encoding="utf-8")
    assert main(["--corpus", str(tmp_path), "--notes", "12", "--trials", "3", "--window-chars", "200"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("qmsum/val/made-up") and out[-1].startswith("all")
    today, shifted = (float(x) for x in out[-1].split("purity ")[1].split()[0::2][:2])
    assert shifted >= today and shifted == 1.0                               # one clean change of topic, found
