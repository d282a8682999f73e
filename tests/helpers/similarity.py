"""A class planted for the similarity check: independent styles, disguised copies, blanks."""

from __future__ import annotations

import ast
import builtins
import inspect
import itertools
from pathlib import Path

import nbformat

from attnkit.dev.validate import load_catalogue
from attnkit.samples import Sample, build_submission
from helpers.catalogue import IMPORTS, SKILLS, source_of
from helpers.course import copy_course

PAYLOAD = "</pre></span><script>window.__pwned=1</script><img src=x onerror=alert(1)>"


def code_of(function) -> str:
    """The function as a student pastes it: imports, the helpers it calls, the binding."""
    helpers = [source_of(function.__globals__[name]) for name in function.__code__.co_names
               if name.startswith("_") and inspect.isfunction(function.__globals__.get(name))]
    check = next(iter(function.__attnkit_catalogue__.expect))
    return "\n".join([IMPORTS, *helpers, source_of(function),
                      f"{SKILLS[check][1]} = {function.__name__}\n"])


def styles() -> dict[str, list[str]]:
    """Solution cell -> the catalogue's correct single-skill ps1 implementations, as code."""
    found: dict[str, list[str]] = {}
    for e in load_catalogue():
        check = next(iter(e.expect))
        if (e.correct and len(e.expect) == 1 and check in SKILLS
                and inspect.isfunction(e.targets[0])):
            found.setdefault(SKILLS[check][0], []).append(code_of(e.targets[0]))
    return {cell: codes for cell, codes in found.items() if len(codes) > 1}


def disguise(code: str, extra_helper: bool) -> str:
    """Renamed, functions in reverse order, new comments, maybe one more helper."""
    tree = ast.parse(code)
    keep = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    tree = Disguise(keep).visit(tree)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    rest = [n for n in tree.body if not isinstance(n, ast.FunctionDef)]
    imports = [n for n in rest if isinstance(n, (ast.Import, ast.ImportFrom))]
    tree.body = imports + defs[::-1] + [n for n in rest if n not in imports]
    lines = ["# my own solution, written from scratch"]
    for line in ast.unparse(ast.fix_missing_locations(tree)).splitlines():
        lines.append(line)
        if line.lstrip().startswith("def "):
            lines.append(" " * (len(line) - len(line.lstrip()) + 4) + "# step by step")
    if extra_helper:
        lines += ["", "def my_debug_print_x(value):", "    print('value is', value)",
                  "    return value"]
    return "\n".join(lines) + "\n"


A = "ps1_self_attention"


def write(root: Path, student: str, code: dict[str, str], blank: bool = False) -> None:
    master, release = root / "source" / A / f"{A}.ipynb", root / "release" / A / f"{A}.ipynb"
    nb = build_submission(master, release, Sample(student, code, blank=blank))
    if not blank:  # skills with a single catalogue style stay as released, for everyone
        filled = set(code)
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution") and meta.get("grade_id") not in filled:
                cell.source = next(c.source for c in nbformat.read(release, as_version=4).cells
                                   if c.metadata.get("nbgrader", {}).get("grade_id")
                                   == meta["grade_id"])
    out = root / "submitted" / student / A / f"{A}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)


def plant(root: Path) -> tuple[Path, set, set]:
    """A class of four independent students, three disguised copies and two blank releases."""
    copy_course(root)
    found = styles()
    assert len(found) >= 3, f"the catalogue has too few skills with several styles: {found}"
    independent = []
    for i in range(4):  # student i writes style i of each skill that has one: no two alike
        code = {cell: codes[i] for cell, codes in sorted(found.items()) if i < len(codes)}
        if i == 0:  # hostile text in a comment and a string of a student who is copied
            first = sorted(code)[0]
            code[first] = f"# {PAYLOAD}\nNOTE = {PAYLOAD!r}\n" + code[first]
        write(root, f"s{i}", code)
        independent.append((f"s{i}", code))
    copies = set()
    for i, (original, code) in enumerate(independent[:3]):
        cells = sorted(code)
        copied = {cell: disguise(source, extra_helper=(cell == cells[i % len(cells)]))
                  for cell, source in code.items()}
        write(root, f"copy_of_{original}", copied)
        copies.add((original, f"copy_of_{original}"))
    write(root, "blank1", {}, blank=True)
    write(root, "blank2", {}, blank=True)
    pairs = {tuple(sorted(p)) for p in itertools.combinations([s for s, _ in independent], 2)}
    return root, copies, pairs


class Disguise(ast.NodeTransformer):
    """Rename every name the student chose (keeping builtins, modules and attributes)."""

    def __init__(self, keep: set[str]) -> None:
        self.keep = keep | set(dir(builtins))

    def new(self, name: str) -> str:
        return name if name in self.keep else f"my_{name}_x"

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.new(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self.new(node.arg)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.name = self.new(node.name)
        if node.body and isinstance(node.body[0], ast.Expr) and isinstance(
                getattr(node.body[0], "value", None), ast.Constant):
            node.body = node.body[1:] or [ast.Pass()]  # the docstring goes
        self.generic_visit(node)
        return node
