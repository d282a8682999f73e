"""nbgrader's exchange as the service sees it: submissions waiting in inbound, nbgrader's
collect rule applied to one student, and notices released where ``fetch_feedback`` looks.
"""

from __future__ import annotations

import os
import pwd
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange import ExchangeError
from nbgrader.exchange.default import ExchangeCollect
from nbgrader.utils import ignore_patterns, notebook_hash
from traitlets.config import Config

TEMPLATES = Path(__file__).parent / "templates"
SECRET = "submission_secret.txt"

_pages = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["j2"]),
                     trim_blocks=True, lstrip_blocks=True)


@dataclass(frozen=True)
class Record:
    """One complete submission in inbound."""

    name: str  # the folder's name: student+assignment+timestamp[+random]
    student: str
    assignment: str
    submitted: float  # nbgrader's timestamp as seconds since the epoch


def epoch(moment: datetime) -> float:
    """nbgrader's naive UTC datetimes (``parse_utc``) as seconds since the epoch."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class CollectOne(ExchangeCollect):
    """nbgrader's collect (``nbgrader collect --update``) for one student of one assignment,
    which says which submission nbgrader's rule picks before it copies anything: the latest,
    or with ``ExchangeCollect.before_duedate`` the latest before the due date. Links in a
    submission are copied as links, never followed (intake then removes them)."""

    def _sort_by_timestamp(self, records: list[dict]) -> list[dict]:
        """nbgrader's order, leaving out folders another account wrote under the student's
        name: a forged, later-dated one would otherwise win nbgrader's rule."""
        own = [r for r in records
               if not foreign_owner(Path(self.inbound_path) / r["filename"], r["username"])]
        return super()._sort_by_timestamp(own)

    def chosen(self) -> str | None:
        """The inbound folder the rule picks for ``coursedir.student_id`` (after ``init_src``)."""
        return self.src_records[0]["filename"] if self.src_records else None

    def do_copy(self, src: str, dest: str, log=None) -> None:
        size = self.get_size(src)
        if size > 1000 * self.coursedir.max_dir_size:
            raise RuntimeError(f"the submission is {size} bytes, more than the course's limit "
                               f"of {1000 * self.coursedir.max_dir_size} bytes")
        shutil.copytree(src, dest, symlinks=True,
                        ignore=ignore_patterns(exclude=self.coursedir.ignore,
                                               include=self.coursedir.include,
                                               max_file_size=self.coursedir.max_file_size,
                                               log=self.log))


class Inbound:
    """The course's inbound folder, read the way ``nbgrader collect`` reads it."""

    def __init__(self, config: Config) -> None:
        self.coursedir = CourseDirectory(config=config)
        self.reader = ExchangeCollect(coursedir=self.coursedir, config=config)
        self.course = Path(self.reader.root) / self.coursedir.course_id
        self.path = self.course / "inbound"
        self.feedback = self.course / "feedback"

    def complete(self, known: set[str]) -> tuple[list[Record], list[str]]:
        """Submissions not in ``known`` that nbgrader's submit has finished writing (its last
        file, the secret, is there), and the names it could not read."""
        found, unreadable = [], []
        with os.scandir(self.path) as entries:
            names = [e.name for e in entries if e.name not in known and e.is_dir()]
        for name in names:
            if not _secret(self.path / name):
                continue  # nbgrader submit is still copying
            try:
                record = self.reader._path_to_record(name)  # nbgrader's own parser
                assignment = name.rsplit("+", 3)[1]
            except (ExchangeError, ValueError, IndexError):
                unreadable.append(name)
                continue
            found.append(Record(name, record["username"], assignment, epoch(record["timestamp"])))
        return found, unreadable

    def impostor(self, record: Record) -> str | None:
        """Why the account that wrote a submission may not hand it in under its student's name,
        if it may not (nbgrader's collect only warns, ``ExchangeCollect.check_owner``)."""
        owner = foreign_owner(self.path / record.name, record.student)
        return owner and f"handed in by the account {owner!r} under the name of " \
                         f"{record.student!r}"

    def notice(self, name: str, outcome: str, **details: object) -> int:
        """Release a page for each notebook of submission ``name`` where nbgrader's
        ``fetch_feedback`` looks for that submission's feedback; returns how many."""
        folder = self.path / name
        notebooks = sorted(p.stem for p in folder.glob("*.ipynb")) or [details.get(
            "assignment", "")]
        self.feedback.mkdir(mode=0o755, exist_ok=True)
        for notebook in notebooks:
            page = _pages.get_template("notice.html.j2").render(
                outcome=outcome, notebook=notebook, now=utc(time.time()), utc=utc, **details)
            target = feedback_page(self.course, name, notebook)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            tmp.write_text(page)
            tmp.chmod(0o644)
            tmp.replace(target)  # atomic, as nbgrader's release_feedback does
        return len(notebooks)


def feedback_page(course: Path, name: str, notebook: str) -> Path:
    """Where nbgrader's ``fetch_feedback`` looks for the page of ``notebook`` of submission
    ``name`` (``course``: the course's folder in the exchange)."""
    secret = _secret(course / "inbound" / name)
    return course / "feedback" / f"{notebook_hash(secret=secret, notebook_id=notebook)}.html"


def foreign_owner(folder: Path, student: str) -> str | None:
    """The account that owns a submission's folder if it is neither the student's nor the
    service's own (nor root's)."""
    uid = folder.stat().st_uid
    if uid in (os.getuid(), 0):
        return None
    try:
        owner = pwd.getpwuid(uid).pw_name
    except KeyError:
        owner = f"uid {uid}"
    return None if owner == student else owner


def _secret(folder: Path) -> str:
    try:
        return (folder / SECRET).read_text()
    except OSError:
        return ""
