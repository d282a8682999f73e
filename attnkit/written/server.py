"""The grade-by-question page, a Jupyter server extension beside nbgrader's formgrader.

``{base_url}attnkit/written/`` lists the course's written questions;
``{base_url}attnkit/written/<assignment>/<grade_id>`` grades one for the whole class (the
page is ``templates/written``; ``page.py`` says what it shows). Every handler needs the
server's login, as formgrader's do, and every POST its XSRF token. The TA is the logged-in
user: a hub user's name, or for the shared token the server's anonymous name.

Enabled by ``jupyter_server_config.d/attnkit.json``, or by hand with ``jupyter server
extension enable attnkit.written.server``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from markupsafe import Markup
from tornado import web

from attnkit import course
from attnkit.pipeline import maths
from attnkit.written import answers, claims, page, rubric

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "written"
NAME = r"([A-Za-z0-9_.\-]+)"


@cache
def environment() -> jinja2.Environment:
    """Autoescape on: answers, ids and rubric texts are hostile text."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True)
    env.filters["markdown"] = mark_scheme
    return env


def mark_scheme(text: str) -> Markup:
    """The kit's own mark scheme: markdown with maths, raw HTML and script URLs escaped."""
    return Markup(maths.render(text, escape=True, heading_offset=2, anchors=False))


class WrittenHandler(JupyterHandler):
    """What the page's handlers share: the course, the TA, rendering and JSON replies."""

    @property
    def root(self) -> Path:
        """The course directory: formgrader's, else the server's root."""
        course = self.settings.get("nbgrader_coursedir")
        return Path(course.root if course is not None else self.settings["server_root_dir"])

    @property
    def ta(self) -> str:
        user = self.current_user
        name, username = getattr(user, "name", None), getattr(user, "username", str(user))
        if name and name != username:  # the shared token's anonymous users: keep them apart
            return f"{name} ({username[:6]})"
        return username

    @property
    def written_url(self) -> str:
        return url_path_join(self.base_url, "attnkit", "written")

    def page(self, template: str, **context: Any) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Content-Security-Policy",
                        "default-src 'self'; script-src 'self'; style-src 'self'; "
                        "img-src 'self' data:; frame-ancestors 'self'")
        self.finish(self.part(template, **context))

    def part(self, template: str, **context: Any) -> str:
        """A template rendered for this TA: the page, or a part of it the page swaps in."""
        return environment().get_template(template).render(
            base=self.written_url, xsrf=self.xsrf_token.decode(), ta=self.ta, **context)

    def groups(self, shown: list[page.Group]) -> dict[str, str]:
        return {g.key: self.part("group.html.j2", g=g) for g in shown}

    def reply(self, status: int = 200, **body: Any) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(body, default=str))

    def body(self) -> dict[str, Any]:
        try:
            found = json.loads(self.request.body or b"{}")
        except ValueError:
            raise web.HTTPError(400, "the body is not JSON") from None
        if not isinstance(found, dict):
            raise web.HTTPError(400, "the body is not a JSON object")
        return found

    def view(self, assignment: str, grade_id: str) -> page.View:
        try:
            return page.view(self.root, assignment, grade_id)
        except (LookupError, answers.UnknownAssignment, SystemExit) as error:
            raise web.HTTPError(404, str(error)) from None  # SystemExit: no gradebook here

class IndexHandler(WrittenHandler):
    @web.authenticated
    def get(self) -> None:
        db_url = course.db_url(self.root)
        listed = []
        try:
            names = course.assignments(self.root)
        except OSError:  # not a course directory
            names = []
        for assignment in names:
            try:
                asked = answers.questions(self.root, assignment)
            except (answers.UnknownAssignment, SystemExit):  # not graded, or no gradebook
                continue
            done = {p.grade_id: p for p in claims.progress(db_url, assignment,
                                                            [q.grade_id for q in asked])}
            listed += [(q, done[q.grade_id]) for q in asked]
        self.page("index.html.j2", questions=listed)


class QuestionHandler(WrittenHandler):
    @web.authenticated
    def get(self, assignment: str, grade_id: str) -> None:
        shown = self.view(assignment, grade_id)
        template = "groups.html.j2" if self.get_argument("part", "") == "main" else \
            "question.html.j2"
        self.page(template, view=shown, poll=self.get_argument("poll", "3"))


class StampHandler(WrittenHandler):
    @web.authenticated
    def get(self, assignment: str, grade_id: str) -> None:
        self.reply(stamp=page.stamp(self.root, assignment, grade_id))


class ActionHandler(WrittenHandler):
    """POST .../apply, next, move, item: JSON in, JSON out; a conflict is a 409 that says
    who graded what since the TA loaded it, and nothing is written."""

    @web.authenticated
    def post(self, assignment: str, grade_id: str, action: str) -> None:
        body = self.body()
        db_url = page.course_db_url(self.root)
        try:
            if action == "apply":
                seen = {str(s): str(v) for s, v in dict(body.get("seen", {})).items()}
                try:
                    done = rubric.apply(db_url, assignment, grade_id, seen, self.ta,
                                        add=map(int, body.get("add", [])),
                                        remove=map(int, body.get("remove", [])))
                except rubric.Conflict as error:
                    self.reply(409, error="conflict", changed=[str(c) for c in error.changed],
                               **self.after(assignment, grade_id, body, seen))
                    return
                self.reply(changed=done.changed, kept=done.kept,
                           **self.after(assignment, grade_id, body, seen))
            elif action == "next":
                self.reply(**self.after(assignment, grade_id, body, claim=True))
            elif action == "changes":
                self.reply(**self.changes(assignment, grade_id, body))
            elif action == "move":
                self.reply(key=page.move(self.root, assignment, grade_id, str(body["student"]),
                                         str(body["key"]), self.ta))
            elif action == "item":
                self.reply(**self.item(db_url, assignment, grade_id, body))
            else:
                raise web.HTTPError(404)
        except rubric.Conflict as error:
            self.reply(409, error="conflict", changed=[str(c) for c in error.changed])
        except (rubric.RubricError, ValueError, KeyError, TypeError) as error:
            self.reply(400, error=str(error))

    def after(self, assignment: str, grade_id: str, body: dict[str, Any],
              students: Any = (), claim: bool = False) -> dict[str, Any]:
        """What a TA's step changed on their page, to swap in (``page.step``): with
        ``claim``, the next group first claimed (``key``); the groups of ``students`` (the
        answers just written) and of the claim, those whose holder the page shows wrongly
        (``held``: key -> TA, as the page shows them), and the progress. The rest of the
        page waits for its poll (``changes``)."""
        held = {str(k): str(v) for k, v in dict(body.get("held") or {}).items()}
        key, shown, progress = page.step(self.root, assignment, grade_id, self.ta, students,
                                         claim, held)
        return {**({"key": key} if claim else {}), "groups": self.groups(shown),
                "progress": self.part("progress.html.j2", p=progress)}

    def changes(self, assignment: str, grade_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """The page's poll: the whole question read again, and sent back only where it
        differs from what the page has (``have``: key -> ``data-sig`` of each group shown,
        ``rubric``: the rubric's): the groups' order, the changed groups, the rubric if it
        changed, the progress and the stamp."""
        have = {str(k): str(v) for k, v in dict(body.get("have") or {}).items()}
        shown = self.view(assignment, grade_id)
        return {"stamp": shown.stamp, "order": [g.key for g in shown.groups],
                "groups": self.groups([g for g in shown.groups if have.get(g.key) != g.sig]),
                "rubric": None if body.get("rubric") == shown.rubric_sig else self.part(
                    "rubric.html.j2", items=shown.items, q=shown.question,
                    rubric_sig=shown.rubric_sig),
                "progress": self.part("progress.html.j2", p=shown.progress)}

    def item(self, db_url: str, assignment: str, grade_id: str,
             body: dict[str, Any]) -> dict[str, Any]:
        """Add an item, or change (or remove) one; a change re-scores every answer with it."""
        points = float(body["points"]) if body.get("points") not in (None, "") else None
        if not body.get("id"):
            added = rubric.add_item(db_url, assignment, grade_id, str(body.get("text", "")),
                                    points or 0.0, self.ta, body.get("comment") or None)
            return {"id": added.id, "position": added.position}
        if body.get("remove"):
            done = rubric.remove_item(db_url, int(body["id"]), self.ta)
        else:
            done = rubric.change_item(db_url, int(body["id"]), self.ta, text=body.get("text"),
                                      points=points)
        return {"changed": done.changed, "kept": done.kept}


def handlers(base_url: str) -> list[tuple[str, type, dict[str, Any]] | tuple[str, type]]:
    base = url_path_join(base_url, "attnkit", "written")
    question = f"{base}/{NAME}/{NAME}"
    return [
        (f"{base}/?", IndexHandler),
        (f"{base}/static/(.*)", web.StaticFileHandler, {"path": str(TEMPLATES / "static")}),
        (f"{question}/?", QuestionHandler),
        (f"{question}/stamp", StampHandler),
        (f"{question}/(apply|next|move|item|changes)", ActionHandler),
    ]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": __name__}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    web_app = serverapp.web_app
    web_app.add_handlers(".*$", handlers(web_app.settings["base_url"]))
    serverapp.log.info("attnkit: written questions graded by question at %s",
                       url_path_join(web_app.settings["base_url"], "attnkit", "written/"))
