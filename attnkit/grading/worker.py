"""What every local grading worker forks with: the worker server (Python's forkserver,
``attnkit.upstream.workers.start_worker_server``) imports this module once."""

from __future__ import annotations

import contextlib
import gc
import os
from pathlib import Path

from attnkit.grading.cluster import frozen_imports
from attnkit.upstream.workers import COURSE_ENV

with frozen_imports():
    import distributed  # noqa: F401
    import nbformat
    from nbconvert.filters.highlight import Highlight2HTML
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.nbgraderformat import MetadataValidator
    from sqlalchemy.orm import configure_mappers
    from traitlets.utils.importstring import import_item

    import attnkit.grading.grader  # noqa: F401
    from attnkit import course
    from attnkit.pipeline import feedback, fingerprint

    # First-use work each worker would otherwise repeat, into caches that cannot go stale:
    # the files that define the kit's checks (by path and modification time), the regular
    # expressions of the lexer that colours the feedback pages' code, and the gradebook's
    # ORM mappings.
    fingerprint.read_sources()
    Highlight2HTML(pygments_lexer="ipython3")("pass")
    configure_mappers()


def warm_course(root: Path) -> None:
    """Check each released notebook of the course as grading does and render it as a
    feedback page with no grades, throwing the page away.

    Every cache this fills is keyed by what it was computed from, so grades and pages stay
    the same: nbformat's and nbgrader's compiled schemas, the exporter's compiled templates,
    and the coloured code and rendered markdown of the release's cells, which every student's
    page repeats. Filled here, before any worker forks, they come with every worker, instead
    of each paying for them with its first submission and its first of each assignment."""
    config = course.load_config(root)
    exporter_class = config.GenerateFeedback.get("exporter_class")
    if exporter_class is None:
        return
    if isinstance(exporter_class, str):
        exporter_class = import_item(exporter_class)
    exporter = exporter_class(config=config)
    coursedir = CourseDirectory(config=config)
    for assignment in course.assignments(root):
        release = Path(coursedir.format_path(coursedir.release_directory, ".", assignment))
        for path in sorted(release.glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            nbformat.validate(nb)
            MetadataValidator().validate_nb(nb)
            # as the grading kernel sets it: the lexer is part of the coloured code's key
            nb.metadata.language_info = {"name": "python", "pygments_lexer": "ipython3"}
            for cell in nb.cells:  # what nbgrader's GetGrades adds for the template
                grading = cell.metadata.get("nbgrader", {})
                grading["score"], grading["comment"] = 0.0, None
            exporter.from_notebook_node(nb, {"nbgrader": {
                "student": "", "assignment": assignment, "notebook": path.stem,
                "score": 0.0, "max_score": 0.0, "late_penalty": 0.0},
                "heading_offset": feedback.HEADING_OFFSET})


if os.environ.get(COURSE_ENV):
    # a course whose own feedback template wants more than the grades is simply not warmed:
    # its workers fill the same caches with their first pages
    with contextlib.suppress(Exception):
        warm_course(Path(os.environ[COURSE_ENV]))
    gc.collect()  # the pages themselves
    gc.freeze()
