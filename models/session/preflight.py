"""Before the model loads: everything a run will write is checked, so a bad output folder, date or full
disk is found in a second, not after an hour of rounds (measured: a run into `--out some-file.txt`
ran every round, then died with a traceback and lost its results).

- the archive date is a real date written YYYY-MM-DD (it goes into file names and the run id: a date
  like "../escaped" once wrote files outside --out);
- the output folder is a folder, exists or can be created, and a file can be written in it;
- no other run is writing the same files (an output lock, with its owner's PID and start time);
- the disk holding the checkpoints has room for them.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import date as _date
from pathlib import Path

from precis.engine.errors import BadInput
from precis.engine.runs.outputs import output_paths
from precis.engine.runs.state import process_alive, process_started_at
from precis.engine.storage.paths import runs_dir

DATE_FORMAT = re.compile(r"\d{4}-\d{2}-\d{2}")
CHECKPOINT_BYTES_PER_DOCUMENT_BYTE = 4        # every round keeps its summary and texts: a generous allowance
CHECKPOINT_MIN_FREE_BYTES = 20 * 2**20


def validate_date(value: str) -> str:
    """The archive date as given, if it is a real date written YYYY-MM-DD; BadInput otherwise."""
    if DATE_FORMAT.fullmatch(value or ""):
        try:
            _date.fromisoformat(value)
            return value
        except ValueError:
            pass
    raise BadInput(f"--date must be a date written YYYY-MM-DD, like {_date.today().isoformat()}; not {value!r}. "
                   "It names the output files, so nothing else is accepted.")


def check_output_folder(out: Path) -> Path:
    """The folder the outputs go to, created if missing; BadInput naming the folder and the fix."""
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise BadInput(f"--out {out} is a file, not a folder. Give a folder for the summary, TODO and run report "
                       "files (it is created if it does not exist).")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".precis-write-check-"):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise BadInput(f"Cannot write the results into {out} ({reason}). Choose a folder you can write to, for "
                       "example --out ~/precis-summaries.") from exc
    return out


def check_checkpoint_room(document_bytes: int) -> None:
    folder = runs_dir()
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    need = max(CHECKPOINT_MIN_FREE_BYTES, CHECKPOINT_BYTES_PER_DOCUMENT_BYTE * document_bytes)
    free = shutil.disk_usage(probe).free
    if free < need:
        raise BadInput(f"Only {free / 2**20:,.0f} MiB are free where Precis keeps its checkpoints ({folder}); this "
                       f"run needs about {need / 2**20:,.0f} MiB. Free some space, or move Precis's data with "
                       "PRECIS_HOME.")


@dataclass
class OutputLock:
    """``out/.DATE.precis-lock``: one run at a time writes DATE-summary.md, -todos.md, -run.json there."""
    path: Path
    held: bool = False

    @classmethod
    def for_outputs(cls, out: Path, date: str) -> "OutputLock":
        return cls(Path(out) / f".{date}.precis-lock")

    def acquire(self) -> None:
        me = {"pid": os.getpid(), "started_at": process_started_at(os.getpid()), "since": time.time()}
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                owner = self._owner()
                if owner and process_alive(owner.get("pid", 0), owner.get("started_at")):
                    since = time.strftime("%H:%M", time.localtime(owner.get("since", 0)))
                    raise BadInput(f"Another Precis run (process {owner['pid']}, since {since}) is writing the "
                                   f"{self.path.name[1:11]} files in {self.path.parent}. Wait for it to finish, or "
                                   "use another --out or --date.") from None
                self.path.unlink(missing_ok=True)          # its owner is gone: a stale lock
                continue
            with os.fdopen(fd, "w") as fh:
                json.dump(me, fh)
            self.held = True
            return
        raise BadInput(f"Could not take the output lock {self.path}; remove it if no Precis run is writing there.")

    def release(self) -> None:
        if self.held:
            self.path.unlink(missing_ok=True)
            self.held = False

    def _owner(self) -> dict | None:
        try:
            return json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None


@dataclass
class Preflight:
    out: Path
    paths: tuple[Path, Path, Path]
    replacing: list[Path]          # existing files this run will replace
    lock: OutputLock


def preflight(out: str | Path, archive_date: str, document_bytes: int) -> Preflight:
    """Check everything the run will write, and take the output lock. Call before loading the model."""
    validate_date(archive_date)
    folder = check_output_folder(Path(out))
    check_checkpoint_room(document_bytes)
    paths = output_paths(folder, archive_date)
    lock = OutputLock.for_outputs(folder, archive_date)
    lock.acquire()
    return Preflight(folder, paths, [p for p in paths if p.exists()], lock)
