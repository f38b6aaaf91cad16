"""Every repository path and module the documents, docstrings and comments name exists.

Files move (engine/memory_plan.py became engine/planning/memory_plan.py; a design file outside the repository
was cited as if it were in it) and the text that points at them does not follow by itself. This reads
README.md, bench/README.md, docs/*.md and every Python file's comments and docstrings, and fails on a path
under one of the repository's folders, a markdown link, a ``precis.*`` (or ``engine.*``, ``models.*``, ...)
module, or an upper-case ``NAME.md`` that is not in the checkout. Templates (``quality-TAG.json``,
``DIR/<doc>.md``, globs, ``..`` ranges) are not paths and are skipped. bench/results/INDEX.md is left out on
purpose: it lists the results taken out of the tree, by the commit that last had them.
"""
from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("engine", "models", "gui", "tests", "bench", "resources", "docs", ".ci")
# Paths that are a development document's own words, quoted: they name files of that document's project.
QUOTED = {"docs/specs/cache/disk-cache/design.md", "docs/specs/cache/scope.md", "FAQ.md"}

_PATH = re.compile(r"(?<![\w./~-])((?:%s)/[\w./*<>{}-]*[\w/*>}])" % "|".join(re.escape(f) for f in FOLDERS))
_TEMPLATE = re.compile(r"[A-Z]{3,}|\*|\.\.|<|\{")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_MODULE = re.compile(r"(?<![\w./-])((?:precis|engine|models|gui|bench)(?:\.[A-Za-z_]\w*)+)")
_CAPS_DOC = re.compile(r"(?<![\w./-])([A-Z][A-Z_]+\.md)\b")


def _file_names() -> set[str]:
    names = {p.name for p in ROOT.iterdir() if p.is_file()}
    return names | {p.name for folder in FOLDERS if (ROOT / folder).is_dir() for p in (ROOT / folder).rglob("*")}


_FILE_NAMES = _file_names()


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def python_files() -> list[Path]:
    # this file's own docstring and examples name missing paths on purpose
    return sorted(p for folder in FOLDERS if (ROOT / folder).is_dir() for p in (ROOT / folder).rglob("*.py")
                  if p != Path(__file__).resolve())


def comments_and_docstrings(source: str) -> str:
    """The comments and triple-quoted strings of a Python source: where a path is prose, not code."""
    kept = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            kept.append(token.string)
        elif token.type == tokenize.STRING and token.string.lstrip("rbuRBU").startswith(('"""', "'''")):
            kept.append(token.string)
    return "\n".join(kept)


def _defines(module_source: str, name: str) -> bool:
    return bool(re.search(rf"(?m)^\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b|^\s*{re.escape(name)}\s*[:=]"
                          rf"|\bimport\b.*\b{re.escape(name)}\b", module_source))


def module_exists(dotted: str) -> bool:
    """``precis.engine.runs.job`` or ``engine.runs.job.run_job``: a module or package of the checkout, and at
    most two names after it, the first defined in that module (a function, a class, a constant; a method)."""
    parts = dotted.split(".")
    if parts[0] == "precis":
        parts = parts[1:]
    if parts and parts[-1] in {"py", "md", "json", "jsonl", "toml", "txt", "log"}:
        return True   # a file name with a dot in it, checked as a path elsewhere
    for k in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:k])
        for source in (base.with_suffix(".py"), base / "__init__.py"):
            if source.is_file():
                rest = parts[k:]
                return len(rest) <= 2 and (not rest or _defines(source.read_text(encoding="utf-8"), rest[0]))
        if base.is_dir():
            return not parts[k:]
    return False


def path_exists(path: str) -> bool:
    """A file or folder of the checkout, or ``folder/module.name``: a name defined in folder/module.py."""
    if (ROOT / path).exists():
        return True
    module, _, name = path.rpartition(".")
    source = ROOT / f"{module}.py"
    return bool(module) and name.isidentifier() and source.is_file() and \
        _defines(source.read_text(encoding="utf-8"), name)


def stale_names(text: str, here: Path) -> list[str]:
    """The names in ``text`` (found in the file ``here``) that point at nothing in the checkout."""
    stale = []
    for match in _PATH.finditer(text):
        path = match.group(1).rstrip(".")
        if not _TEMPLATE.search(path) and path not in QUOTED and not path_exists(path):
            stale.append(path)
    for match in _MODULE.finditer(text):
        if not module_exists(match.group(1)):
            stale.append(match.group(1))
    for match in _CAPS_DOC.finditer(text):
        name = match.group(1)
        if name not in QUOTED and name not in _FILE_NAMES:
            stale.append(name)
    if here.suffix == ".md":
        for match in _LINK.finditer(text):
            target = match.group(1).split("#")[0]
            if target and "://" not in target and not target.startswith("mailto:") \
                    and not (here.parent / target).exists():
                stale.append(target)
    return stale


@pytest.mark.parametrize("doc", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_a_document_names_exists(doc):
    assert stale_names(doc.read_text(encoding="utf-8"), doc) == []


def test_every_path_a_docstring_or_comment_names_exists():
    stale = {str(p.relative_to(ROOT)): names for p in python_files()
             if (names := stale_names(comments_and_docstrings(p.read_text(encoding="utf-8")), p))}
    assert stale == {}


def test_a_moved_file_is_caught(tmp_path):
    """The checker is not vacuous: each kind of name it reads fails when its target is missing."""
    here = ROOT / "docs" / "memory.md"
    assert stale_names("`engine/memory_plan.py` estimates", here) == ["engine/memory_plan.py"]
    assert stale_names("see [the plan](no-such-file.md)", here) == ["no-such-file.md"]
    assert stale_names("(DESIGN.md, \"The budget\")", here) == ["DESIGN.md"]
    assert stale_names("precis.engine.speed_log and engine.strategies.base", here) == [
        "precis.engine.speed_log", "engine.strategies.base"]
    assert stale_names("precis.models.session.job.no_such_function", here) == [
        "precis.models.session.job.no_such_function"]
    assert stale_names("models/session/job.no_such_function", here) == ["models/session/job.no_such_function"]
    # what exists passes, templates and globs are not paths
    assert stale_names("engine/planning/memory_plan.py, precis.models.session.job.run_job, [x](cli.md), "
                       "models/session/job.run_job, "
                       "bench/results/quality-TAG.json, bench/results/quality-final5*.json", here) == []
