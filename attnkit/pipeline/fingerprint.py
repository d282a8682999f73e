"""The regrade audit's fingerprints: what defines a check, and what the student wrote.

A check's fingerprint is SHA-256 of the graded cell's source, its points and the files that
define the check: its judge module and the kit's modules that imports, transitively (its
probe and inputs too), the verdicts, follow-through when the check has helpers, and the
course's ``nbgrader_config.py`` when that replaced the check. Files, not live objects, so
every process computes the same fingerprint; an edit anywhere in a check's module changes the
fingerprints of all the checks it holds.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib.util
import os
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from attnkit.judge.chains import CHAINS

KIT = "attnkit"  # imports followed: the kit's own modules, not numpy's or the standard library's
VERDICTS = "attnkit.judge.verdicts"  # judge(): how every check's outputs become a score
CARRY = "attnkit.judge.carry"  # follow-through: how a caller's score follows its helpers
COURSE_CONFIG = "nbgrader_config.py"
Imports = tuple[tuple[str, tuple[str, ...]], ...]  # (module, names imported from it)


@functools.cache
def _read(path: str, mtime_ns: int, size: int) -> tuple[str, Imports]:
    """A file's SHA-256 and its import statements, read once per version of the file."""
    data = Path(path).read_bytes()
    imports: list[tuple[str, tuple[str, ...]]] = []
    with contextlib.suppress(SyntaxError, ValueError):
        for node in ast.walk(ast.parse(data)):
            if isinstance(node, ast.Import):
                imports += [(alias.name, ()) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                imports.append(("." * node.level + (node.module or ""),
                                tuple(alias.name for alias in node.names)))
    return hashlib.sha256(data).hexdigest(), tuple(imports)


def _file(path: str | Path) -> tuple[str, Imports]:
    status = os.stat(path)
    return _read(str(path), status.st_mtime_ns, status.st_size)


@functools.cache
def _where(module: str) -> tuple[str | None, bool]:
    """A module's file and whether it is a package; no file when ``module`` is no module."""
    with contextlib.suppress(ImportError, ValueError, AttributeError):
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.has_location:
            return spec.origin, spec.submodule_search_locations is not None
    return None, False


def _kit_modules(name: str, names: tuple[str, ...], package: str) -> list[str]:
    """The kit's modules one import statement runs: ``from X import a`` is X.a when that is a
    module, else X (a package's ``__init__`` only when something is taken from it)."""
    if name.startswith("."):
        name = importlib.util.resolve_name(name, package)
    if name != KIT and not name.startswith(f"{KIT}."):
        return []
    subs = [f"{name}.{n}" for n in names if _where(name)[1] and _where(f"{name}.{n}")[0]]
    return subs if names and len(subs) == len(names) else [*subs, name]


def module_files(roots: list[str]) -> dict[str, str]:
    """Module -> SHA-256 of its file, for ``roots`` and the kit's modules they import,
    transitively. Named by module, not path, so another checkout gives the same text."""
    found: dict[str, str] = {}
    todo = list(roots)
    while todo:
        module = todo.pop()
        origin, package = _where(module)
        if module in found or origin is None:
            continue
        found[module], imports = _file(origin)
        base = module if package else module.rpartition(".")[0]
        for name, names in imports:
            todo += _kit_modules(name, names, base)
    return found


def _settings(item: Any) -> list[str]:
    """The plain values of a check or mark scheme (tolerances, partial credit, label, text)
    and its ``version`` if it has one: what a course's config may replace."""
    values = {f.name: getattr(item, f.name) for f in fields(item)} if is_dataclass(item) else {}
    values["version"] = getattr(item, "version", None)
    return [f"{k}={v!r}" for k, v in values.items() if isinstance(v, (bool, int, float, str))]


def check_definition(grade_id: str, config: str | Path | None = None) -> str:
    """The text the check fingerprint hashes: the check's plain values, the SHA-256 of each
    file that defines it, and of the course's config (``config``, by default the working
    directory's ``nbgrader_config.py``) when it replaced the kit's check."""
    from attnkit.judge import registry

    item = registry.checks().get(grade_id) or registry.written().get(grade_id)
    kit = next(((module.__name__, items[grade_id])
                for module in registry.assignments().values()
                for items in (getattr(module, "CHECKS", {}), getattr(module, "WRITTEN", {}))
                if grade_id in items), None)
    roots = [kit[0]] if kit else []
    if grade_id in registry.checks():
        roots.append(VERDICTS)
    if grade_id in CHAINS:
        roots.append(CARRY)
    lines = [f"grade id {grade_id}"]
    lines += _settings(item) if item is not None else ["no check"]
    lines += [f"{module} {digest}" for module, digest in sorted(module_files(roots).items())]
    if item is not None and (kit is None or kit[1] is not item):
        path = Path(config) if config else Path.cwd() / COURSE_CONFIG
        try:
            lines.append(f"replaced by the course's config {_file(path)[0]}")
        except OSError:
            lines.append("replaced, not by the course's config")
    return "\n".join(lines)


def read_sources() -> None:
    """Read the files of the kit's checks, so that a process forked after this (a grading
    worker, from the worker server) starts with them read."""
    from attnkit.judge import registry

    for grade_id in [*registry.checks(), *registry.written()]:
        check_definition(grade_id)


def check_hash(grade_id: str, cell_source: str, points: float | None,
               config: str | Path | None = None) -> str:
    text = f"{cell_source}\n--points {points}\n--check\n{check_definition(grade_id, config)}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def submission_hash(nb: Any) -> str:
    """The student's code: solution cells and cells they added, in order."""
    digest = hashlib.sha256()
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and (meta.get("solution") or not meta.get("grade")):
            digest.update(cell.source.encode() + b"\x00")
    return digest.hexdigest()[:16]
