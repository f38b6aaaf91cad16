"""Domain errors and the exit codes they map to. Each message says what happened and what to do;
the window shows it, the command line prints it and exits with the error's code."""
from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The command line's exit codes, defined once (docs/cli.md lists them)."""
    OK = 0
    FAILED = 1            # an unexpected failure (a bug): finished rounds are still kept
    BAD_INPUT = 2         # a document, option or output folder that cannot be used
    MODEL = 3             # the model file cannot be loaded or a round cannot be sent
    HUB = 4               # the Hugging Face Hub could not be reached or answered with an error
    SERVER = 5            # the model server could not be reached, refused the request or broke off
    CANCELLED = 130       # stopped by the user (Ctrl-C, SIGTERM, Stop): finished rounds are kept


class PrecisError(Exception):
    """Base of every error Precis reports to a person."""
    exit_code = ExitCode.FAILED


class BadInput(PrecisError):
    """A document, option or file the user gave cannot be used."""
    exit_code = ExitCode.BAD_INPUT


class UnreadableDocument(BadInput):
    pass


class ModelLoadError(PrecisError):
    """The model file could not be loaded (corrupt, truncated, unsupported, out of memory)."""
    exit_code = ExitCode.MODEL


class ContextOverflow(PrecisError):
    """A prompt plus its reply would not fit in the context. The plan must make this impossible."""
    exit_code = ExitCode.MODEL


class Cancelled(PrecisError):
    """The user stopped the work; finished results are kept."""
    exit_code = ExitCode.CANCELLED


class ServerError(PrecisError):
    """The model server could not be reached, refused a request, or broke off a reply."""
    exit_code = ExitCode.SERVER


class ServerContextShort(ServerError):
    """The server rejected or truncated a prompt for length: its context is shorter than planned."""

    def __init__(self, message: str, n_ctx: int | None = None) -> None:
        super().__init__(message)
        self.n_ctx = n_ctx          # the context the server named, when it named one
