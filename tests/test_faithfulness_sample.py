"""bench/faithfulness_sample.py: sentences drawn from kept account runs with their quotes and context, and the
share of those a person labelled faithful."""
from __future__ import annotations

import json

import bench.quality
from bench.faithfulness_sample import draw, score


def _kept_run(keep, corpus, text: str, lines: list[dict], notes: list[dict], strategy: str = "account") -> None:
    (corpus / "qmsum").mkdir(parents=True)
    (corpus / "qmsum" / "val_X1.json").write_text(json.dumps({"text": text}), encoding="utf-8")
    run_dir = keep / "data" / "runs" / "2026-11-30-000000-abc"
    run_dir.mkdir(parents=True)
    name = "qmsum__val__X1.txt"              # as a bench run names it
    (run_dir / "2026-11-30-run.json").write_text(json.dumps({"strategy": strategy, "documents": [{"name": name}]}),
                                                 encoding="utf-8")
    (run_dir / "state.json").write_text(json.dumps({"evidence": {name: lines}, "notes": {name: notes}}),
                                        encoding="utf-8")


def _budget_text_and_note(sentences: int):
    """A text of numbered budget sentences, and the note quoting its sentence k as note ``note_id``."""
    text = " ".join(f"Sentence {i} says the budget is {i} euros." for i in range(sentences))

    def note(note_id: int, k: int, **fields) -> dict:
        quote = f"Sentence {k} says the budget is {k} euros."
        start = text.index(quote)
        return {"id": note_id, "quote": quote, "start_char": start, "end_char": start + len(quote), **fields}
    return text, note


def test_lines_are_drawn_over_the_whole_account_with_their_quotes_and_the_text_around_them(tmp_path, monkeypatch):
    text, note = _budget_text_and_note(200)
    notes, lines = [], []
    for i in range(20):
        notes.append(note(i + 1, i * 10))
        lines.append({"text": f"The budget is {i * 10} euros.", "part": i // 5, "notes": [i + 1]})
    _kept_run(tmp_path / "keep", tmp_path / "corpus", text, lines, notes)
    monkeypatch.setattr(bench.quality, "CORPUS", tmp_path / "corpus")
    rows = draw(tmp_path / "keep", per_doc=4, seed=1)
    assert len(rows) == 4 and len({r["part"] for r in rows}) == 4          # spread over the account
    for r in rows:
        assert r["quotes"][0] in text and r["quotes"][0] in r["context"][0]
        assert len(r["context"][0]) > len(r["quotes"][0]) and r["faithful"] is None


def test_the_score_counts_only_labelled_sentences_and_lists_the_unfaithful_ones():
    rows = [{"doc": "a", "sentence": "s1", "faithful": True, "why": ""},
            {"doc": "a", "sentence": "s2", "faithful": False, "why": "who said it, swapped"},
            {"doc": "b", "sentence": "s3", "faithful": True, "why": "vague"},
            {"doc": "b", "sentence": "s4", "faithful": None, "why": ""}]
    got = score(rows)
    assert got["labelled"] == 3 and got["faithful_share"] == 0.667 and got["vague"] == 1
    assert got["by_doc"] == {"a": "1/2", "b": "1/1"} and got["unfaithful"][0]["sentence"] == "s2"


def test_lines_the_second_reading_refused_are_scored_apart_from_the_accounts():
    rows = [{"doc": "a", "sentence": "kept", "faithful": True, "why": "", "kept": True},
            {"doc": "a", "sentence": "kept too", "faithful": False, "why": "", "kept": True},
            {"doc": "a", "sentence": "refused", "faithful": False, "why": "", "kept": False},
            {"doc": "a", "sentence": "refused too", "faithful": False, "why": "", "kept": False}]
    got = score(rows)
    assert got["labelled"] == 2 and got["faithful_share"] == 0.5
    assert got["refused_by_second_reading_faithful"] == "0/2"
    assert "refused_by_second_reading_faithful" not in score(rows[:2])


def test_the_replay_rebuilds_each_labelled_line_from_its_kept_run_and_counts_what_todays_checks_refuse(
        tmp_path, monkeypatch):
    import hashlib

    from bench.account_replay import counts, replayed
    text = ("The courier climbed out of the truck at dawn. The courier handed Maris a sealed letter. Maris read "
            "the letter twice and burned it. The courier drove away without a word.\n")
    (tmp_path / "corpus" / "squality").mkdir(parents=True)
    (tmp_path / "corpus" / "squality" / "dev_1.json").write_text(json.dumps({"text": text}), encoding="utf-8")
    monkeypatch.setattr(bench.quality, "CORPUS", tmp_path / "corpus")
    name = "squality__dev__1.txt"
    written = ["The courier hands Maris a sealed letter.", "Maris hands the courier a sealed letter.",
               "Maris reads the letter twice and burns it."]
    notes = [{"id": 1, "quote": "The courier handed Maris a sealed letter."}]
    state = {"run_id": "r1", "strategy": "account", "layout": {"preset": "generic", "date": "", "language": None},
             "documents": [{"name": name, "chars": len(text), "chunks": [[0, len(text), 0, 40]],
                            "text_sha256": hashlib.sha256(text.encode()).hexdigest()}],
             "evidence": {name: [{"text": t, "part": 0, "notes": [1]} for t in written]}, "notes": {name: notes}}
    (tmp_path / "keep" / "run").mkdir(parents=True)
    (tmp_path / "keep" / "run" / "state.json").write_text(json.dumps(state), encoding="utf-8")
    rows = [{"doc": name, "line": i, "part": 0, "sentence": t, "faithful": i != 1} for i, t in enumerate(written)]
    rows.append({"doc": name, "line": 7, "part": 0, "sentence": "Maris leaves.", "faithful": True})
    found, apart = replayed(rows, [tmp_path / "keep"])
    assert [row["line"] for row, _ in apart] == [7] and len(found) == 3
    verdicts = {r.row["line"]: r.checks for r in found}
    assert "roles_swapped" in verdicts[1] and not verdicts[0] and not verdicts[2]
    assert found[0].same_references and not found[2].same_references     # the run linked line 2 elsewhere
    got = counts(found)
    assert got["all"] == {"lines": 3, "caught": "1/1", "faithful_refused": "0/2"}
    assert got["by_check"]["roles_swapped"]["caught"] == 1 and got["by_doc"]["squality__dev__1"]["lines"] == 3


def test_refused_lines_are_scored_by_each_check_that_refused_them():
    rows = [{"doc": "a", "sentence": "kept", "faithful": True, "why": "", "kept": True, "refused_by": []},
            {"doc": "a", "sentence": "asked", "faithful": False, "why": "", "kept": False,
             "refused_by": ["asks_unasked"]},
            {"doc": "a", "sentence": "both", "faithful": True, "why": "", "kept": False,
             "refused_by": ["speaker_swapped", "asks_unasked"]},
            {"doc": "a", "sentence": "read", "faithful": False, "why": "", "kept": False,
             "refused_by": ["second_reading"]}]
    got = score(rows)
    assert got["labelled"] == 1
    assert got["refused_by_asks_unasked_faithful"] == "1/2"
    assert got["refused_by_speaker_swapped_faithful"] == "1/1"
    assert got["refused_by_second_reading_faithful"] == "0/1"


def test_the_notes_strategys_bullets_are_drawn_without_their_headings_and_with_their_notes_part(tmp_path, monkeypatch):
    text, note = _budget_text_and_note(50)
    notes, lines = [], []
    for i in range(6):
        notes.append(note(i + 1, i * 5, part=i // 2))
        if i % 2 == 0:
            lines.append({"text": f"## Budget, part {i // 2}", "notes": []})
        lines.append({"text": f"- The budget is {i * 5} euros.", "notes": [i + 1]})
    _kept_run(tmp_path / "keep", tmp_path / "corpus", text, lines, notes, strategy="notes")
    monkeypatch.setattr(bench.quality, "CORPUS", tmp_path / "corpus")
    assert draw(tmp_path / "keep", per_doc=3, seed=1) == []                # not an account run
    rows = draw(tmp_path / "keep", per_doc=6, seed=1, strategy="notes")
    assert [r["sentence"] for r in rows] == [f"The budget is {i * 5} euros." for i in range(6)]
    assert [r["part"] for r in rows] == [0, 0, 1, 1, 2, 2]
    assert [r["line"] for r in rows] == [1, 2, 4, 5, 7, 8]            # each bullet's place, headings counted


def test_a_document_whose_id_is_not_its_folders_name_is_still_found(tmp_path, monkeypatch):
    from bench.faithfulness_sample import _document_text
    corpus = tmp_path / "corpus"
    (corpus / "poliinfo_tokyo").mkdir(parents=True)
    (corpus / "poliinfo_tokyo" / "tokyo-assembly_2020-02-26.json").write_text(
        json.dumps({"id": "poliinfo/tokyo-assembly_2020-02-26", "text": "議長：開会します。"}), encoding="utf-8")
    monkeypatch.setattr(bench.quality, "CORPUS", corpus)
    # a bench run names it by its id: "poliinfo__tokyo-assembly__2020-02-26.txt", not by its folder
    assert _document_text("poliinfo__tokyo-assembly__2020-02-26.txt") == "議長：開会します。"
    assert _document_text("poliinfo__tokyo-assembly__2020-02-27.txt") == ""


def _two_notes_runs(tmp_path, monkeypatch):
    """Two kept notes runs of one document: four bullets each, two of them the same in both."""
    text, note = _budget_text_and_note(20)
    notes = [note(i + 1, i) for i in range(6)]
    base = [{"text": "## Budget", "notes": []}] + [{"text": f"- The budget is {i} euros.", "notes": [i + 1]}
                                                   for i in range(4)]
    after = [{"text": "## Budget", "notes": []}] + [{"text": f"- The budget is {i} euros.", "notes": [i + 1]}
                                                    for i in (0, 1)] + [
        {"text": f"- Budget: {i} euros.", "notes": [i + 1]} for i in (4, 5)]
    _kept_run(tmp_path / "before", tmp_path / "corpus", text, base, notes, strategy="notes")
    _kept_run(tmp_path / "after", tmp_path / "corpus2", text, after, notes, strategy="notes")
    monkeypatch.setattr(bench.quality, "CORPUS", tmp_path / "corpus")


def test_two_runs_bullets_are_merged_and_shuffled_for_a_blind_labeller_with_the_key_kept_apart(tmp_path, monkeypatch):
    from bench.faithfulness_sample import pair
    _two_notes_runs(tmp_path, monkeypatch)
    key = pair(tmp_path / "pair", {"before": [tmp_path / "before"], "after": [tmp_path / "after"]})
    items = json.loads((tmp_path / "pair" / "qmsum__val__X1.items.json").read_text(encoding="utf-8"))
    # six items: the two bullets both runs hold are one item each; no heading
    assert sorted(i["sentence"] for i in items) == sorted(
        [f"The budget is {i} euros." for i in range(4)] + ["Budget: 4 euros.", "Budget: 5 euros."])
    assert [i["id"] for i in items] == list(range(6))
    assert all(set(i) == {"id", "sentence", "quotes", "context"} for i in items)     # nothing says whose it is
    assert all(i["quotes"][0] in i["context"][0] for i in items)                     # each quote in its context
    shown = [i["sentence"] for i in items]
    in_run_order = [f"The budget is {i} euros." for i in range(4)] + ["Budget: 4 euros.", "Budget: 5 euros."]
    assert shown != in_run_order                                                        # shuffled
    entries = key["qmsum__val__X1"]
    assert [e["sentence"] for e in entries] == shown
    holders = {e["sentence"]: e["in"] for e in entries}
    assert holders["The budget is 0 euros."] == ["before", "after"] and holders["Budget: 4 euros."] == ["after"]
    assert holders["The budget is 3 euros."] == ["before"]
    assert (tmp_path / "pair.key.json").exists() and not list((tmp_path / "pair").glob("*key*"))
    assert (tmp_path / "pair" / "qmsum__val__X1.document.txt").read_text(encoding="utf-8").startswith("Sentence 0")


def test_the_labels_are_joined_to_the_key_and_counted_for_each_run(tmp_path, monkeypatch):
    from bench.faithfulness_sample import collect, pair
    _two_notes_runs(tmp_path, monkeypatch)
    key = pair(tmp_path / "pair", {"before": [tmp_path / "before"], "after": [tmp_path / "after"]})
    items = json.loads((tmp_path / "pair" / "qmsum__val__X1.items.json").read_text(encoding="utf-8"))
    # the labeller finds "The budget is 3 euros." and "Budget: 5 euros." unfaithful
    wrong = {"The budget is 3 euros.", "Budget: 5 euros."}
    (tmp_path / "pair" / "qmsum__val__X1.labels.jsonl").write_text(
        "".join(json.dumps({"id": i["id"], "faithful": i["sentence"] not in wrong, "why": "read"}) + "\n"
                for i in items) + "\n", encoding="utf-8")
    rows, counts = collect(tmp_path / "pair", key, "abc1234", "a test")
    assert counts == {"qmsum__val__X1": {"before": "3/4", "after": "3/4"}}
    assert len(rows) == 6 and {r["sentence"] for r in rows if not r["faithful"]} == wrong
    assert all(r["commit"] == "abc1234" and r["labelled_by"] == "a test" and r["doc"] == "qmsum__val__X1.txt"
               for r in rows)
    assert {r["sentence"]: r["in_runs"] for r in rows}["Budget: 5 euros."] == ["after"]
    (tmp_path / "pair" / "qmsum__val__X1.labels.jsonl").unlink()
    assert collect(tmp_path / "pair", key, "abc1234", "a test") == ([], {})       # nothing labelled yet
