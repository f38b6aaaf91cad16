"""`precis summarize FILES...`: the headless run, for people and for the nightly scheduled archive.

Progress on stderr (round i of N, summary length, the curve so far as a sparkline, collapse marks);
with --json-events, every event as one JSON line on stdout instead. Writes DATE-summary.md,
DATE-todos.md and DATE-run.json to --out. Exit codes: 0 finished, 2 bad input, 3 model error,
130 cancelled (Ctrl-C stops after the current token; finished rounds are kept for --resume).
"""
from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

from engine.checkpoints import check_resumable, load_state
from engine.collapse_guard import GuardSettings
from engine.errors import BadInput
from engine.events import (CollapseDetected, CompactionDone, NoiseSkipped, RoundFinished, RoundRepaired,
                           RoundStarted, RunFinished, RunPlanned, TokensGenerated, event_dict)
from engine.memory_plan import MIB, available_ram_bytes, plan_memory
from engine.run_report import make_report, write_outputs
from engine.runtime import CancelToken, LlamaRuntime
from engine.runtime_settings import KV_TYPES, RuntimeSettings
from engine.speed_log import record_speeds
from engine.strategies import STRATEGIES
from engine.summarizer import RunOptions, new_state, run_summary
from models.bundled import resolve_model_path
from models.gguf_facts import read_model_facts

EXIT_OK, EXIT_BAD_INPUT, EXIT_MODEL, EXIT_CANCELLED = 0, 2, 3, 130
SPARK = "▁▂▃▄▅▆▇█"
# Options that shape the plan: saved with the run, and taken from it on --resume.
PLAN_OPTIONS = ("model", "n_ctx", "kv_type", "swa_full", "per_file", "preset", "rules_text", "date", "language",
                "summary_cap", "summary_in_cap", "margin", "overlap", "strategy", "no_skip_noise", "collapse_ratio")


def add_parser(sub, add_document_options) -> None:
    p = sub.add_parser("summarize", help="summarize documents headless (progress on stderr)")
    p.add_argument("files", nargs="*", type=Path, help="documents (or folders); with --resume, optional")
    p.add_argument("--model", default="default", help="path to a .gguf file, or `default`")
    p.add_argument("--n-ctx", type=int, default=4096, help="context length in tokens (multiple of 256)")
    p.add_argument("--kv-type", choices=KV_TYPES, default="f16")
    p.add_argument("--swa-full", action="store_true")
    p.add_argument("--strategy", choices=STRATEGIES, default="rolling")
    p.add_argument("--out", type=Path, default=Path("."), help="folder for DATE-summary.md, -todos.md, -run.json")
    p.add_argument("--resume", metavar="RUN", help="continue a cancelled, failed or killed run (id or folder)")
    p.add_argument("--json-events", action="store_true", help="print every event as a JSON line on stdout")
    p.add_argument("--collapse-ratio", type=float, default=GuardSettings.shrink_ratio,
                   help="a round whose summary is shorter than this share of the previous one is a collapse")
    p.add_argument("--no-skip-noise", action="store_true",
                   help="send log/tool-only chunks to the model too (default: as the preset says)")
    p.add_argument("--max-rounds", type=int, default=10_000, help="hard cap on model rounds")
    add_document_options(p)


def run(args) -> int:
    resume_state = None
    if args.resume:
        resume_state = load_state(args.resume)
        for key, value in resume_state.options.items():   # the run's own plan, not today's defaults
            setattr(args, key, value)
        if not args.files:
            args.files = [Path(f) for f in resume_state.files]
    if not args.files:
        raise BadInput("No documents given. Usage: precis summarize FILES... (or --resume RUN)")
    model_path = resolve_model_path(args.model)
    facts = read_model_facts(model_path)
    settings = RuntimeSettings.for_kv_type(args.kv_type, n_ctx=args.n_ctx, swa_full=args.swa_full)
    memory = plan_memory(facts, settings, available_ram_bytes())
    if memory.verdict == "won't fit":
        raise BadInput(f"A context of {args.n_ctx:,} tokens needs about {memory.total_bytes / MIB:,.0f} MiB, more than "
                       f"the {memory.available_bytes / MIB:,.0f} MiB available. The largest that fits now is "
                       f"{memory.max_n_ctx:,} (or try --kv-type q8_0).")
    from models.cli import build_plan_from_args, layout_from_args, load_inputs
    loaded = load_inputs(args.files)
    saved_rules = getattr(args, "rules_text", None)   # on --resume: the rules the run started with
    if saved_rules:
        args.rules = None
    layout = layout_from_args(args)
    if saved_rules:
        layout = layout.with_rules(saved_rules)
    options = RunOptions(args.strategy, skip_noise=False if args.no_skip_noise else None,
                         guard=GuardSettings(shrink_ratio=args.collapse_ratio), max_rounds=args.max_rounds)
    emit = _json_emitter() if args.json_events else _ProgressBar(sys.stderr)
    with LlamaRuntime.load(model_path, settings) as runtime:
        plan = build_plan_from_args(args, runtime, model_path, settings, loaded, layout)
        cli_options = {k: _jsonable(getattr(args, k, None)) for k in PLAN_OPTIONS}
        cli_options["rules_text"] = layout.preset.rules
        state = new_state(plan, model_path, settings.as_dict(), options, [str(p.resolve()) for p in args.files],
                          cli_options)
        if resume_state is not None:
            check_resumable(resume_state, state)
            state = resume_state
        cancel = CancelToken()
        previous_handler = signal.signal(signal.SIGINT, lambda *_: cancel.cancel())
        finished = None
        try:
            for event in run_summary(runtime, plan, state, options, cancel):
                emit(event)
                if isinstance(event, RunFinished):
                    finished = event
        finally:
            signal.signal(signal.SIGINT, previous_handler)
        report = make_report(runtime, plan, state)
    _record_speed(model_path, settings, report)
    paths = write_outputs(args.out, report, state)
    if not args.json_events:
        _print_end(finished, report, paths)
    if finished.outcome == "cancelled":
        return EXIT_CANCELLED
    if finished.outcome == "failed":
        print(f"precis: {finished.message}", file=sys.stderr)
        return finished.exit_code or EXIT_MODEL
    return EXIT_OK


def _jsonable(value):
    return str(value) if isinstance(value, Path) else value


def _record_speed(model_path: Path, settings: RuntimeSettings, report: dict) -> None:
    rounds = [r for r in report["rounds"] if r["attempts"]]
    evaluated = sum(r["prompt_evaluated"] for r in rounds)
    generated = sum(r["generated_tokens"] for r in rounds)
    prompt_s = sum(r["prompt_seconds"] for r in rounds)
    gen_s = sum(r["seconds"] - r["prompt_seconds"] for r in rounds)
    if evaluated > 256 and generated > 32 and prompt_s > 0 and gen_s > 0:
        record_speeds(model_path, settings.n_threads, evaluated / prompt_s, generated / gen_s)


def _json_emitter():
    def emit(event) -> None:
        print(json.dumps(event_dict(event), ensure_ascii=False), flush=True)
    return emit


def sparkline(values: list[int], marks: set[int] = frozenset(), width: int = 40) -> str:
    values = values[-width:]
    offset = max(0, len(values) - width)
    top = max(values, default=0) or 1
    return "".join("!" if i + offset in marks else SPARK[min(7, int(v / top * 7.999))] for i, v in enumerate(values))


class _ProgressBar:
    """One updating line on a terminal; one line per round when stderr is a file (cron logs)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.total = 0
        self.curve: list[int] = []
        self.collapses: set[int] = set()
        self.started = time.perf_counter()
        self.round = 0
        self.parts_done = 0
        self.tps = 0.0

    def __call__(self, event) -> None:
        if isinstance(event, RunPlanned):
            self.total = event.rounds
            self.parts_done = event.resumed_from  # compaction rounds make this approximate on resume
            self._line(f"run {event.run_id}: {event.rounds} rounds planned ({event.strategy})"
                       + (f", resuming after {event.resumed_from}" if event.resumed_from else ""), final=True)
        elif isinstance(event, RoundStarted):
            self.round = event.index + 1
            if self.tty:
                self._status(f"{event.kind}{' (retry)' if event.attempt > 1 else ''}")
        elif isinstance(event, TokensGenerated):
            self.tps = event.tokens_per_second
            if self.tty:
                self._status(f"writing {event.generated_tokens} tokens")
        elif isinstance(event, CollapseDetected):
            self.collapses.add(event.index)
            self._line(f"round {event.index + 1}: collapse ({', '.join(event.flags)}): {event.detail}", final=True)
        elif isinstance(event, RoundRepaired):
            self._line(f"round {event.index + 1}: repaired by {event.how.replace('_', ' ')}: {event.detail}",
                       final=True)
        elif isinstance(event, NoiseSkipped):
            self._line(f"round {event.index + 1}: {event.reason}", final=True)
        elif isinstance(event, CompactionDone):
            self._line(f"round {event.index + 1}: compaction {event.before_chars:,} -> {event.after_chars:,} chars"
                       f" ({'accepted' if event.accepted else 'rejected, kept the original'})", final=True)
        elif isinstance(event, RoundFinished):
            r = event.record
            self.curve.append(r.summary_chars)
            if r.kind != "compaction":
                self.parts_done += 1
            self._line(self._summary_line(r), final=not self.tty or self.parts_done >= self.total)

    def _summary_line(self, r) -> str:
        done = self.parts_done
        bar = "#" * int(20 * min(done, self.total) / max(1, self.total))
        elapsed = time.perf_counter() - self.started
        left = elapsed / max(1, done) * max(0, self.total - done)
        what = "compaction" if r.kind == "compaction" else f"{r.kind} {done}/{self.total}"
        return (f"{what} [{bar:<20}] summary {r.summary_chars:,} chars  "
                f"{sparkline(self.curve, self.collapses)}  {_clock(elapsed)} elapsed, ~{_clock(left)} left")

    def _status(self, what: str) -> None:
        self._line(f"{self.parts_done + 1}/{self.total}: {what}  {self.tps:,.1f} tok/s  "
                   f"{sparkline(self.curve, self.collapses)}")

    def _line(self, text: str, final: bool = False) -> None:
        if self.tty:
            self.stream.write("\r\033[K" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


def _print_end(finished: RunFinished, report: dict, paths: list[Path]) -> None:
    t = report["totals"]
    facts = report["facts"]
    kept = sum(f["kept"] for f in facts.values())
    lost = sum(f["lost"] for f in facts.values())
    changed = sum(f["changed"] for f in facts.values())
    out = sys.stderr
    print(f"{finished.outcome}: {len(report['rounds'])} rounds, {t['seconds']:.0f} s model time; prompt tokens "
          f"{t['prompt_evaluated']:,} evaluated + {t['prompt_reused']:,} reused, {t['generated_tokens']:,} generated; "
          f"static prompt evaluated {report['prefix_reuse']['static_prompt_evaluations']}x; "
          f"{len(report['collapses'])} collapses repaired; facts kept {kept}, changed {changed}, lost {lost}",
          file=out)
    if finished.message:
        print(finished.message, file=out)
    for p in paths:
        print(f"wrote {p}", file=out)

