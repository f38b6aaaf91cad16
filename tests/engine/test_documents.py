"""Every format Precis reads, every encoding it detects, and one clear error per unreadable file."""
from __future__ import annotations

import json

import pytest

from precis.engine.documents.bundle import bundle_documents, load_documents
from precis.engine.documents.loading import load_document
from precis.engine.errors import UnreadableDocument
from tests.document_builders import chatgpt_export, claude_code_session, minimal_pdf, word_document

JAPANESE = "議長（石川良一君）：これより本日の会議を開きます。\n　予算は三千五百億円です。\n"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "shift_jis", "cp932", "euc_jp"])
def test_japanese_in_every_common_encoding(tmp_path, encoding):
    path = tmp_path / f"minutes-{encoding}.txt"
    path.write_bytes((JAPANESE * 20).encode(encoding))
    doc = load_document(path)
    assert doc.text == JAPANESE * 20


def test_western_legacy_encoding(tmp_path):
    text = "Café résumé: the naïve façade cost 1 250 € — déjà vu.\n" * 10
    path = tmp_path / "notes.txt"
    path.write_bytes(text.encode("cp1252"))
    assert load_document(path).text == text


def test_windows_line_endings_become_newlines(tmp_path):
    path = tmp_path / "a.log"
    path.write_bytes(b"line one\r\nline two\r\n")
    doc = load_document(path)
    assert doc.text == "line one\nline two\n" and doc.kind == "log"


def test_html_keeps_headings_and_paragraphs_and_drops_scripts(tmp_path):
    path = tmp_path / "page.html"
    path.write_text("<html><head><title>t</title><style>p{}</style></head><body><h1>Release 2.0</h1>"
                    "<p>We shipped <b>dark mode</b>.</p><script>alert(1)</script><ul><li>one</li><li>two</li></ul>"
                    "<h2>Known issues</h2><p>None&nbsp;yet.</p></body></html>", encoding="utf-8")
    doc = load_document(path)
    assert doc.kind == "html"
    assert "# Release 2.0" in doc.text and "## Known issues" in doc.text
    assert "We shipped dark mode." in doc.text and "alert" not in doc.text and "p{}" not in doc.text
    assert "- one" in doc.text and "- two" in doc.text


def test_pdf_pages_are_marked(tmp_path):
    doc = load_document(minimal_pdf(tmp_path / "r.pdf", ["First page: revenue 12%", "Second page (risks)"]))
    assert doc.kind == "pdf"
    assert "--- page 1 ---\nFirst page: revenue 12%" in doc.text
    assert "--- page 2 ---\nSecond page (risks)" in doc.text


def test_pdf_without_text_layer_says_ocr(tmp_path):
    path = minimal_pdf(tmp_path / "scan.pdf", [""])
    with pytest.raises(UnreadableDocument, match="scan.pdf has no text layer.*OCR"):
        load_document(path)


def test_truncated_pdf_is_a_clear_error(tmp_path):
    good = minimal_pdf(tmp_path / "good.pdf", ["hello"]).read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(good[:60])
    with pytest.raises(UnreadableDocument, match="cut.pdf"):
        load_document(path)


def test_word_headings_lists_and_tables(tmp_path):
    doc = load_document(word_document(tmp_path / "review.docx"))
    assert doc.kind == "word"
    assert doc.text.startswith("# Quarterly review\n\nRevenue grew 12% to EUR 4.2 million.\n\n## Decisions")
    assert "- Hire two engineers by 2027-01-15." in doc.text
    assert "Owner | Task\nPriya | Budget" in doc.text


def test_damaged_word_file_and_old_doc(tmp_path):
    bad = tmp_path / "broken.docx"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(UnreadableDocument, match="broken.docx is not a readable Word document"):
        load_document(bad)
    old = tmp_path / "old.doc"
    old.write_bytes(b"\xd0\xcf\x11\xe0 old binary word")
    with pytest.raises(UnreadableDocument, match="old.doc is an old Word .doc file"):
        load_document(old)


def test_claude_code_session_jsonl(tmp_path):
    doc = load_document(claude_code_session(tmp_path / "session.jsonl"))
    assert doc.kind == "chat log"
    assert doc.text.splitlines()[0] == "[user 2026-11-27 08:41] The login page crashes on Safari."
    assert "[assistant 2026-11-27 08:42] Let me read the handler." in doc.text
    assert '[tool_call 2026-11-27 08:42] Read: {"file_path": "src/login.ts"}' in doc.text
    assert "[tool_result 2026-11-27 08:42] export function login() {}" in doc.text
    assert "private" not in doc.text


def test_chatgpt_conversations_follow_the_current_branch(tmp_path):
    doc = load_document(chatgpt_export(tmp_path / "conversations.json"))
    assert doc.text.startswith("## Trip to Kyoto (2025-11-27 08:00)\n\n[user 2025-11-27 08:00] Plan three days")
    assert "[assistant] Day 1: Fushimi Inari at 7:00." in doc.text
    assert "[user] Budget is 60,000 yen." in doc.text
    assert "abandoned" not in doc.text


@pytest.mark.parametrize("payload", [
    [{"role": "user", "content": "Summarize the Q3 call."}, {"role": "assistant", "content": [{"type": "text", "text": "Revenue rose."}]}],
    {"messages": [{"role": "user", "content": "Summarize the Q3 call."}, {"role": "assistant", "content": "Revenue rose."}]},
])
def test_openai_style_messages(tmp_path, payload):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    doc = load_document(path)
    assert doc.text == "[user] Summarize the Q3 call.\n\n[assistant] Revenue rose.\n"


def test_openai_jsonl_one_message_per_line(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n\n{"role": "assistant", "content": "hello"}\n', encoding="utf-8")
    assert load_document(path).text == "[user] hi\n\n[assistant] hello\n"


def test_unknown_json_and_broken_json_are_clear(tmp_path):
    unknown = tmp_path / "config.json"
    unknown.write_text('{"port": 8080}', encoding="utf-8")
    with pytest.raises(UnreadableDocument, match="config.json is JSON but not a chat export"):
        load_document(unknown)
    broken = tmp_path / "cut.jsonl"
    broken.write_text('{"role": "user", "content": "hi"}\n{"role": "assis', encoding="utf-8")
    doc = load_document(broken)                  # a live log cut mid-line: the good lines are kept, and said so
    assert doc.text.startswith("[user] hi") and "skipped 1 unreadable line" in doc.warnings[0]
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text('{"role": \n{"assis', encoding="utf-8")
    with pytest.raises(UnreadableDocument, match="garbage.jsonl is not valid JSON"):
        load_document(garbage)
    empty_chat = tmp_path / "none.json"
    empty_chat.write_text('{"messages": []}', encoding="utf-8")
    with pytest.raises(UnreadableDocument, match="none.json is a chat export with no messages"):
        load_document(empty_chat)


def test_text_field_documents(tmp_path):
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"id": "x", "text": "A plain document."}), encoding="utf-8")
    assert load_document(path).text == "A plain document."


def test_binary_empty_and_missing_files_each_get_their_own_error(tmp_path):
    (tmp_path / "blob.txt").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "empty.md").write_bytes(b"\n  \n")
    (tmp_path / "fine.txt").write_text("Kept.\n", encoding="utf-8")
    loaded = load_documents([tmp_path / "blob.txt", tmp_path / "empty.md", tmp_path / "fine.txt",
                             tmp_path / "missing.txt"])
    assert [d.name for d in loaded.documents] == ["fine.txt"]
    errors = {p.name: e for p, e in loaded.errors}
    assert "blob.txt looks like a binary file" in errors["blob.txt"]
    assert "empty.md is empty" in errors["empty.md"]
    assert errors["missing.txt"].startswith("missing.txt could not be read")


def test_a_folder_expands_to_its_documents_in_name_order(tmp_path):
    (tmp_path / "b.md").write_text("B\n", encoding="utf-8")
    (tmp_path / "a.txt").write_text("A\n", encoding="utf-8")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    (tmp_path / ".hidden.txt").write_text("no\n", encoding="utf-8")
    assert [d.name for d in load_documents([tmp_path]).documents] == ["a.txt", "b.md"]


def test_bundle_separates_files_and_maps_offsets_back(tmp_path):
    (tmp_path / "one.txt").write_text("first file", encoding="utf-8")
    (tmp_path / "two.md").write_text("# second\n", encoding="utf-8")
    docs = load_documents([tmp_path / "one.txt", tmp_path / "two.md"]).documents
    bundle = bundle_documents(docs)
    assert bundle.text.startswith("===== one.txt · text · ")
    assert "=====\nfirst file\n\n===== two.md · markdown · " in bundle.text
    assert bundle.text.endswith("=====\n# second\n")
    second = bundle.parts[1]
    assert bundle.text[second.start_char:second.end_char] == "# second\n"
    assert bundle.locate(second.start_char + 2) == ("two.md", 2)
    assert bundle.locate(bundle.parts[0].start_char + 6) == ("one.txt", 6)
    single = bundle_documents(docs[:1])
    assert single.text == "first file"


def test_long_texts_are_decoded_and_normalised_in_slices_without_changing_a_character(monkeypatch):
    """Slices keep the GUI thread responsive (bench/plan_large.py); a multi-byte letter or a CRLF cut by a
    slice boundary must come out exactly as a single call would give it, and bad UTF-8 still fails."""
    import precis.engine.documents.loading as loading
    monkeypatch.setattr(loading, "SLICE_BYTES", 7)
    text = "ab\r\ncdé\r\n日本語\rx\r\n" * 5 + "end\r"
    raw = text.encode("utf-8")
    assert loading._decode_utf8_in_slices(raw) == text
    assert loading.unix_newlines(text) == text.replace("\r\n", "\n").replace("\r", "\n")
    assert "\r" not in loading.unix_newlines(text)
    with pytest.raises(UnicodeDecodeError):
        loading._decode_utf8_in_slices(raw[:9] + b"\xff" + raw[9:])


def test_a_git_logs_commit_subjects_are_found_in_its_long_and_its_oneline_form():
    from precis.engine.documents.commit_log import commit_subjects
    log = "".join(f"commit {sha}abc\nAuthor: A <a@b.c>\nDate:   Mon Dec 1 2026\n\n    {subject}\n\n    Body of it.\n\n"
                  for sha, subject in [("1234567", "Add the export dialog"), ("89abcde", "Fix the crash on resume"),
                                       ("f012345", "Bump cmake from 3.22.2 to 3.22.3")])
    found = commit_subjects(log)
    assert [s.text for s in found] == ["Add the export dialog", "Fix the crash on resume",
                                       "Bump cmake from 3.22.2 to 3.22.3"]
    assert all(log[s.start:s.start + len(s.text)] == s.text for s in found)
    oneline = "a1b2c3d (HEAD -> main) Add the export dialog\n89abcde Fix the crash on resume\nf012345 Bump cmake\n"
    assert [s.text for s in commit_subjects(oneline)] == ["Add the export dialog", "Fix the crash on resume",
                                                          "Bump cmake"]
    # a text that names a commit or two is not a log of commits
    assert commit_subjects("We reverted\ncommit 1234567 yesterday.\nThen commit 89abcde\n\nfixed it.\n") == []
    # nor a conversation that shows one: its sentences stay what the notes choose from
    talk = "".join(f"[09:{i:02d}] Mika: We looked at the refund logic again and it still fails on case {i}.\n"
                   for i in range(12))
    assert commit_subjects(talk + "[09:33] tool · bash: $ git log --oneline -5\n" + oneline + talk) == []


def _stat_log(commits, newest_first=False):
    """A ``git log --stat`` of (hash, date, subject, body, files), oldest first unless ``newest_first``."""
    blocks = []
    for sha, date, subject, body, files in commits:
        stat = "".join(f" {f} | 2 +-\n" for f in files)
        blocks.append(f"commit {sha}\nAuthor: dev\nDate:   {date}\n\n{subject}\n{body}\n\n{stat}"
                      f" {len(files)} files changed, 2 insertions(+)\n")
    return "".join(reversed(blocks) if newest_first else blocks)


CHANGELOG_COMMITS = [
    ("1a2b3c4d", "2021-12-25 00:06:50 +0900", "FAQ.md に記載を追加", "- SDL について追記", ["doc/FAQ.md"]),
    ("0e17c218", "2021-12-29 11:03:28 +0900", "Create codeql-analysis.yml", "", [".github/workflows/codeql-analysis.yml"]),
    ("7433a393", "2021-12-29 11:26:59 +0900", 'Revert "Create codeql-analysis.yml"',
     "\nThis reverts commit 0e17c218326b9c3c85e824a4b9d29aadba535357.", [".github/workflows/codeql-analysis.yml"]),
    ("e326186b", "2021-12-29 14:38:27 +0900", "JetPack を 4.6 に変更", "", ["CHANGES.md", "build/jetson/arm64.conf"]),
    ("32d56b94", "2022-01-03 10:00:00 +0900", "cmake を 3.25.1 に上げる", "", ["CHANGES.md", "VERSION"]),
    ("bcf490e3", "2022-01-04 10:00:00 +0900", "CHANGES に記載", "", ["CHANGES.md"]),
    ("f6a234f0", "2022-01-05 10:00:00 +0900", "Update README.md", "", ["README.md"]),
    ("a09ea85e", "2022-01-06 10:00:00 +0900", "不正な MJPEG フレームを後続処理に送らない", "", ["src/v4l2_capturer.cpp"]),
    ("c00f3d71", "2022-01-07 10:00:00 +0900", "cmake のバージョンを 3.27.4 に上げる", "", ["VERSION"]),
    ("7ab88f10", "2022-01-08 10:00:00 +0900", "cmake のバージョンを上げる", "", ["VERSION"]),
    ("e18aaccc", "2022-01-08 11:00:00 +0900", "バージョン指定せずにやってみる", "", [".github/workflows/build.yml"]),
    ("eaad9c39", "2022-01-08 12:00:00 +0900", "コード整理", "", ["src/v4l2_buffers.cpp"]),
    ("d12d8796", "2022-01-09 10:00:00 +0900", "Bump actions/checkout from 2 to 3", "", [".github/workflows/build.yml"]),
    ("b1d4a04e", "2022-01-10 10:00:00 +0900", "Bump actions/checkout from 3 to 4", "", [".github/workflows/build.yml"]),
    ("5c6d7e8f", "2022-01-11 10:00:00 +0900", "windows-latest から windows-2019 にする", "",
     [".github/workflows/build.yml", ".github/workflows/daily_build.yml"]),
    ("6d7e8f90", "2022-01-12 10:00:00 +0900", "softprops/action-gh-release を利用する", "",
     ["CHANGES.md", ".github/workflows/build.yml"]),
    ("7e8f9012", "2022-01-13 10:00:00 +0900", "Windows のビルドにアーキテクチャを追加する", "",
     [".github/workflows/build.yml", "build/windows/CMakeLists.txt"]),
]


def _weights_by_subject(log):
    from precis.engine.documents.commit_log import changelog_weight, commit_subjects
    subjects = commit_subjects(log)
    weights = changelog_weight(subjects)
    return {s.text: weights[s.start] for s in subjects}


def test_a_git_logs_commits_weigh_by_how_much_they_belong_in_its_changelog():
    """The development logs' hand-written changelogs list the commits that touch the CHANGES file, never
    its bookkeeping, a reverted commit, the web editor's "Update README.md", nor a version a later bump
    replaced, trial and error, housekeeping or the CI machinery alone; documentation-only commits are
    seldom listed."""
    from precis.engine.documents.commit_log import CHANGELOG_WEIGHT, DOCS_ONLY_WEIGHT, commit_subjects
    for newest_first in (False, True):
        log = _stat_log(CHANGELOG_COMMITS, newest_first)
        found = {s.text: s for s in commit_subjects(log)}
        assert found["JetPack を 4.6 に変更"].files == ("CHANGES.md", "build/jetson/arm64.conf")
        assert found['Revert "Create codeql-analysis.yml"'].reverts.startswith("0e17c218")
        weight = _weights_by_subject(log)
        assert weight == {
            "FAQ.md に記載を追加": DOCS_ONLY_WEIGHT,
            "Create codeql-analysis.yml": 0.0, 'Revert "Create codeql-analysis.yml"': 0.0,
            "JetPack を 4.6 に変更": CHANGELOG_WEIGHT,
            "cmake を 3.25.1 に上げる": 0.0,                    # replaced by 3.27.4, in either order of the log
            "CHANGES に記載": 0.0, "Update README.md": 0.0,
            "不正な MJPEG フレームを後続処理に送らない": 1.0,
            "cmake のバージョンを 3.27.4 に上げる": CHANGELOG_WEIGHT,   # its dependency was listed in CHANGES
            "cmake のバージョンを上げる": 0.0,                  # later, but names no version
            "バージョン指定せずにやってみる": 0.0, "コード整理": 0.0,       # trial and error, housekeeping
            "Bump actions/checkout from 2 to 3": 0.0, "Bump actions/checkout from 3 to 4": 0.0,   # CI alone
            "windows-latest から windows-2019 にする": 0.0,
            "softprops/action-gh-release を利用する": CHANGELOG_WEIGHT,     # CI, and listed in CHANGES
            "Windows のビルドにアーキテクチャを追加する": 1.0,             # CI and the build itself
        }, newest_first
    # a revert of a commit outside the log is a change of its own; one-line logs know reverts by subject
    outside = [("7433a393", "2021-12-29 11:26:59 +0900", 'Revert "Use the new decoder"',
                "\nThis reverts commit 0e17c218326b9c3c85e824a4b9d29aadba535357.", ["src/decoder.cpp"])]
    assert _weights_by_subject(_stat_log(outside + CHANGELOG_COMMITS[3:]))['Revert "Use the new decoder"'] == 1.0
    oneline = 'a1b2c3d Revert "Add the export dialog"\n89abcde Fix the crash on resume\nf012345 Add the export dialog\n'
    assert _weights_by_subject(oneline) == {'Revert "Add the export dialog"': 0.0, "Fix the crash on resume": 1.0,
                                            "Add the export dialog": 0.0}


def test_a_version_bump_is_told_from_a_document_update():
    from precis.engine.documents.commit_log import bumped_dependency
    assert bumped_dependency("SDL を 2.0.20 に上げる") == ("sdl", True)
    assert bumped_dependency("`libwebrtc` を `99.4844.1.0` に上げる") == ("libwebrtc", True)
    assert bumped_dependency("WebRTC を m117 にアップデート") == ("webrtc", True)
    assert bumped_dependency("Boost のバージョンを 1.83.0 に上げる") == ("boost", True)
    assert bumped_dependency("cmake のバージョンを上げる") == ("cmake", False)
    assert bumped_dependency("Bump microsoft/setup-msbuild from 1.1 to 1.3") == ("microsoft/setup-msbuild", True)
    assert bumped_dependency("Update Boost to 1.83.0") == ("boost", True)
    for not_a_bump in ("FAQ.md を更新", "Github Actions の Ubuntu を 20.04 にあげる", "JetPack を 4.6 に変更",
                       "WebRTC, Boost, CLI11, SDK を新しいバージョンに上げる", "Update README.md"):
        assert bumped_dependency(not_a_bump) is None, not_a_bump


def test_a_git_logs_commit_days_are_read_from_its_date_headers_in_the_forms_git_writes():
    from precis.engine.documents.commit_log import commit_days, commit_subjects
    log = _stat_log(CHANGELOG_COMMITS[:3])
    default = log.replace("2021-12-25 00:06:50 +0900", "Sat Dec 25 00:06:50 2021 +0900") \
                 .replace("2021-12-29 11:03:28 +0900", "2021-12-29T11:03:28+09:00")      # git's default, strict ISO
    for text in (log, default):
        assert sorted(commit_days(text).values()) == ["2021-12-25", "2021-12-29", "2021-12-29"]
        assert set(commit_days(text)) == {s.start for s in commit_subjects(text)}
    undated = log.replace("Date:   2021-12-25 00:06:50 +0900", "Date:   yesterday")   # a date git never writes
    assert commit_days(undated) == {s.start: "2021-12-29" for s in commit_subjects(undated)[1:]}
    assert commit_days("We met on 2021-12-25 and talked.\n") == {}
