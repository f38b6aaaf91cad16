"""A git log's commit subjects: the line each commit's author wrote to say what the commit does.

In a project log (``git log``, with or without ``--stat``; or ``git log --oneline``) the subject line is
the author's own one-line summary of the change, and a changelog, the human summary of such a log, is
made of them: "JetPack を 4.6 に変更", "SDL を 2.0.20 に上げる". The body lines under it are detail. Found
from the text's shape, not the file name:

    commit 81c66d34                         (a hash, 7-40 hex digits)
    Author: torikizi                        (header lines "Name: value")
    Date:   2021-12-26 12:01:11 +0900
                                            (a blank line)
        FAQ.md に追記した内容を見直し         (the subject: the next non-empty line)

or, one commit per line, ``81c66d34 FAQ.md に追記した内容を見直し``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_COMMIT = re.compile(r"^commit [0-9a-f]{7,40}\b[^\n]*\n((?:[A-Z][\w-]*:[^\n]*\n)*)", re.M)
# "* a1b2c3d (HEAD) subject"; a hash has a letter, a line starting "2021120 people" is no commit
_ONELINE = re.compile(r"^(?:\* )?(?=[0-9]*[a-f])[0-9a-f]{7,40} (?:\([^)\n]*\) )?(?=\S)", re.M)
MIN_COMMITS = 3                 # fewer headers than this is a text that mentions commits, not a log of them
# A log is mostly log lines: headers, subjects, indented message lines, diffstats. A day of conversation
# that shows a `git log --oneline -5` is not a log (the bundled sample does: taken for one, its part's
# notes were the five subjects and nothing of the conversation around them).
MIN_LOG_LINE_SHARE = 0.5
_LOG_LINE = re.compile(r"commit [0-9a-f]{7,40}\b|[A-Z][\w-]*:\s|\s{4}\S|.*\|\s*(?:\d+|Bin)\b|\s*\d+ files? changed"
                       r"|(?:\* )?(?=[0-9]*[a-f])[0-9a-f]{7,40} ")


@dataclass(frozen=True)
class Subject:
    start: int                  # offset of its first character in the text searched
    text: str                   # the line, without its indentation


def _subject_after(text: str, at: int) -> Subject | None:
    """The first non-empty line from ``at``, when only blank lines come before it."""
    m = re.compile(r"(?:[ \t]*\n)*[ \t]*(\S[^\n]*)").match(text, at)
    if m is None or m.group(1).startswith("commit "):
        return None
    return Subject(m.start(1), m.group(1).rstrip())


def commit_subjects(text: str) -> list[Subject]:
    """The subject of every commit of a git log in ``text``, in order; [] when ``text`` is not one (too
    few commits, or mostly other text)."""
    found = [s for m in _COMMIT.finditer(text) if (s := _subject_after(text, m.end()))]
    if len(found) < MIN_COMMITS:
        one_per_line = [_subject_after(text, m.end()) for m in _ONELINE.finditer(text)]
        found = [s for s in one_per_line if s]
    if len(found) < MIN_COMMITS:
        return []
    subjects = {s.text.strip() for s in found}
    lines = [ln for ln in text.splitlines() if ln.strip()]
    log_lines = sum(1 for ln in lines if _LOG_LINE.match(ln) or ln.strip() in subjects)
    return found if log_lines >= MIN_LOG_LINE_SHARE * len(lines) else []
