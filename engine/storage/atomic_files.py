"""Files written so that a crash or a kill never leaves half of one: write beside, fsync, rename."""
from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path

_umask: int | None = None
_umask_lock = threading.Lock()


def _file_mode() -> int:
    """The mode a new file gets from open() here (0o666 less the umask); mkstemp's own 0o600 would hide
    summaries from the person's other tools and users."""
    global _umask
    with _umask_lock:
        if _umask is None:
            _umask = os.umask(0)
            os.umask(_umask)
    return 0o666 & ~_umask


def write_text_atomic(path: Path, text: str) -> None:
    """``text`` as UTF-8. A file name that is not UTF-8 (its bytes kept as lone surrogates, as Python reads
    such names) is written backslash-escaped, "\\udcff": strict, it crashed the first checkpoint of a run of
    such a file (issue 40); in JSON that escape reads back as the same name."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data) -> None:
    write_text_atomic(path, json.dumps(data, ensure_ascii=False, indent=1))
