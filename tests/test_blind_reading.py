"""bench/blind_reading.py's pieces that need no model: several results files merged, pairs written blind."""
import json

from bench.blind_reading import merged, stripped, tally, write_pairs


def _run(doc, strategy, summary):
    return {"doc": doc, "strategy": strategy, "summary": summary}


def test_a_later_file_replaces_an_earlier_run_of_the_same_document_and_strategy():
    old = {"runs": [_run("s/a", "account", "old account"), _run("s/a", "plain", "plain one")]}
    new = {"runs": [_run("s/a", "account", "new account"), _run("s/a", "notes", "the notes")]}
    runs = {(r["doc"], r["strategy"]): r for r in merged([("first", old), ("second", new)])["runs"]}
    assert runs[("s/a", "account")]["summary"] == "new account"
    assert runs[("s/a", "account")]["from"] == "second"
    assert runs[("s/a", "plain")]["from"] == "first"
    assert runs[("s/a", "notes")]["summary"] == "the notes"


def test_pairs_hide_the_strategy_and_the_key_says_which_file_each_came_from(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "s").mkdir(parents=True)
    (corpus / "s" / "a.json").write_text(json.dumps({"title": "A story", "references": [{"text": "Human."}]}))
    results = merged([("check-account-6", {"runs": [_run("s/a", "account", "Bruce climbs. [3, 4]")]}),
                      ("check-notes-1", {"runs": [_run("s/a", "notes", "- Bruce shoots Doran. [7]")]})])
    key = write_pairs(results, ("account", "notes"), tmp_path / "out", None, 1, corpus)
    page = (tmp_path / "out" / "s__a.md").read_text()
    assert "account" not in page and "notes" not in page
    assert "[3, 4]" not in page and "Bruce climbs." in page and "Bruce shoots Doran." in page
    assert sorted(key["s/a"][k] for k in "AB") == ["account", "notes"]
    assert key["s/a"]["from"] == {"account": "check-account-6", "notes": "check-notes-1"}
    assert json.loads((tmp_path / "out" / "key.json").read_text()) == key


def test_a_document_without_both_summaries_is_left_out(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "s").mkdir(parents=True)
    (corpus / "s" / "a.json").write_text(json.dumps({"references": [{"text": "Human."}]}))
    key = write_pairs({"runs": [_run("s/a", "account", "x")]}, ("account", "notes"), tmp_path / "o", None, 0, corpus)
    assert key == {}
    assert stripped("One. [12]\nTwo [3, 4]") == "One.\nTwo"


def test_a_pair_read_in_both_orders_counts_only_where_both_readers_agree(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "s").mkdir(parents=True)
    for doc in ("a", "b", "c"):
        (corpus / "s" / f"{doc}.json").write_text(json.dumps({"references": [{"text": "Human."}]}))
    results = {"runs": [_run(f"s/{d}", strategy, f"{strategy} of {d}") for d in "abc" for strategy in ("x", "y")]}
    key = write_pairs(results, ("x", "y"), tmp_path / "o", None, 3, corpus, both_orders=True)
    for doc in "abc":
        page, swapped = ((tmp_path / "o" / f"s__{doc}{suffix}.md").read_text() for suffix in ("", ".swapped"))
        first = key[f"s/{doc}"]["A"]
        assert page.index(f"{first} of {doc}") < page.index("## Summary B")
        assert swapped.index(f"{first} of {doc}") > swapped.index("## Summary B")      # A and B exchanged
        assert key[f"s/{doc}"]["swapped"] == {"A": key[f"s/{doc}"]["B"], "B": first}
    # a reader who always answers "A" prefers neither; two readers who choose the same summary, it
    a_side = key["s/b"]["A"]
    verdicts = {"s__a": "A", "s__a.swapped": "A", "s__b": "A", "s__b.swapped": "B", "s__c": "B"}
    assert tally(key, verdicts) == {"s/a": "none", "s/b": a_side, "s/c": key["s/c"]["B"]}
