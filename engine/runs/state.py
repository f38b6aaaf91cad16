"""Run state on disk, written atomically after every round, so nothing finished is ever lost.

<data dir>/runs/<run id>/state.json holds the settings, the inputs' fingerprints (each document's
text hash, the model file's fingerprint, the plan's hash) and every finished round with its summary.
A cancelled, crashed or killed run resumes from its last finished round; if the document, the model
or the plan changed, resuming is refused with a message that says which.

Each save keeps the checkpoint before it as state.prev.json: a state.json damaged or lost outside Precis
(truncated, emptied, overwritten) is said so, and the run goes on from the one before (issue 40). A
checkpoint that cannot be written (a full disk, a folder made read-only) is a CheckpointError that says
where, why and how to go on; the checkpoints before it stand.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import time
from dataclasses import dataclass, field, fields
from pathlib import Path

from precis.engine.errors import BadInput
from precis.engine.events import RoundRecord
from precis.engine.storage.atomic_files import write_json_atomic
from precis.engine.storage.paths import runs_dir

STATE_FILE, PREVIOUS_STATE_FILE = "state.json", "state.prev.json"

# 2: rounds are typed records, and the run request (every option) replaces the CLI's option names.
STATE_VERSION = 2
_FINGERPRINT_BYTES = 4 * 2**20


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def model_fingerprint(path: Path) -> str:
    """Size plus the hash of the first and last 4 MiB: hashing a 5 GB file on every run would take
    longer than many runs; a changed or re-quantized model changes its header and tensor data."""
    path = Path(path)
    size = path.stat().st_size
    h = hashlib.sha256(str(size).encode())
    with path.open("rb") as fh:
        h.update(fh.read(_FINGERPRINT_BYTES))
        if size > _FINGERPRINT_BYTES:
            fh.seek(max(_FINGERPRINT_BYTES, size - _FINGERPRINT_BYTES))
            h.update(fh.read())
    return f"{size}:{h.hexdigest()[:32]}"


def plan_hash(plan_identity: dict) -> str:
    return hashlib.sha256(json.dumps(plan_identity, sort_keys=True).encode()).hexdigest()[:32]


@dataclass
class RunState:
    run_id: str
    strategy: str
    model_path: str
    model_fingerprint: str
    settings: dict
    layout: dict                         # preset name, rules text, date, language
    budget: dict
    documents: list[dict]                # name, text_sha256, chars, chunks [(start, end, sent_start, tokens)]
    plan_hash: str
    files: list[str] = field(default_factory=list)
    request: dict = field(default_factory=dict)          # the run request (models.session), for resume
    rounds: list[RoundRecord] = field(default_factory=list)

    summaries: dict = field(default_factory=dict)          # document -> current summary
    notes: dict = field(default_factory=dict)              # document -> verified notes (Note dicts)
    evidence: dict = field(default_factory=dict)           # document -> summary lines with their note ids
    inputs: dict = field(default_factory=dict)             # files skipped or unreadable, what reading guessed
    status: str = "running"              # running, finished, cancelled, failed (interrupted: see effective_status)
    message: str = ""
    owner_pid: int = 0                   # the process running it, and when that process started: a run whose
    owner_started_at: float = 0.0        # owner is gone (killed, crashed, power cut) is "interrupted"
    created_at: float = field(default_factory=time.time)
    updated_at: float = 0.0
    version: int = STATE_VERSION
    # not saved: what reading it had to say (its state.json was damaged: the checkpoint before it was read)
    notice: str = field(default="", compare=False, repr=False)

    @property
    def directory(self) -> Path:
        return runs_dir() / self.run_id

    @property
    def effective_status(self) -> str:
        """The status as a person should read it: "running" only while its owner process is alive."""
        if self.status == "running" and not process_alive(self.owner_pid, self.owner_started_at or None):
            return "interrupted"
        return self.status

    def claim(self) -> None:
        """This process runs the run from now on (a resumed run changes owner)."""
        self.owner_pid = os.getpid()
        self.owner_started_at = process_started_at(self.owner_pid) or 0.0

    def rounds_of(self, document: str, kind: str | None = None) -> list[RoundRecord]:
        return [r for r in self.rounds if r.document == document and (kind is None or r.kind == kind)]

    def as_dict(self) -> dict:
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "notice"}
        data["rounds"] = [r.as_dict() for r in self.rounds]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "RunState":
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
            raise ValueError(f"state version {data.get('version') if isinstance(data, dict) else '?'}, "
                             f"this Precis reads version {STATE_VERSION}")
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known and k != "notice"}
        values["rounds"] = [RoundRecord.from_dict(r) for r in values.get("rounds", [])]
        return cls(**values)

    def save(self) -> None:
        """Checkpoint atomically, the one before kept as state.prev.json. CheckpointError when it cannot
        be written; the checkpoints before it stand."""
        self.updated_at = time.time()
        path = self.directory / STATE_FILE
        written = path.with_name(".state.new.json")
        try:
            write_json_atomic(written, self.as_dict())      # whole first: a full disk leaves state.json as it was
            if path.exists() and not self.notice:       # (read from the one before: that one is the good one)
                os.replace(path, path.with_name(PREVIOUS_STATE_FILE))
            os.replace(written, path)
        except OSError as exc:
            raise CheckpointError(self, exc) from exc
        self._saved_rounds = len(self.rounds)
        self.notice = ""


class CheckpointError(BadInput):
    """A checkpoint could not be written (a full disk, a read-only folder): exit 2, as the preflight's
    check of the same folder; the last checkpoint written stands, so the run resumes from it."""

    def __init__(self, state: RunState, exc: OSError) -> None:
        why = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else \
            "the folder cannot be written to" if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) else \
            (exc.strerror or str(exc))
        saved = getattr(state, "_saved_rounds", None)
        kept = f"The last checkpoint holds {saved} finished round{'s' if saved != 1 else ''}" if saved is not None \
            else "No checkpoint was written yet"
        super().__init__(f"Could not save the checkpoint of run {state.run_id} in {state.directory}: {why} "
                         f"({exc.strerror or exc}). {kept}. Free some space or make the folder writable, then "
                         f"resume with `precis summarize --resume {state.run_id}`.")


def new_run_id(date: str, plan_digest: str) -> str:
    """DATE-HHMMSS-PLAN, and a count after it when a run of the same plan started in the same second
    (the same document run twice in a row, another seed): each keeps its own checkpoint folder."""
    base = f"{date}-{time.strftime('%H%M%S')}-{plan_digest[:6]}"
    run_id, n = base, 1
    while (runs_dir() / run_id).exists():
        n += 1
        run_id = f"{base}-{n}"
    return run_id


def _run_folder(run: str) -> Path:
    candidate = Path(run)
    if candidate.is_dir():
        return candidate
    if candidate.name in (STATE_FILE, PREVIOUS_STATE_FILE) and candidate.parent.is_dir():
        return candidate.parent
    return runs_dir() / run


def _why_unreadable(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return "not text: binary junk"
    if isinstance(exc, json.JSONDecodeError):
        return "empty" if not exc.doc.strip() else f"not complete JSON: {exc.msg} at line {exc.lineno}"
    return str(exc) if isinstance(exc, OSError) else f"not a run's state: {exc}"


def read_run_folder(folder: Path) -> tuple[RunState | None, list[str]]:
    """(the run's state, what is wrong with its files): state.json, else the checkpoint before it (the
    state's ``notice`` then says so); None when neither reads."""
    problems = []
    for name in (STATE_FILE, PREVIOUS_STATE_FILE):
        try:
            state = RunState.from_dict(json.loads((folder / name).read_text(encoding="utf-8")))
        except FileNotFoundError:
            problems.append(f"{name} is missing")
            continue
        except (ValueError, TypeError, KeyError, AttributeError, OSError) as exc:
            problems.append(f"{name} is damaged ({_why_unreadable(exc)})")
            continue
        if problems:
            state.notice = (f"{problems[0]}; read the checkpoint before it, {len(state.rounds)} finished "
                            f"round{'s' if len(state.rounds) != 1 else ''}")
        return state, problems
    return None, problems


def load_state(run: str) -> RunState:
    """A run by id (under the runs folder) or by the path of its folder or state.json; its state.json
    damaged or missing, the checkpoint before it, said in the state's ``notice``."""
    folder = _run_folder(run)
    state, problems = read_run_folder(folder) if folder.is_dir() else (None, [])
    if state is None and not problems:
        raise BadInput(f"No run {run!r} to resume (looked in {runs_dir()}). `precis runs` lists them.")
    if state is None:
        raise BadInput(f"Run {folder.name} cannot be resumed: {' and '.join(problems)}. What it wrote is kept in "
                       f"{folder}; start the run again.")
    return state


@dataclass(frozen=True)
class DamagedRun:
    """A run folder none of whose checkpoints reads: kept as it is, listed with what is wrong."""
    folder: Path
    problems: tuple[str, ...]


def list_runs(damaged: list[DamagedRun] | None = None) -> list[RunState]:
    """Saved runs, newest first; a run whose state.json is damaged is read from the checkpoint before it
    (its ``notice`` says so). Folders with neither readable go to ``damaged`` when given (never dropped in
    silence: `precis runs` lists them); a folder with no checkpoint at all is not a run."""
    out = []
    root = runs_dir()
    if not root.is_dir():
        return out
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        state, problems = read_run_folder(folder)
        if state is not None:
            out.append(state)
        elif damaged is not None and not all(p.endswith("is missing") for p in problems):
            damaged.append(DamagedRun(folder, tuple(problems)))
    return sorted(out, key=lambda s: s.updated_at or s.created_at, reverse=True)


def unfinished_runs() -> list[RunState]:
    """Runs that can be resumed: cancelled, failed or interrupted; not one another process is running."""
    return [s for s in list_runs() if s.effective_status in ("interrupted", "cancelled", "failed")]


def process_started_at(pid: int) -> float | None:
    try:
        import psutil
        return psutil.Process(pid).create_time()
    except Exception:  # no such process, or psutil cannot see it
        return None


def process_alive(pid: int, started_at: float | None = None) -> bool:
    """Is process ``pid`` alive, and the same process (its start time matches: PIDs are reused)?"""
    if not pid:
        return False
    now_started = process_started_at(pid)
    if now_started is None:
        return False
    return started_at is None or abs(now_started - started_at) < 1.0


def check_resumable(saved: RunState, current: RunState) -> None:
    """Refuse to resume when what the run was made of has changed; say what changed."""
    if saved.status == "finished":
        raise BadInput(f"Run {saved.run_id} already finished; its results are in {saved.directory}.")
    if saved.effective_status == "running":
        raise BadInput(f"Run {saved.run_id} is running in another process (pid {saved.owner_pid}); wait for it or "
                       "stop it first.")
    for old, new in zip(saved.documents, current.documents):
        if old["text_sha256"] != new["text_sha256"]:
            raise BadInput(f"{old['name']} changed since run {saved.run_id} started; resuming would mix two "
                           "versions. Start a new run.")
    if len(saved.documents) != len(current.documents):
        raise BadInput(f"Run {saved.run_id} had {len(saved.documents)} documents, now there are "
                       f"{len(current.documents)}. Start a new run.")
    if saved.model_fingerprint != current.model_fingerprint:
        raise BadInput(f"The model file changed since run {saved.run_id} started ({Path(saved.model_path).name}); "
                       "resume with the same model or start a new run.")
    if saved.plan_hash != current.plan_hash:
        raise BadInput(f"The plan of run {saved.run_id} differs from the current one (context, caps, rules or "
                       "preset changed). Resume with the same settings or start a new run.")

