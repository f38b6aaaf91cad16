"""bench/results/INDEX.md has a row for every results file, and says truly where each one is.

The retention rule (bench/README.md, "Results: what is kept"): a run's file stays while the docs cite it or it is
the latest of its question; the others leave the tree and their row says which commit still has them. Without a
row a file is a number nobody can place; with a wrong row a removed run cannot be found again.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
_ROW = re.compile(r"^\| [^|]+ \| (?P<tag>[^|]+?) \| .*\| (?P<where>[^|]+?) \|$")
_REMOVED = re.compile(r"^removed: `git show (?P<commit>[0-9a-f]{7,40}):bench/results/(?P<name>[\w.-]+)`$")


def tag_of(name: str) -> str:
    """quality-final19.json -> final19; selection-wrap-after.json and latest.json keep their stem."""
    return name.removesuffix(".json").removeprefix("quality-")


def index_rows(text: str) -> dict[str, str]:
    rows = {}
    for line in text.splitlines():
        if (match := _ROW.match(line)) and match["tag"] not in ("tag", "---"):
            rows[match["tag"]] = match["where"]
    return rows


def problems(rows: dict[str, str], files: set[str]) -> list[str]:
    """What INDEX.md gets wrong about the files in the folder (names, not paths)."""
    found = [f"{name}: no row in INDEX.md" for name in sorted(files) if tag_of(name) not in rows]
    by_tag = {tag_of(name): name for name in files}
    for tag, where in rows.items():
        if where == "kept" and tag not in by_tag:
            found.append(f"{tag}: INDEX.md says kept, but no file has this tag")
        elif (removed := _REMOVED.match(where)) is None and where != "kept":
            found.append(f"{tag}: where is neither 'kept' nor 'removed: `git show COMMIT:bench/results/NAME`'")
        elif removed and tag in by_tag:
            found.append(f"{tag}: INDEX.md says removed, but {by_tag[tag]} is still here")
        elif removed and tag_of(removed["name"]) != tag:
            found.append(f"{tag}: its removed row names another file, {removed['name']}")
    return found


def test_every_results_file_has_a_true_row():
    files = {p.name for p in RESULTS.glob("*.json")}
    assert problems(index_rows((RESULTS / "INDEX.md").read_text(encoding="utf-8")), files) == []


def test_every_removed_run_can_be_read_again_from_the_commit_its_row_gives():
    rows = index_rows((RESULTS / "INDEX.md").read_text(encoding="utf-8"))
    removed = [m for where in rows.values() if (m := _REMOVED.match(where))]
    assert removed, "the index lists no removed run: the rule has never been applied"
    unreadable = [f"{m['commit']}:{m['name']}" for m in removed
                  if subprocess.run(["git", "cat-file", "-e", f"{m['commit']}:bench/results/{m['name']}"],
                                    cwd=ROOT, capture_output=True).returncode != 0]
    assert unreadable == []


def test_the_checker_sees_each_kind_of_mistake():
    rows = {"final19": "kept", "dev1": "removed: `git show 381d8c8:bench/results/quality-dev1.json`",
            "gone": "kept", "sal1": "deleted", "dev2": "removed: `git show 381d8c8:bench/results/quality-dev1.json`"}
    files = {"quality-final19.json", "quality-new.json", "quality-dev1.json"}
    assert problems(rows, files) == [
        "quality-new.json: no row in INDEX.md",
        "dev1: INDEX.md says removed, but quality-dev1.json is still here",
        "gone: INDEX.md says kept, but no file has this tag",
        "sal1: where is neither 'kept' nor 'removed: `git show COMMIT:bench/results/NAME`'",
        "dev2: its removed row names another file, quality-dev1.json"]
    assert problems({"final19": "kept"}, {"quality-final19.json"}) == []
