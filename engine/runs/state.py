"""Run state on disk, written atomically after every round, so nothing finished is ever lost.

<data dir>/runs/<run id>/state.json holds the settings, the inputs' fingerprints (each document's
text hash, the model file's fingerprint, the plan's hash) and every finished round with its summary.
A cancelled, crashed or killed run resumes from its last finished round; if the document, the model
or the plan changed, resuming is refused with a message that says which.
"""
from __future__ import annotations

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
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["rounds"] = [r.as_dict() for r in self.rounds]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "RunState":
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
            raise ValueError(f"state version {data.get('version') if isinstance(data, dict) else '?'}, "
                             f"this Precis reads version {STATE_VERSION}")
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["rounds"] = [RoundRecord.from_dict(r) for r in values.get("rounds", [])]
        return cls(**values)

    def save(self) -> None:
        self.updated_at = time.time()
        write_json_atomic(self.directory / "state.json", self.as_dict())


def new_run_id(date: str, plan_digest: str) -> str:
    """DATE-HHMMSS-PLAN, and a count after it when a run of the same plan started in the same second
    (the same document run twice in a row, another seed): each keeps its own checkpoint folder."""
    base = f"{date}-{time.strftime('%H%M%S')}-{plan_digest[:6]}"
    run_id, n = base, 1
    while (runs_dir() / run_id).exists():
        n += 1
        run_id = f"{base}-{n}"
    return run_id


def load_state(run: str) -> RunState:
    """A run by id (under the runs folder) or by the path of its folder or state.json."""
    candidate = Path(run)
    path = candidate / "state.json" if candidate.is_dir() else candidate
    if not path.is_file():
        path = runs_dir() / run / "state.json"
    try:
        return RunState.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise BadInput(f"No run {run!r} to resume (looked in {runs_dir()}). `precis runs` lists them.") from None
    except (ValueError, TypeError) as exc:
        raise BadInput(f"The saved state of run {run!r} is damaged ({exc}); start the run again.") from exc


def list_runs() -> list[RunState]:
    out = []
    root = runs_dir()
    if not root.is_dir():
        return out
    for state_file in sorted(root.glob("*/state.json")):
        try:
            out.append(RunState.from_dict(json.loads(state_file.read_text(encoding="utf-8"))))
        except (ValueError, TypeError, KeyError, OSError):
            continue  # a damaged or foreign folder is not a run
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

