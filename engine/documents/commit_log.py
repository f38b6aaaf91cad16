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

Not every commit belongs in a changelog (``changelog_weight``). On the development project logs, the
commits whose diffstat also touches the project's CHANGES file are the ones its hand-written changelog
lists (the author recorded them there); a commit that touches only the CHANGES file is that bookkeeping
("CHANGES に記載"); a commit reverted within the log, and its revert, changed nothing; a version bump
that a later commit of the log bumps again is not the release's version (cmake 3.25.1, then 3.27.4);
trial and error ("...やってみる", "WIP") and housekeeping ("コード整理", "typo") are never listed,
documentation-only commits seldom.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

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
    hash: str = ""
    files: tuple[str, ...] = ()  # the paths its diffstat names (a --stat log), else ()
    date: str = ""               # its Date header as written ("2021-12-25 00:06:50 +0900"), else ""
    reverts: str = ""            # the hash (or, without one, the subject) of the commit it reverts


_HASH = re.compile(r"[0-9a-f]{7,40}")
_STAT_PATH = re.compile(r"^[ \t]*(\S[^|\n]*?)\s+\|\s*(?:\d+|Bin)\b", re.M)
_DATE_HEADER = re.compile(r"^Date:\s*(\S[^\n]*)", re.M)
_REVERT_SUBJECT = re.compile(r'^Revert "(.+)"$')
_REVERTS_HASH = re.compile(r"This reverts commit ([0-9a-f]{7,40})")


def _subject_after(text: str, at: int) -> Subject | None:
    """The first non-empty line from ``at``, when only blank lines come before it."""
    m = re.compile(r"(?:[ \t]*\n)*[ \t]*(\S[^\n]*)").match(text, at)
    if m is None or m.group(1).startswith("commit "):
        return None
    return Subject(m.start(1), m.group(1).rstrip())


def _with_details(subject: Subject, hash_: str, headers: str, block: str) -> Subject:
    """The subject with what its commit's block says of it: files, date, the commit it reverts."""
    date = _DATE_HEADER.search(headers)
    reverted = _REVERTS_HASH.search(block)
    by_subject = _REVERT_SUBJECT.match(subject.text)
    reverts = reverted.group(1) if reverted else by_subject.group(1) if by_subject else ""
    return Subject(subject.start, subject.text, hash_, tuple(m.group(1).strip() for m in _STAT_PATH.finditer(block)),
                   date.group(1).strip() if date else "", reverts)


def commit_subjects(text: str) -> list[Subject]:
    """The subject of every commit of a git log in ``text``, in order, with its files, date and what it
    reverts where the log says; [] when ``text`` is not one (too few commits, or mostly other text)."""
    headers = list(_COMMIT.finditer(text))
    found = []
    for i, m in enumerate(headers):
        subject = _subject_after(text, m.end())
        if subject:
            block = text[m.end():headers[i + 1].start() if i + 1 < len(headers) else len(text)]
            found.append(_with_details(subject, _HASH.search(m.group(0)).group(0), m.group(1), block))
    if len(found) < MIN_COMMITS:
        found = []
        for m in _ONELINE.finditer(text):
            subject = _subject_after(text, m.end())
            if subject:
                by_subject = _REVERT_SUBJECT.match(subject.text)
                found.append(Subject(subject.start, subject.text, _HASH.search(m.group(0)).group(0),
                                     reverts=by_subject.group(1) if by_subject else ""))
    if len(found) < MIN_COMMITS:
        return []
    subjects = {s.text.strip() for s in found}
    lines = [ln for ln in text.splitlines() if ln.strip()]
    log_lines = sum(1 for ln in lines if _LOG_LINE.match(ln) or ln.strip() in subjects)
    return found if log_lines >= MIN_LOG_LINE_SHARE * len(lines) else []


# How much a commit belongs in a changelog (a factor on its salience; 0: it does not)
CHANGELOG_WEIGHT = 3.0           # it touches the CHANGES file and more: its author listed it there
# Documentation only: the development logs' changelogs list none, but a reader may want a new guide named
DOCS_ONLY_WEIGHT = 0.5
# The build's own machinery only (CI workflows, dependabot, issue templates): 19 such commits in the two
# development logs ("windows-latest から windows-2019 にする", "Bump actions/checkout from 2 to 3"), none in
# their changelogs; one that the CHANGES file lists too weighs as listed
_CI_FILE = re.compile(r"^(?:\.github/|\.gitlab-ci\.yml$|\.gitlab/|\.circleci/|\.travis\.yml$|azure-pipelines\.yml$"
                      r"|\.buildkite/|Jenkinsfile$)")
_CHANGELOG_FILE = re.compile(r"(?i)(?:^|/)(?:CHANGES|CHANGELOG|HISTORY|NEWS|RELEASE[_-]?NOTES)(?:\.[a-z]+)?$")
_DOCS_FILE = re.compile(r"(?i)(?:^|/)(?:docs?/.*|README[^/]*|[^/]+\.(?:md|rst|adoc))$")
# Trial and error on the way to a change, and housekeeping: no changelog of the development logs lists
# "バージョン指定せずにやってみる" (trying without a version), "uv がズレてるのを直す実験" (an experiment),
# "JetPack 5.1 への対応中" (work in progress), "コード整理" (tidying) or "ログレベルを下げる". Given a
# lower weight only, they still filled what a part's share of the summary left (3 of one log's 52 notes).
_TRIAL = re.compile("|".join([
    r"てみる|てみた|やってみ|を?試す|お試し|実験|対応中|作業中|雰囲気",
    r"\bWIP\b|^(?:try|tmp|temp|test|experiment)\b"]), re.I)
_HOUSEKEEPING = re.compile("|".join([
    r"^(?:修正|fix|fixes|fixed)$",
    r"コード整理|コードを整理|リファクタ|タイポ|誤字|ログレベル|指摘を受けた|レビュー指摘",
    r"\btypos?\b|^refactor|\bclean ?up\b|^(?:format|lint|style)\b|^fix (?:lint|format|style)",
    r"^(?:chore|ci|style|refactor|test)(?:\([^)]*\))?!?:"]), re.I)      # Conventional Commits' kinds
# "Update README.md": the web editor's default message, naming a file and nothing of the change
_EDITOR_DEFAULT = re.compile(r"^Update \S+\.[A-Za-z]{1,5}$")
# A dependency's version raised: "Bump actions/checkout from 2 to 3", "SDL を 2.0.20 に上げる",
# "cmake のバージョンを 3.27.4 に上げる", "Update Boost to 1.83.0"; the name is the group's key
_BUMP = re.compile(
    r"^(?:Bump (?P<en>\S+) from \S+ to (?P<en_v>\S+)"
    r"|(?:Update|Upgrade) (?P<up>\S+) to (?P<up_v>v?\d\S*)"
    r"|`?(?P<ja>[A-Za-z][\w.+/-]*)`?\s*(?:の\s*バージョン)?\s*(?:を\s*)?(?:`?(?P<ja_v>v?m?\d[\w.]*)`?\s*(?:に|へ)\s*)?"
    r"(?:上げる|あげる|更新|アップデート|バージョンアップ))")
_VERSION = re.compile(r"\d")
_FILE_NAME = re.compile(r"\.[A-Za-z]{1,5}$")


def bumped_dependency(subject: str) -> tuple[str, bool] | None:
    """(the dependency's name in lower case, whether the subject names the new version) when the subject
    raises a dependency's version, else None."""
    m = _BUMP.match(subject.strip())
    if m is None:
        return None
    name = m.group("en") or m.group("up") or m.group("ja")
    if _FILE_NAME.search(name):
        return None                             # "FAQ.md を更新": a document, not a dependency
    version = m.group("en_v") or m.group("up_v") or m.group("ja_v")
    return name.lower(), bool(version and _VERSION.search(version))


def changelog_weight(subjects: list[Subject]) -> dict[int, float]:
    """By each subject's ``start``: how much its commit belongs in the log's changelog (see the module's
    docstring). 1.0 for an ordinary commit, more when it touches the CHANGES file too, less for
    documentation only; 0.0 for the changelog's bookkeeping, the build's CI machinery alone, trial and
    error, housekeeping, the web editor's default message, a reverted commit and its revert, and a
    dependency bump that a later commit bumps again (the bump kept weighs as the most listed of its
    dependency's bumps)."""
    weight = {s.start: 1.0 for s in subjects}
    for s in subjects:
        changelog = [f for f in s.files if _CHANGELOG_FILE.search(f)]
        if changelog and all(_CHANGELOG_FILE.search(f) or _DOCS_FILE.search(f) for f in s.files):
            weight[s.start] = 0.0                   # "CHANGES 更新": the changelog's own bookkeeping
        elif changelog:
            weight[s.start] = CHANGELOG_WEIGHT
        elif s.files and all(_DOCS_FILE.search(f) for f in s.files):
            weight[s.start] = DOCS_ONLY_WEIGHT
        elif s.files and all(_CI_FILE.search(f) for f in s.files):
            weight[s.start] = 0.0
        if _TRIAL.search(s.text) or _HOUSEKEEPING.search(s.text) or _EDITOR_DEFAULT.match(s.text):
            weight[s.start] = 0.0
    for s in subjects:
        if not s.reverts:
            continue
        undone = [t for t in subjects if t is not s and (
            (t.hash and (t.hash.startswith(s.reverts) or s.reverts.startswith(t.hash))) or t.text == s.reverts)]
        for t in undone + ([s] if undone else []):
            weight[t.start] = 0.0
    # the release's version of each dependency is its last bump that names one (the last bump, if none does)
    bumps: dict[str, list[tuple[Subject, bool]]] = {}
    for s in chronological(subjects):
        found = bumped_dependency(s.text)
        if found:
            bumps.setdefault(found[0], []).append((s, found[1]))
    for group in bumps.values():
        named = [s for s, has_version in group if has_version]
        kept = named[-1] if named else group[-1][0]
        # an earlier bump listed in the CHANGES file makes the dependency one the changelog lists
        weight[kept.start] = max(weight[s.start] for s, _ in group) if weight[kept.start] else 0.0
        for s, _ in group:
            if s is not kept:
                weight[s.start] = 0.0
    return weight


_DATE_FORMATS = ("%Y-%m-%d %H:%M:%S %z", "%Y-%m-%dT%H:%M:%S%z", "%a %b %d %H:%M:%S %Y %z")


def _when(date: str) -> datetime | None:
    for form in _DATE_FORMATS:
        try:
            return datetime.strptime(date.strip(), form)
        except ValueError:
            continue
    return None


def commit_days(text: str) -> dict[int, str]:
    """By each commit subject's offset in ``text``: the day its Date header gives ("2021-12-25"), for the
    commits of a git log whose header says one in a form git writes; {} for a text that is no log."""
    return days_of(commit_subjects(text))


def days_of(subjects: list[Subject]) -> dict[int, str]:
    """``commit_days`` of subjects already found (the log is not parsed again)."""
    return {s.start: when.date().isoformat() for s in subjects if (when := _when(s.date))}


def chronological(subjects: list[Subject]) -> list[Subject]:
    """Oldest first. ``git log`` prints the newest first unless asked ``--reverse``: the Date headers
    tell which (git's default, ISO and strict ISO forms); without them, git's default order is assumed."""
    dated = [when for s in subjects if (when := _when(s.date))]
    if len(dated) >= 2 and dated[0] <= dated[-1]:
        return list(subjects)
    return list(reversed(subjects))
