"""The headless command line: `precis models ...`, `precis plan ...`, `precis summarize ...`, `precis runs`.

precis.gui.launcher hands every subcommand here without importing Qt. The run options come from the
run request (precis.models.session.request), declared once; exit codes from precis.engine.errors.
"""
from __future__ import annotations

import argparse
import sys

from precis.engine import __version__
from precis.engine.errors import ExitCode, PrecisError
from precis.models.gguf.header import GGUFError
from precis.models.session.request import PLAN, SUMMARIZE, add_options

# What each exit code means, for --help. Keyed by ExitCode so that a code added there and not here fails at
# import instead of going unlisted (the top-level help once left 5 out).
EXIT_CODE_MEANINGS = {
    ExitCode.OK: "done", ExitCode.FAILED: "unexpected failure",
    ExitCode.BAD_INPUT: "bad input (file, option, output folder)", ExitCode.MODEL: "model error",
    ExitCode.HUB: "Hugging Face Hub unreachable",
    ExitCode.SERVER: "model server (--server) unreachable, refusing or broke off",
    ExitCode.CANCELLED: "cancelled (finished rounds are kept)"}
EXIT_CODES_HELP = "exit codes: " + ", ".join(f"{code.value} {EXIT_CODE_MEANINGS[code]}" for code in ExitCode)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="precis", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Faithful summaries of very long documents, offline, with a local GGUF model.\n"
                    "Run `precis` with no arguments to open the window.", epilog=EXIT_CODES_HELP)
    p.add_argument("--version", action="version", version=f"precis {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    models = sub.add_parser("models", help="the model library: inspect, list, search, download GGUF models")
    msub = models.add_subparsers(dest="models_command", required=True, metavar="WHAT")
    inspect = msub.add_parser("inspect", help="print a GGUF model's facts without loading it")
    inspect.add_argument("model", help="path to a .gguf file, or `default` for the bundled model")
    inspect.add_argument("--json", action="store_true", help="print the facts as JSON (keys: docs/cli.md)")
    listing = msub.add_parser("list", help="GGUF models on this machine (Precis, Hugging Face cache, LM Studio, "
                                           "Ollama, GPT4All, added folders)")
    listing.add_argument("--n-ctx", type=int, default=4096, help="context for the fits-in-RAM verdict (default: 4096)")
    listing.add_argument("--folder", action="append", default=[], help="also scan this folder (repeatable)")
    listing.add_argument("--json", action="store_true", help="print models and skipped files as JSON")
    search = msub.add_parser("search", help="search GGUF repositories on the Hugging Face Hub, by downloads")
    search.add_argument("query", help="words to search for, e.g. `qwen2.5 instruct`")
    search.add_argument("--limit", type=int, default=20, help="how many repositories (default: 20)")
    search.add_argument("--json", action="store_true", help="print the repositories as JSON")
    files = msub.add_parser("files", help="a Hub repository's GGUF files with size, quantization and a fits badge")
    files.add_argument("repo", help="the repository, e.g. `Qwen/Qwen2.5-1.5B-Instruct-GGUF`")
    files.add_argument("--json", action="store_true", help="print the files as JSON")
    download = msub.add_parser("download", help="download one GGUF file from the Hub into Precis's models folder")
    download.add_argument("repo", help="the repository, e.g. `Qwen/Qwen2.5-1.5B-Instruct-GGUF`")
    download.add_argument("file", help="the file name inside it, as `precis models files REPO` lists it")

    plan = sub.add_parser("plan", help="what a context length costs: memory, and with FILES the chunk plan",
                          epilog=EXIT_CODES_HELP)
    add_options(plan, PLAN)
    plan.add_argument("--measure", action="store_true",
                      help="also load the model: show what llama.cpp really allocated, and measure its speed")
    plan.add_argument("--json", action="store_true", help="print the plan as JSON (keys: docs/cli.md)")

    summarize = sub.add_parser("summarize", help="summarize documents headless (progress on stderr)",
                               description="Summarize documents headless, with the local model or through a model "
                                           "server (--server); progress on stderr, results in --out. Every finished "
                                           "round is checkpointed: --resume continues a stopped run.",
                               epilog=EXIT_CODES_HELP)
    add_options(summarize, SUMMARIZE)
    summarize.add_argument("--resume", metavar="RUN", help="continue a cancelled, failed or killed run (id or folder; "
                                                           "`precis runs` lists them)")
    summarize.add_argument("--json-events", action="store_true", help="print every event as a JSON line on stdout")

    runs = sub.add_parser("runs", help="list saved runs (unfinished ones can be resumed)",
                          description="List the saved runs, newest first, with their status and rounds. A cancelled, "
                                      "failed or killed run shows the `precis summarize --resume RUN` that continues "
                                      "it after its last finished round.")
    runs.add_argument("--json", action="store_true", help="print the runs as JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "models":
            from precis.models.cli import library_command
            return library_command.run(args)
        if args.command == "plan":
            from precis.models.cli import plan_command
            return plan_command.run(args)
        if args.command == "summarize":
            from precis.models.cli import summarize_command
            return summarize_command.run(args)
        if args.command == "runs":
            from precis.models.cli import runs_command
            return runs_command.run(args)
    except GGUFError as exc:
        print(f"precis: {exc}", file=sys.stderr)
        return ExitCode.MODEL
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        print(f"precis: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except ValueError as exc:  # invalid settings (n_ctx not a multiple of 256, ...)
        print(f"precis: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except PrecisError as exc:
        print(f"precis: {exc}", file=sys.stderr)
        return exc.exit_code
    parser.print_help()
    return ExitCode.BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
