"""The catalogue's single-skill functions as a student would paste them into a notebook.

A skill is a question whose test cell probes one function of its solution cell (read from the
master notebook); the catalogue's entries aimed at it alone are its sample."""

from __future__ import annotations

import inspect
import re
import textwrap

from attnkit import course
from attnkit.dev.validate import load_catalogue
from helpers.course import ROOT
from helpers.questions import single_function

# The sample goes through the course's first and last assignments (ps1 and ps5), as the
# hostile suite's stock run does; their questions are read from the master notebooks
SAMPLED = [course.assignments(ROOT)[0], course.assignments(ROOT)[-1]]
ASSIGNMENTS = {  # assignment -> {test cell -> (solution cell, the name the notebook calls)}
    name: single_function(ROOT, name) for name in SAMPLED}
SKILLS = {check: cells for skills in ASSIGNMENTS.values() for check, cells in skills.items()}
IMPORTS = "import math\nimport warnings\n\nimport numpy as np\nimport scipy.special\n\n"


def sample_entries(assignment: str) -> list:
    """Every other single-skill function of the assignment in the catalogue (wrong and correct)."""
    entries = [e for e in load_catalogue() if len(e.expect) == 1
               and next(iter(e.expect)) in ASSIGNMENTS[assignment]
               and inspect.isfunction(e.targets[0])]
    return entries[::2]


def source_of(function) -> str:
    source = textwrap.dedent(inspect.getsource(function))
    return re.sub(r"^@entry\(.*?\)\n", "", source, flags=re.DOTALL | re.MULTILINE)


def student_code(entry) -> tuple[str, str]:
    """The entry's function, the module helpers it may call, bound to the notebook's name."""
    check = next(iter(entry.expect))
    function = entry.targets[0]
    helpers = [source_of(f) for n, f in function.__globals__.items()
               if n.startswith("_") and inspect.isfunction(f)
               and f.__module__ == function.__module__]
    code = "\n".join([IMPORTS, *helpers, source_of(function)])
    return check, f"{code}\n{SKILLS[check][1]} = {function.__name__}\n"
