"""nbgrader's exchange as the service sees it: hand-ins waiting in inbound (read through
``attnkit.deploy.handin``, never followed), nbgrader's collect rule applied to one student,
and notices released where ``fetch_feedback`` looks.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange.default import ExchangeCollect
from nbgrader.utils import notebook_hash
from traitlets.config import Config

from attnkit.deploy.exchange import SafeCollect
from attnkit.deploy.handin import READ, SECRET, HandIn, HandInPolicy, Refused, read_file

TEMPLATES = Path(__file__).parent / "templates"
MAX_NOTEBOOKS = 20  # pages released per notice
RECENT = 2.0  # seconds: a listing younger than this may miss entries made in the same tick

_pages = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["j2"]),
                     trim_blocks=True, lstrip_blocks=True)

def epoch(moment: datetime) -> float:
    """nbgrader's naive UTC datetimes (``parse_utc``) as seconds since the epoch."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class CollectOne(SafeCollect):
    """The shipped collect (``nbgrader collect --update``) for one student of one assignment,
    which says which hand-in nbgrader's rule picks before it copies anything: the latest, or
    with ``ExchangeCollect.before_duedate`` the latest before the due date. It weighs only
    the hand-ins the service journaled (``times``: name -> the time each counts as) and
    writes the journal's secret and time into the copy."""

    def __init__(self, times: dict[str, float], secret: bytes, **kwargs) -> None:
        super().__init__(**kwargs)
        self.times = times
        self.secret = secret

    def _records(self) -> list[dict]:
        return [r for r in super()._records() if r["filename"] in self.times]

    def hand_in_time(self, hand_in: HandIn) -> float:
        return self.times.get(hand_in.name, super().hand_in_time(hand_in))

    def chosen(self) -> str | None:
        """The inbound folder the rule picks for ``coursedir.student_id`` (after ``init_src``)."""
        return self.src_records[0]["filename"] if self.src_records else None

    def finish_copy(self, staging: str, record: dict) -> None:
        super().finish_copy(staging, record)
        with open(os.path.join(staging, SECRET), "wb") as out:
            out.write(self.secret)


class Inbound:
    """The course's inbound folder, listed only when it changed, each folder opened through
    ``HandInPolicy``."""

    def __init__(self, config: Config) -> None:
        self.coursedir = CourseDirectory(config=config)
        self.policy = HandInPolicy(config=config)
        self.reader = ExchangeCollect(coursedir=self.coursedir, config=config)
        self.course = Path(self.reader.root) / self.coursedir.course_id
        self.path = self.course / "inbound"
        self.feedback = self.course / "feedback"
        self._listed: tuple[int, list[str]] = (-1, [])

    def names(self) -> list[str]:
        """The entries of inbound; listed again only when its mtime moved or is recent."""
        fd = os.open(self.path, READ | os.O_DIRECTORY)
        try:
            mtime = os.fstat(fd).st_mtime_ns
            if mtime != self._listed[0] or time.time() - mtime / 1e9 < RECENT:
                self._listed = (mtime, os.listdir(fd))
            return self._listed[1]
        finally:
            os.close(fd)

    def open(self, name: str, students: set[str]) -> HandIn:
        fd = os.open(self.path, READ | os.O_DIRECTORY)
        try:
            return self.policy.open(fd, name, students)
        finally:
            os.close(fd)

    def secret(self, hand_in: HandIn) -> bytes:
        """A hand-in's secret: bytes, capped; refused unless text as nbgrader writes it."""
        secret = read_file(hand_in.fd, SECRET, self.policy.max_secret_bytes)
        try:
            if secret.decode("ascii").strip():
                return secret
        except UnicodeDecodeError:
            pass
        raise Refused(f"its {SECRET} is not the text nbgrader's submit writes")

    def timestamp(self, hand_in: HandIn) -> str:
        """A hand-in's timestamp.txt, capped."""
        text = read_file(hand_in.fd, "timestamp.txt", self.policy.max_timestamp_bytes)
        return text.decode("utf-8", "replace").strip()

    def notebooks(self, hand_in: HandIn) -> list[str]:
        names = os.listdir(hand_in.fd)
        return sorted(n[:-6] for n in names if n.endswith(".ipynb"))[:MAX_NOTEBOOKS]

    def notice(self, secret: str | None, notebooks: list[str], outcome: str,
               **details: object) -> int:
        """Release a page for each of ``notebooks`` where nbgrader's ``fetch_feedback`` looks
        for that hand-in's feedback (none without a text ``secret``); returns how many."""
        if not secret:
            return 0
        self.feedback.mkdir(mode=0o755, exist_ok=True)
        for notebook in notebooks or [details.get("assignment", "")]:
            page = _pages.get_template("notice.html.j2").render(
                outcome=outcome, notebook=notebook, now=utc(time.time()), utc=utc, **details)
            target = self.feedback / f"{notebook_hash(secret=secret, notebook_id=notebook)}.html"
            tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            tmp.write_text(page)
            tmp.chmod(0o644)
            tmp.replace(target)  # atomic, as nbgrader's release_feedback does
        return len(notebooks)


def feedback_page(course: Path, name: str, notebook: str) -> Path:
    """Where nbgrader's ``fetch_feedback`` looks for the page of ``notebook`` of hand-in
    ``name`` (``course``: the course's folder in the exchange)."""
    fd = os.open(course / "inbound" / name, READ | os.O_DIRECTORY)
    try:
        secret = read_file(fd, SECRET, 1024).decode("ascii").strip()
    finally:
        os.close(fd)
    return course / "feedback" / f"{notebook_hash(secret=secret, notebook_id=notebook)}.html"

