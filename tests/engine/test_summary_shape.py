"""The preset's summary shape applied by code to the notes strategy's sections (engine.summary.summary_shape)."""
from __future__ import annotations

import json

import pytest

from precis.engine.errors import BadInput
from precis.engine.prompts.presets import load_preset
from precis.engine.summary.compaction import Bullet
from precis.engine.summary.evidence import Note
from precis.engine.summary.summary_shape import section_lines, todo_lines


def _bullet(i: int, point: str, quote: str) -> Bullet:
    return Bullet(point, (Note(i, point, quote, "d", 0, 0, len(quote)),))


DAY = [
    _bullet(1, "The assistant set up the nightly backup with rsync", "we set up the nightly backup with rsync"),
    _bullet(2, "Postgres was chosen over SQLite because of concurrent writes",
            "I chose Postgres because SQLite cannot take concurrent writes"),
    _bullet(3, "Always run the migration on a copy first", "always run the migration on a copy first"),
    _bullet(4, "Mika will send the release notice", "Mika will send the release notice by Friday"),
    _bullet(5, "The backup job logs to /var/log/backup", "the job now logs to /var/log/backup"),
]


def test_the_conversation_archive_says_each_topic_in_three_layers_and_closes_with_its_tasks():
    preset = load_preset("conversation-archive")
    lines = section_lines(DAY, preset, None)
    # each layer a subheading over a bullet per note, each bullet citing its own note
    assert [(line.text, line.notes) for line in lines] == [
        ("### Done", []),
        ("- The assistant set up the nightly backup with rsync", [1]),
        ("- The backup job logs to /var/log/backup", [5]),
        ("### Decisions and judgements", []),
        ("- Postgres was chosen over SQLite because of concurrent writes", [2]),
        ("### Reusable patterns", []),
        ("- Always run the migration on a copy first", [3])]
    todo = todo_lines(DAY, preset, None)
    assert [(line.text, line.notes) for line in todo] == [("## TODO", []), ("- Mika will send the release notice", [4])]
    assert section_lines(DAY, preset, "Japanese")[3].text == "### 判断と決定"


def test_minutes_say_an_assigned_task_as_an_action_line_and_a_layerless_preset_keeps_a_bullet_per_note():
    lines = section_lines(DAY, load_preset("meeting-minutes"), None)
    assert [line.text for line in lines][3] == "- Action: Mika will send the release notice"
    assert [line.notes for line in lines] == [[1], [2], [3], [4], [5]]
    assert todo_lines(DAY, load_preset("meeting-minutes"), None) == []
    assert [line.text for line in section_lines(DAY, load_preset("generic"), None)] == [f"- {b.point}" for b in DAY]
    said = _bullet(6, "Marketing: Yes, I will send the colour survey by Friday.",
                   "Marketing: Yes, I will send the colour survey by Friday.")      # a note as it was said
    assert section_lines([said], load_preset("meeting-minutes"), None)[0].text == \
        "- Action — Marketing: Yes, I will send the colour survey by Friday."


def test_a_project_log_sorts_its_changes_into_added_changed_fixed():
    log = [_bullet(1, "Windows のビルドにアーキテクチャを追加", "Windows のビルドにアーキテクチャを追加する"),
           _bullet(2, "JetPack を 4.6 に上げる", "JetPack を 4.6 に変更"),
           _bullet(3, "Jetson のデコーダーの切り抜きを修正", "切り抜いていなかったので修正")]
    lines = section_lines(log, load_preset("project-log"), "Japanese")
    assert [line.text for line in lines if line.text.startswith("###")] == ["### 追加", "### 変更", "### 修正"]
    assert [line.notes for line in lines] == [[], [1], [], [2], [], [3]]
    bump = [_bullet(1, "Bump actions/create-release from 1.0.0 to 1.1.4", "Bump actions/create-release")]
    assert section_lines(bump, load_preset("project-log"), None)[0].text == "### Changed"   # a path, not "create"


def test_a_preset_with_a_broken_cue_is_refused_with_its_name(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"name": "mine", "system": "s", "rules": ["r"],
                                "note_layers": [{"label": "Done"}, {"label": "Why", "cue": "because("}]}))
    with pytest.raises(BadInput, match="mine.json is not valid"):
        load_preset(str(path))


def _subject(i: int, subject: str, start: int) -> Bullet:
    return Bullet(subject, (Note(i, subject, subject, "log", 0, start, start + len(subject), origin="subject"),))


def test_a_git_logs_section_is_headed_by_the_days_its_commits_span_and_only_when_each_is_dated():
    from precis.engine.summary.writing import commit_days_heading
    commits = [_subject(1, "JetPack を 4.6 に変更", 10), _subject(2, "SDL を 2.0.20 に上げる", 90)]
    days = {90: "2021-12-25", 10: "2021-12-30"}                       # newest first, as git log prints them
    assert commit_days_heading(commits, days, "Japanese") == "2021-12-25 〜 2021-12-30"
    assert commit_days_heading(commits, days, None) == "2021-12-25 to 2021-12-30"
    assert commit_days_heading(commits[:1], days, None) == "2021-12-30"
    assert commit_days_heading(commits, {10: "2021-12-30"}, None) == ""       # a commit without its day
    merged = Bullet("JetPack と SDL を更新", commits[0].notes + commits[1].notes)  # a merge still cites both days
    assert commit_days_heading([merged], days, None) == "2021-12-25 to 2021-12-30"
    reworded = [commits[0], _bullet(3, "The nightly build was fixed", "we fixed the nightly build")]
    assert commit_days_heading(reworded, days | {0: "2021-12-31"}, None) == ""  # a note that is no subject
