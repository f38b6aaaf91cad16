"""Issue 40, checkpoints: a run interrupted mid-way whose state file is then truncated, emptied, filled with
junk or lost; a checkpoint folder made read-only mid-run; a full disk. `precis runs` and `--resume` say
what is wrong and keep what is intact, never a traceback."""
from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from precis.models.cli.main import main
from tests.fake_runtime import FakeRuntime, diligent
from tests.summary_fixtures import conversation_day

DATE = "2026-11-27"
STATE_FILE, PREVIOUS_STATE_FILE = "state.json", "state.prev.json"     # engine.runs.state's


@pytest.fixture
def fake_model(monkeypatch):
    """Runs get the scripted fake; ``calls[0]`` (when set) is run before each model call, with its number."""
    hooks = []

    def script(call):
        for hook in hooks:
            hook(call.number)
        return diligent(call)

    def load(path, settings, vocab_only=False):
        return FakeRuntime(script=script, n_ctx=settings.n_ctx, settings=settings, path=Path(path))
    monkeypatch.setattr("precis.engine.runtime.llama.LlamaRuntime.load", staticmethod(load))
    return hooks


def _clean(err: str) -> None:
    assert "Traceback" not in err, err


def _day(tmp_path) -> Path:
    source = tmp_path / "day.txt"
    source.write_text(conversation_day(), encoding="utf-8")
    return source


def _summarize(capsys, *args):
    code = main(["summarize", *map(str, args), "--date", DATE, "--n-ctx", "2048", "--strategy", "rolling"])
    return code, capsys.readouterr().err


def _interrupted_run(tmp_path, capsys, fake_model, monkeypatch, after_calls: int = 4) -> Path:
    """A run stopped by Ctrl-C after ``after_calls`` model calls; its checkpoint folder. Its checkpoints
    before the last say "running" with this process as owner: as for a person, whose `precis runs` runs in
    another process, the process that wrote them is taken to be gone."""
    fake_model.append(lambda n: os.kill(os.getpid(), signal.SIGINT) if n == after_calls else None)
    code, err = _summarize(capsys, _day(tmp_path), "--out", tmp_path / "out")
    assert code == 130, err
    fake_model.clear()
    monkeypatch.setattr("precis.engine.runs.state.process_alive", lambda *a: False)
    (folder,) = (Path(os.environ["PRECIS_HOME"]) / "data" / "runs").iterdir()
    return folder


DAMAGE = {
    "truncated": lambda text: text[:len(text) // 2],
    "zero-bytes": lambda text: "",
    "binary-junk": lambda text: None,
}


def _damage(path: Path, how: str) -> None:
    if how == "missing":
        path.unlink()
        return
    damaged = DAMAGE[how](path.read_text(encoding="utf-8"))
    if damaged is None:
        path.write_bytes(bytes(range(256)) * 40)
    else:
        path.write_text(damaged, encoding="utf-8")


@pytest.mark.parametrize("how, said", [("truncated", "not complete JSON"), ("zero-bytes", "empty"),
                                       ("binary-junk", "not text"), ("missing", "state.json is missing")])
def test_a_damaged_state_file_is_said_and_the_run_resumes_from_the_checkpoint_before(tmp_path, capsys, fake_model,
                                                                                     monkeypatch, how, said):
    folder = _interrupted_run(tmp_path, capsys, fake_model, monkeypatch)
    before = json.loads((folder / PREVIOUS_STATE_FILE).read_text(encoding="utf-8"))
    assert before["rounds"], "the checkpoint before the last holds finished rounds"
    _damage(folder / STATE_FILE, how)

    assert main(["runs"]) == 0
    listed = capsys.readouterr()
    _clean(listed.err)
    line = next(ln for ln in listed.out.splitlines() if ln.startswith(folder.name))
    assert said in line and "read the checkpoint before it" in line and "resume" in line

    code, err = _summarize(capsys, "--resume", folder.name, "--out", tmp_path / "resumed")
    _clean(err)
    assert code == 0, err
    assert said in err                                      # said on resume too
    run = json.loads((tmp_path / "resumed" / f"{DATE}-run.json").read_text(encoding="utf-8"))
    assert run["outcome"] == "finished" and len(run["rounds"]) >= len(before["rounds"])


@pytest.mark.parametrize("how", ["truncated", "zero-bytes", "binary-junk", "missing"])
def test_a_run_with_no_readable_checkpoint_is_listed_as_damaged_and_refused_by_name(tmp_path, capsys, fake_model,
                                                                                   monkeypatch, how):
    folder = _interrupted_run(tmp_path, capsys, fake_model, monkeypatch)
    _damage(folder / STATE_FILE, how)
    _damage(folder / PREVIOUS_STATE_FILE, "truncated")
    kept = sorted(p.name for p in folder.iterdir())

    assert main(["runs"]) == 0
    listed = capsys.readouterr()
    _clean(listed.err)
    assert f"{folder.name}  damaged: " in listed.out and "state.prev.json is damaged" in listed.out
    assert main(["runs", "--json"]) == 0
    entry = next(r for r in json.loads(capsys.readouterr().out) if r["run_id"] == folder.name)
    assert entry["status"] == "damaged"

    code, err = _summarize(capsys, "--resume", folder.name, "--out", tmp_path / "resumed")
    _clean(err)
    assert code == 2 and f"Run {folder.name} cannot be resumed" in err and "start the run again" in err
    assert sorted(p.name for p in folder.iterdir()) == kept          # nothing deleted


def _refusing_to_save(monkeypatch, after_saves: int, error: OSError) -> list:
    """Checkpoints after the first ``after_saves`` fail with ``error`` until the list returned is cleared."""
    from precis.engine.runs import state as state_module
    real = state_module.write_json_atomic
    saves, failing = [], [True]

    def write(path, data):
        saves.append(path)
        if failing and len(saves) > after_saves:
            raise error
        real(path, data)
    monkeypatch.setattr(state_module, "write_json_atomic", write)
    return failing


@pytest.mark.parametrize("error, why", [(OSError(errno.ENOSPC, "No space left on device"), "the disk is full"),
                                        (PermissionError(errno.EACCES, "Permission denied"),
                                         "the folder cannot be written to")])
def test_a_checkpoint_that_cannot_be_written_mid_run_is_said_and_the_finished_rounds_kept(tmp_path, capsys, fake_model,
                                                                                        monkeypatch, precis_home,
                                                                                        error, why):
    """Before: the OSError of the save ran through the run's own save of its failure, then a traceback on
    stderr (exit 2 for a read-only folder; for a full disk, a crash)."""
    failing = _refusing_to_save(monkeypatch, 4, error)
    code, err = _summarize(capsys, _day(tmp_path), "--out", tmp_path / "out")
    _clean(err)
    assert code == 2
    assert "Could not save the checkpoint of run" in err and why in err and "The last checkpoint holds 3 finished" in err
    assert "resume with `precis summarize --resume" in err
    # --out is elsewhere: the results so far are written there, marked partial
    summary = (tmp_path / "out" / f"{DATE}-summary.md").read_text(encoding="utf-8")
    assert "Partial" in summary and "EUR 1" in summary
    failing.clear()                                         # space again
    monkeypatch.setattr("precis.engine.runs.state.process_alive", lambda *a: False)   # that process is gone
    (folder,) = (precis_home / "data" / "runs").iterdir()
    saved = json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
    assert len(saved["rounds"]) == 3
    assert main(["runs"]) == 0
    assert "interrupted, resumable" in capsys.readouterr().out
    code, err = _summarize(capsys, "--resume", folder.name, "--out", tmp_path / "resumed")
    assert code == 0, err


def test_a_checkpoint_folder_made_read_only_mid_run(tmp_path, capsys, fake_model, monkeypatch):
    """Made immutable (root writes anywhere else) after the third model call; the run says so, --out gets
    the results, and once writable again the run resumes and finishes."""
    def lock(number):
        if number == 3:
            (folder,) = (Path(os.environ["PRECIS_HOME"]) / "data" / "runs").iterdir()
            locked.append(folder)
            if os.geteuid() == 0:
                subprocess.run(["chattr", "+i", str(folder)], check=True)
            else:
                folder.chmod(0o555)
    locked: list[Path] = []
    fake_model.append(lock)
    try:
        code, err = _summarize(capsys, _day(tmp_path), "--out", tmp_path / "out")
    finally:
        for folder in locked:
            if os.geteuid() == 0:
                subprocess.run(["chattr", "-i", str(folder)], check=True)
            folder.chmod(0o755)
    _clean(err)
    assert code == 2 and "the folder cannot be written to" in err, err
    assert (tmp_path / "out" / f"{DATE}-summary.md").is_file()
    fake_model.clear()
    monkeypatch.setattr("precis.engine.runs.state.process_alive", lambda *a: False)   # that process is gone
    code, err = _summarize(capsys, "--resume", locked[0].name, "--out", tmp_path / "resumed")
    assert code == 0, err
