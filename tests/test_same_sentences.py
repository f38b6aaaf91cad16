"""bench.same_sentences: a notes run's choice of sentences recorded and replayed (with the fake runtime, so the
replay is the only thing that can make two runs choose alike), and the blind readers' pairs and tally."""
import json
import re

from bench.same_sentences import ChoiceLog, choices, pairs, tally
from tests.engine.notes_fixtures import generic_notes_run
from tests.fake_runtime import diligent
from tests.summary_fixtures import meeting_transcript

TEXT = "\n".join([meeting_transcript()] * 6)


def _quotes(state) -> list[str]:
    return [n["quote"] for n in next(iter(state.notes.values()))]


def test_a_replayed_run_notes_the_sentences_the_recorded_one_chose_and_only_those(tmp_path):
    record = tmp_path / "choice.json"
    with choices(ChoiceLog(record, replaying=False)):
        _, recorded = generic_notes_run(diligent, TEXT)
    starts = json.loads(record.read_text())
    assert starts and all(starts.values())
    with choices(ChoiceLog(record, replaying=True)) as log:
        _, replayed = generic_notes_run(diligent, TEXT)
    assert _quotes(replayed) == _quotes(recorded) and log.unrecorded == 0
    # a record holding one sentence a part: the replay notes that one, where the run would choose more
    record.write_text(json.dumps({key: chosen[:1] for key, chosen in starts.items()}))
    with choices(ChoiceLog(record, replaying=True)):
        _, one_each = generic_notes_run(diligent, TEXT)
    assert len(_quotes(one_each)) == len(starts) < len(_quotes(recorded))
    assert set(_quotes(one_each)) < set(_quotes(recorded))


def test_outside_the_context_the_run_chooses_as_before(tmp_path):
    from precis.engine.summary import notes_extraction, salience
    record = tmp_path / "choice.json"
    record.write_text("{}")
    with choices(ChoiceLog(record, replaying=True)) as log:
        _, afresh = generic_notes_run(diligent, TEXT)
    assert log.unrecorded > 0                     # nothing recorded: every part chosen as usual, and said
    assert notes_extraction.select_sentences is salience.select_sentences
    _, plain = generic_notes_run(diligent, TEXT)
    assert _quotes(afresh) == _quotes(plain)


def _kept(folder, notes: list[dict]) -> None:
    run = folder / "data" / "runs" / "r1"
    run.mkdir(parents=True)
    name = "qmsum__val__TS3009b.txt"
    run.joinpath("state.json").write_text(json.dumps({"notes": {name: notes}, "evidence": {name: []}}))
    run.joinpath("2026-11-30-run.json").write_text(json.dumps({"strategy": "notes", "documents": [{"name": name}]}))


def _note(start: int, point: str) -> dict:
    return {"id": start, "start_char": start, "end_char": start + 20, "point": point, "quote": f"sentence at {start}"}


def test_pairs_set_each_sentences_two_differing_notes_before_one_reader_and_tally_joins_the_labels(tmp_path):
    a, b, out = tmp_path / "a", tmp_path / "b", tmp_path / "pairs"
    _kept(a, [_note(10, "Marketing says the price is 25 euros"), _note(50, "Ben asks about May"),
              _note(90, "Only in A")])
    _kept(b, [_note(10, "Marketing says the price is 25 euros."), _note(50, "Ben proposes May"),
              _note(130, "Only in B")])
    counts = pairs(a, b, out)
    assert counts == {"qmsum__val__TS3009b.txt": {"a": 3, "b": 3, "both": 2, "differ": 1}}
    items = json.loads((out / "qmsum__val__TS3009b" / "items.json").read_text())
    assert sorted(i["line"] for i in items) == ["Ben asks about May", "Ben proposes May"]
    assert all("version" not in i and i["quote"] == "sentence at 50" for i in items)      # blind: no key
    key = json.loads(out.with_suffix(".key.json").read_text())
    faithful = {k["id"]: k["version"] == "A" for k in key}          # the reader finds A's note faithful
    (out / "qmsum__val__TS3009b" / "labels.jsonl").write_text(
        "".join(json.dumps({"id": i, "faithful": f, "why": "x"}) + "\n" for i, f in faithful.items()))
    counts, rows = tally(out)
    assert counts == {"qmsum__val__TS3009b.txt": {"pairs": 1, "A": 1, "B": 0, "better": 0, "worse": 1}}
    assert sorted((r["version"], r["faithful"]) for r in rows) == [("A", True), ("B", False)]
    assert all(re.match(r"Ben ", r["line"]) and r["pair"] == 0 for r in rows)
