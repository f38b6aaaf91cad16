"""`precis runs`: saved runs, newest first; unfinished ones say how to resume them."""
from __future__ import annotations

import json
from pathlib import Path

from precis.engine.documents.loading import display_name
from precis.engine.errors import ExitCode
from precis.engine.runs.state import list_runs


def run(args) -> int:
    runs = list_runs()
    if args.json:
        print(json.dumps([{"run_id": r.run_id, "status": r.effective_status, "rounds": len(r.rounds),
                           "files": r.files, "directory": str(r.directory), "message": r.message} for r in runs],
                         indent=2))
        return ExitCode.OK
    if not runs:
        print("No saved runs.")
    for r in runs:
        status = r.effective_status
        shown = "interrupted, resumable" if status == "interrupted" else status
        print(f"{r.run_id}  {shown:<11} {len(r.rounds):>4} rounds  {', '.join(display_name(Path(f)) for f in r.files)}"
              + ("  (resume: precis summarize --resume " + r.run_id + ")" if status not in ("finished", "running")
                 else ""))
    return ExitCode.OK
