"""`precis runs`: saved runs, newest first; unfinished ones say how to resume them."""
from __future__ import annotations

import json
from pathlib import Path

from precis.engine.documents.loading import display_name
from precis.engine.errors import ExitCode
from precis.engine.runs.state import list_runs


def run(args) -> int:
    damaged = []
    runs = list_runs(damaged)
    if args.json:
        print(json.dumps([{"run_id": r.run_id, "status": r.effective_status, "rounds": len(r.rounds),
                           "files": r.files, "directory": str(r.directory), "message": r.message,
                           "notice": r.notice} for r in runs]
                         + [{"run_id": d.folder.name, "status": "damaged", "rounds": None, "files": [],
                             "directory": str(d.folder), "message": "; ".join(d.problems), "notice": ""}
                            for d in damaged], indent=2))
        return ExitCode.OK
    if not runs and not damaged:
        print("No saved runs.")
    for r in runs:
        status = r.effective_status
        shown = "interrupted, resumable" if status == "interrupted" else status
        print(f"{r.run_id}  {shown:<11} {len(r.rounds):>4} rounds  {', '.join(display_name(Path(f)) for f in r.files)}"
              + ("  (resume: precis summarize --resume " + r.run_id + ")" if status not in ("finished", "running")
                 else "") + (f"  [{r.notice}]" if r.notice else ""))
    for d in damaged:       # kept as they are, never dropped in silence
        print(f"{d.folder.name}  damaged: {' and '.join(d.problems)}; what it wrote is kept in {d.folder}")
    return ExitCode.OK
