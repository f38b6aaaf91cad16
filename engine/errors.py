"""Domain errors. Each message says what happened and what to do; the GUI shows it, the CLI prints it."""
from __future__ import annotations


class PrecisError(Exception):
    """Base of every error Precis reports to a person."""
    exit_code = 1


class BadInput(PrecisError):
    """A document, option or file the user gave cannot be used."""
    exit_code = 2


class UnreadableDocument(BadInput):
    pass


class ModelLoadError(PrecisError):
    """The model file could not be loaded (corrupt, truncated, unsupported, out of memory)."""
    exit_code = 3


class ContextOverflow(PrecisError):
    """A prompt plus its reply would not fit in the context. The plan must make this impossible."""
    exit_code = 3


class Cancelled(PrecisError):
    """The user stopped the work; finished results are kept."""
    exit_code = 130
