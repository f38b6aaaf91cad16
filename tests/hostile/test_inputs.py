"""Issue 40, "Nothing hangs, nothing is silently empty": hostile inputs through the real command line, the
model replaced by the scripted fake at its seam (LlamaRuntime.load), so these stay fast; what needs the
bundled model is marked real_model."""
from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from precis.engine.documents import loading
from precis.engine.documents.loading import load_document
from precis.engine.errors import UnreadableDocument
from precis.models.cli.main import main
from tests.conftest import REPO_ROOT
from tests.fake_runtime import FakeRuntime

JAPANESE_NOTE = "会議は2026年3月1日に行われました。予算は1,200万円と決まりました。田中さんは金曜日までに請求書を送ります。\n"
TANAKA = "田中さんは金曜日までに請求書を送ります。"


@pytest.fixture
def fake_model(monkeypatch):
    """Runs get the scripted fake instead of llama.cpp."""
    def load(path, settings, vocab_only=False):
        return FakeRuntime(n_ctx=settings.n_ctx, settings=settings, path=Path(path))
    monkeypatch.setattr("precis.engine.runtime.llama.LlamaRuntime.load", staticmethod(load))


def _summarize(tmp_path, capsys, *files, extra=()):
    out = tmp_path / "out"
    code = main(["summarize", *map(str, files), "--out", str(out), "--date", "2026-11-27", *extra])
    captured = capsys.readouterr()
    return code, out, captured.err


def _outputs(out: Path) -> tuple[str, str, dict]:
    return ((out / "2026-11-27-summary.md").read_text(encoding="utf-8"),
            (out / "2026-11-27-todos.md").read_text(encoding="utf-8"),
            json.loads((out / "2026-11-27-run.json").read_text(encoding="utf-8")))


# A ---------------------------------------------------------------------------------------------------
def test_a_short_japanese_note_is_summarized_with_its_task(tmp_path, capsys, fake_model):
    """Three sentences, each of three kanji words said once: none was worth noting (five units needed, a
    word said once weighing nothing), the round was "nothing_to_note" and the summary only its heading,
    exit 0."""
    source = tmp_path / "会議.txt"
    source.write_text(JAPANESE_NOTE, encoding="utf-8")
    code, out, err = _summarize(tmp_path, capsys, source)
    summary, todos, run = _outputs(out)
    assert code == 0, err
    assert run["strategy"] == "notes" and "nothing_to_note" not in run["rounds"][0]["flags"]
    assert all(s + "。" in summary for s in JAPANESE_NOTE.strip().split("。") if s)   # a note each, quoted
    assert run["facts"]["会議.txt"]["lost"] == 0 and run["facts"]["会議.txt"]["kept"] == 2
    assert f"- [ ] {TANAKA}" in todos


def test_a_summary_that_still_comes_out_empty_fails_loudly_and_keeps_the_sentences(tmp_path, capsys, fake_model,
                                                                                   monkeypatch):
    """Whatever makes a document with sentences end empty (here: no sentence chosen at all), the run says
    so in the summary and on stderr, keeps the sentences and exits 1 (a fault of Precis; docs/cli.md)."""
    monkeypatch.setattr("precis.engine.summary.notes_extraction.select_sentences", lambda *a, **k: [])
    source = tmp_path / "note.txt"
    source.write_text(JAPANESE_NOTE, encoding="utf-8")
    code, out, err = _summarize(tmp_path, capsys, source)
    summary, _todos, run = _outputs(out)
    assert code == 1
    assert "came out empty" in err and "Traceback" not in err
    assert "No summary could be made of note.txt" in summary
    assert all(f"- {s}。" in summary for s in JAPANESE_NOTE.strip().split("。") if s)
    assert run["outcome"] == "failed" and run["facts"]["note.txt"]["lost"] == 0


def test_a_document_of_only_tool_logs_is_not_taken_for_an_empty_summary(tmp_path, capsys, fake_model):
    """Parts skipped as noise said so; their lines are no sentences left out in silence."""
    source = tmp_path / "sync.log"
    source.write_text("".join(f"[11:05:{i:02d}] tool · http GET /api/v1/health -> 200 OK\n" for i in range(40)),
                      encoding="utf-8")
    code, _out, err = _summarize(tmp_path, capsys, source)
    assert code == 0, err
    assert "came out empty" not in err


@pytest.mark.real_model
def test_a_short_japanese_note_with_the_bundled_model(tmp_path, capsys, smollm2_path):
    """The finding as reported, with SmolLM2 and the default strategy (notes for a model this small)."""
    source = tmp_path / "会議.txt"
    source.write_text(JAPANESE_NOTE, encoding="utf-8")
    code, out, err = _summarize(tmp_path, capsys, source, extra=("--n-ctx", "2048"))
    summary, todos, run = _outputs(out)
    assert code == 0, err
    assert summary.strip() != "# Summary — 2026-11-27" and "nothing_to_note" not in run["rounds"][0]["flags"]
    assert run["facts"]["会議.txt"]["lost"] == 0
    assert TANAKA in todos


# C ---------------------------------------------------------------------------------------------------
TINY = "Mika: The budget for project Atlas is EUR 1,200 and Priya signs it off by 2026-12-01.\n" * 4


def _clean(err: str) -> None:
    assert "Traceback" not in err and "Error:" not in err.replace("precis: ", ""), err


@pytest.mark.parametrize("name", ["with space.txt", "new\nline.txt", "tab\there.txt", "a" * 251 + ".txt",
                                  os.fsdecode(b"bad\xff\xfename.txt")],
                         ids=["space", "newline", "tab", "255-bytes", "not-utf8"])
def test_a_file_name_a_shell_finds_hard_is_summarized(tmp_path, capsys, fake_model, precis_home, name):
    """A name that is not UTF-8 crashed the first checkpoint (UnicodeEncodeError, exit 2 with a traceback);
    a line break in a name broke the bundle's separator line."""
    source = tmp_path / name
    source.write_text(TINY, encoding="utf-8")
    other = tmp_path / "other.txt"
    other.write_text("Orin: The rollout of service Borealis moves to 2026-12-09 because the vendor is late.\n",
                     encoding="utf-8")
    code, out, err = _summarize(tmp_path, capsys, source, other)
    _clean(err)
    assert code == 0, err
    summary, _todos, run = _outputs(out)
    assert "Atlas" in summary
    assert {"2026-12-01", "2026-12-09"} <= {f["text"] for f in run["facts"][run["documents"][0]["name"]]["items"]}
    assert "\udcff" not in summary and "\n" not in run["documents"][0]["name"]
    assert main(["runs"]) == 0
    listed = capsys.readouterr()
    _clean(listed.err)
    assert "finished" in listed.out


def test_a_file_name_with_a_leading_dash_after_double_dash(tmp_path, capsys, fake_model, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("-leading.txt").write_text(TINY, encoding="utf-8")
    code = main(["summarize", "--out", "out", "--date", "2026-11-27", "--", "-leading.txt"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Atlas" in _outputs(tmp_path / "out")[0]


def test_a_symlink_loop_is_refused_by_name_and_a_folder_with_one_keeps_the_rest(tmp_path, capsys, fake_model):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "loop1.txt").symlink_to("loop2.txt")
    (folder / "loop2.txt").symlink_to("loop1.txt")
    (folder / "sub").mkdir()
    (folder / "sub" / "up").symlink_to("..")                # a folder loop
    (folder / "sub" / "good.txt").write_text(TINY, encoding="utf-8")
    code, _out, err = _summarize(tmp_path, capsys, folder / "loop1.txt")
    assert code == 2 and "loop1.txt could not be read: Too many levels of symbolic links" in err
    _clean(err)
    code, out, err = _summarize(tmp_path, capsys, folder)
    assert code == 0, err
    assert "Atlas" in _outputs(out)[0]


def test_a_fifo_is_refused_not_waited_on(tmp_path):
    """Reading a named pipe waited for a writer for ever: `precis summarize FIFO` hung."""
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    env = {**os.environ, "PRECIS_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "tests.hostile.fake_cli", "summarize", str(fifo), "--out",
                           str(tmp_path / "out"), "--date", "2026-11-27"], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "pipe.txt is a named pipe (FIFO), not a document" in done.stderr
    _clean(done.stderr)


def test_a_device_is_refused_not_read_without_end():
    with pytest.raises(UnreadableDocument, match="zero is a character device"):
        load_document("/dev/zero")


def test_a_folder_of_2000_tiny_files_is_one_bundle_with_nothing_lost(tmp_path, capsys, fake_model):
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(2000):
        (folder / f"n{i:04d}.txt").write_text(f"Note {i}: Mika sends invoice {i} to Priya by Friday.\n",
                                              encoding="utf-8")
    code, out, err = _summarize(tmp_path, capsys, folder)
    assert code == 0, err
    _clean(err)
    run = _outputs(out)[2]
    assert run["outcome"] == "finished" and run["inputs"]["unreadable"] == []
    assert len(run["documents"]) == 1 and run["documents"][0]["chars"] > 2000 * 50   # every file in the bundle


def test_a_file_that_vanishes_during_planning_is_summarized_as_read(tmp_path, capsys, fake_model, monkeypatch):
    source = tmp_path / "gone.txt"
    source.write_text(TINY, encoding="utf-8")
    from precis.models.session import job
    planned = job.plan_run

    def vanish_then_plan(*args, **kwargs):
        source.unlink()
        return planned(*args, **kwargs)
    monkeypatch.setattr(job, "plan_run", vanish_then_plan)
    code, out, err = _summarize(tmp_path, capsys, source)
    assert code == 0, err
    _clean(err)
    assert "Atlas" in _outputs(out)[0]


def test_a_file_that_grows_during_planning_is_summarized_as_read(tmp_path, capsys, fake_model, monkeypatch):
    source = tmp_path / "live.log.txt"
    source.write_text(TINY, encoding="utf-8")
    from precis.models.session import job
    planned = job.plan_run

    def grow_then_plan(*args, **kwargs):
        with source.open("a", encoding="utf-8") as fh:
            fh.write("Orin: Later line, written while Precis planned.\n" * 1000)
        return planned(*args, **kwargs)
    monkeypatch.setattr(job, "plan_run", grow_then_plan)
    code, out, err = _summarize(tmp_path, capsys, source)
    assert code == 0, err
    _clean(err)
    assert "Later line" not in _outputs(out)[0]              # the text as read, consistently


def test_a_file_that_grows_while_it_is_read_is_bounded(tmp_path, monkeypatch):
    """The size was checked, then the whole file read: a file growing meanwhile was read without bound."""
    source = tmp_path / "live.txt"
    source.write_text("x" * 900, encoding="utf-8")
    monkeypatch.setattr(loading, "MAX_DOCUMENT_BYTES", 1000)
    opened = os.open

    def open_and_grow(path, flags, *args):
        fd = opened(path, flags, *args)
        with open(source, "a", encoding="utf-8") as fh:     # after the size check, before the read
            fh.write("y" * 500)
        return fd
    monkeypatch.setattr(loading.os, "open", open_and_grow)
    with pytest.raises(UnreadableDocument, match="Split it first"):
        load_document(source)


def test_html_with_scripts_and_megabytes_of_inline_base64_keeps_its_text(tmp_path, capsys, fake_model):
    """A megabyte of base64 in a paragraph was planned as 290 rounds of it."""
    blob = base64.b64encode(os.urandom(3 * 2**20)).decode()
    source = tmp_path / "page.html"
    source.write_text("<html><head><script>" + "var x = 1;" * 100_000 + "</script></head><body><h1>Budget</h1>"
                      f"<p>{TINY}</p><img src=\"data:image/png;base64,{blob}\"><p>{blob[:1_000_000]}</p>"
                      "<p>Orin will send the invoice by Friday.</p></body></html>", encoding="utf-8")
    code, out, err = _summarize(tmp_path, capsys, source)
    assert code == 0, err
    _clean(err)
    summary, todos, run = _outputs(out)
    assert "Atlas" in summary and blob[:40] not in summary and "var x" not in summary
    assert "Orin will send the invoice by Friday." in todos
    assert len(run["rounds"]) <= 3
    assert "left out 1,000,000 characters of inline base64 data" in err


@pytest.mark.timeout(120)
def test_a_docx_zip_bomb_is_refused_before_it_is_unpacked(tmp_path, capsys, fake_model):
    """300 MB of XML in a 1 MB Word file: python-docx unpacked and parsed it whole (past two minutes and
    850 MB of memory, no end)."""
    import docx
    made = tmp_path / "made.docx"
    document = docx.Document()
    document.add_paragraph("Mika will send the invoice by Friday.")
    document.save(made)
    bomb = tmp_path / "bomb.docx"
    pad = ("<w:p><w:r><w:t>" + "A" * 1000 + "</w:t></w:r></w:p>").encode()
    with zipfile.ZipFile(made) as src, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as out:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename != "word/document.xml":
                out.writestr(item, data)
                continue
            head, tail = data.split(b"</w:body>")
            with out.open("word/document.xml", "w", force_zip64=True) as fh:
                fh.write(head)
                for _ in range(300):
                    fh.write(pad * 1000)
                fh.write(b"</w:body>" + tail)
    started = time.monotonic()
    code, _out, err = _summarize(tmp_path, capsys, bomb)
    assert code == 2 and "bomb.docx unpacks to 296 MiB" in err and "zip bomb" in err
    assert time.monotonic() - started < 30
    _clean(err)


def test_a_pdf_without_a_text_layer_is_refused_by_name(tmp_path, capsys, fake_model):
    from pypdf import PdfWriter
    scan = tmp_path / "scan.pdf"
    writer = PdfWriter()
    writer.add_blank_page(612, 792)
    writer.write(scan)
    code, _out, err = _summarize(tmp_path, capsys, scan)
    assert code == 2 and "scan.pdf has no text layer (a scanned PDF?). Run OCR on it first" in err
    _clean(err)


def test_a_chat_export_50_levels_deep_is_read(tmp_path, capsys, fake_model):
    content = [{"type": "text", "text": "Mika will send the invoice by Friday, and the budget is EUR 1,200."}]
    for _ in range(50):
        content = [{"type": "tool_result", "content": content}]
    messages = [{"role": "user", "content": "Please check the budget for project Atlas with Priya today."},
                {"role": "assistant", "content": content}]
    source = tmp_path / "chat.json"
    source.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    code, out, err = _summarize(tmp_path, capsys, source)
    assert code == 0, err
    _clean(err)
    assert _outputs(out)[2]["outcome"] == "finished"
    assert "Mika will send the invoice by Friday" in load_document(source).text     # the innermost text


def test_json_nested_past_the_parsers_depth_is_refused_by_name(tmp_path, capsys, fake_model):
    """A RecursionError's traceback, exit 1, before."""
    source = tmp_path / "deep.json"
    source.write_text("[" * 100_000 + '"a"' + "]" * 100_000, encoding="utf-8")
    code, _out, err = _summarize(tmp_path, capsys, source)
    assert code == 2 and "deep.json is JSON nested too deeply to be a chat export" in err
    _clean(err)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_200_mb_single_line_is_planned_with_progress_and_refused_by_its_rounds(tmp_path, capsys, fake_model):
    source = tmp_path / "line.txt"
    words = " ".join(["Mika", "sends", "the", "invoice", "for", "project", "Atlas", "to", "Priya", "by", "Friday"] * 2000)
    with source.open("w", encoding="utf-8") as fh:
        while fh.tell() < 200_000_000:
            fh.write(words + " ")
    code, _out, err = _summarize(tmp_path, capsys, source)
    assert code == 2 and "more than the cap of 10,000 (--max-rounds)" in err
    assert "planning: 200.0 of 200.0 million characters" in err
    _clean(err)


def test_a_folder_names_what_it_holds_that_is_no_file_and_summarizes_the_rest(tmp_path, capsys, fake_model):
    """A FIFO, a broken link and a looping link in a folder were dropped without a word."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.txt").write_text(TINY, encoding="utf-8")
    os.mkfifo(folder / "pipe.txt")
    (folder / "gone.txt").symlink_to("nowhere.txt")
    (folder / "loop1.txt").symlink_to("loop2.txt")
    (folder / "loop2.txt").symlink_to("loop1.txt")
    code, out, err = _summarize(tmp_path, capsys, folder)
    assert code == 0, err
    _clean(err)
    assert "pipe.txt is a named pipe (FIFO)" in err and "gone.txt could not be read: No such file" in err
    assert "loop1.txt could not be read: Too many levels of symbolic links" in err
    run = _outputs(out)[2]
    assert len(run["inputs"]["unreadable"]) == 4 and "Atlas" in _outputs(out)[0]
