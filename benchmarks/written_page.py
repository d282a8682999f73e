"""The grade-by-question page over HTTP for a large class, against formgrader's one answer at
a time, in the same run on the same server.

Builds a course with ps1 generated and N students (default 1,000) entered in a real gradebook
(``tests/helpers/written_class.py``: the released notebook with each student's written answer,
drawn from the labelled synthetic class; the rows as ``Gradebook.add_submission`` writes
them; nothing is autograded), three rubric items, then starts a real Jupyter server serving
formgrader and the page (``attnkit.written.server``), and two TAs log in with its token, each
with their own session (their own name, cookies and XSRF token), as a browser does.

The kit, the two TAs taking turns until nothing is left to grade, each keeping what their
page shows (each group's ``data-sig`` and holder, the stamp), as ``written.js`` does:

* next: ``POST .../next``, the page's one request: it answers with the claimed group's HTML
  (and any group whose holder the page shows wrongly) and the progress, which the page swaps
  in;
* apply: ``POST .../apply`` of item 1 to the whole group the TA got, naming the versions
  the group's HTML showed; it answers with the groups it changed;
* the other TA's poll: ``GET .../stamp`` after each group graded and, since it changed,
  ``POST .../changes`` with the page's groups' sigs (the catch-up: only the changed groups
  come back);
* change: ``POST .../item``, item 1's points from 1 to 0.5, which re-scores every answer
  (all N have it), then a check that every score and an audit row per answer was written.

The baseline, formgrader's per-submission page on the same answers:

* next: ``GET formgrader/submissions/<id>/next``, its "next" button (a redirect, then the
  next student's notebook rendered), over ``--baseline`` consecutive submissions;
* one answer graded: formgrader's ``PUT api/grade/<id>`` and ``PUT api/comment/<id>`` (its
  score and comment boxes), the score and comment the kit gave, on the same answers.

Prints p50 and p95 of each, and ratios (baseline / kit): per step, per group applied (the
group's size times one answer graded), for the rubric change (N times one answer graded,
from the measured median) and for the whole question (N times a formgrader page and one
answer graded, against the kit's summed steps). Exits 1 when a target is missed (next p95
<= 100 ms, the rubric change <= 1 s) or a score or audit row is wrong. It runs on SQLite,
then again with the gradebook on a scratch PostgreSQL server (tests/helpers/postgres.py's),
and ends with both runs' p50 and p95 side by side, and the machine's load average.

    .venv/bin/python benchmarks/written_page.py                  # 1,000 students, both
    .venv/bin/python benchmarks/written_page.py --only-sqlite    # or --only-postgres
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import requests
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.browser import jupyter_server  # noqa: E402
from helpers.course import copy_course, run  # noqa: E402
from helpers.written_class import (  # noqa: E402
    ASSIGNMENT,
    QUESTION,
    enter_class,
    labelled_answers,
    scores,
)

from attnkit.course import db_url  # noqa: E402
from attnkit.pipeline import audit  # noqa: E402
from attnkit.written import rubric  # noqa: E402

PAGE = f"/attnkit/written/{ASSIGNMENT}/{QUESTION}"
GROUP = re.compile(r'<section class="group[^"]*"[^>]*data-key="([^"]+)"')
ANSWER = re.compile(r'data-student="([^"]+)" data-version="([^"]+)"')
SIG = re.compile(r'<section class="group[^"]*"[^>]*data-sig="([^"]+)"')
HELD = re.compile(r'<section class="group[^"]*"[^>]*data-held="([^"]*)"')
STAMP = re.compile(r'data-stamp="([^"]+)"')


def build(folder: Path, count: int, url: str | None) -> Path:
    """The course, ps1 generated into its gradebook (``url``, else SQLite beside it), the
    class entered and the rubric written."""
    root = copy_course(folder / "course")
    if url:
        with (root / "nbgrader_config.py").open("a") as config:
            config.write(f"\nc.CourseDirectory.db_url = {url!r}\n")
    run(["nbgrader", "generate_assignment", ASSIGNMENT, "--force"], root)
    written, _ = labelled_answers(count)
    enter_class(root, written)
    for text, points in (("says no: not equivariant", 1), ("the encoding belongs to the "
                         "position", 1), ("blank or off the question", 0)):
        rubric.add_item(db_url(root), ASSIGNMENT, QUESTION, text, points, "lecturer")
    if url:
        analyze(url)
    return root


def analyze(url: str) -> None:
    """PostgreSQL's planner statistics for the class just loaded in bulk, as its autovacuum
    gathers them within a minute of such a load (a class handed in over hours has them)."""
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql("ANALYZE")
    engine.dispose()


class TA:
    """One TA's session on the server: logged in with its token, as the login form does."""

    def __init__(self, base: str, token: str) -> None:
        self.base, self.http = base, requests.Session()
        self.http.get(f"{base}/login", timeout=30)
        xsrf = self.http.cookies["_xsrf"]
        done = self.http.post(f"{base}/login", data={"password": token, "_xsrf": xsrf},
                              allow_redirects=False, timeout=30)
        assert done.status_code in (302, 303), done.status_code
        self.http.headers["X-XSRFToken"] = xsrf

    def get(self, path: str) -> requests.Response:
        found = self.http.get(self.base + path, timeout=120)
        found.raise_for_status()
        return found

    def post(self, path: str, body: dict) -> requests.Response:
        return self.http.post(self.base + path, data=json.dumps(body), timeout=120,
                              headers={"Content-Type": "application/json"})

    def put(self, path: str, body: dict) -> requests.Response:
        done = self.http.put(self.base + path, data=json.dumps(body), timeout=120,
                             headers={"Content-Type": "application/json"})
        done.raise_for_status()
        return done


def timed(call: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    got = call()
    return time.perf_counter() - start, got


def group_versions(main: str, key: str) -> dict[str, str]:
    """The students and versions of group ``key`` as the page's content shows them."""
    starts = [(m.start(), m[1]) for m in GROUP.finditer(main)] + [(len(main), None)]
    for (at, found), (end, _) in zip(starts, starts[1:], strict=False):
        if found == key:
            return dict(ANSWER.findall(main[at:end]))
    raise LookupError(f"group {key} is not on the page")


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(values: list[float]) -> str:
    return (f"p50 {1000 * statistics.median(values):6.0f} ms  p95 {1000 * p(values, 0.95):6.0f} ms"
            f"  ({len(values)})")


def shown(page: dict[str, dict[str, str]], html: dict[str, str]) -> None:
    """Keep what a TA's page shows of each group (its ``data-sig`` and holder) from the
    groups the server sent, as written.js does when it swaps them in."""
    for key, part in html.items():
        page["sig"][key] = SIG.search(part)[1]
        page["held"][key] = HELD.search(part)[1]


def kit(tas: list[TA], url: str) -> dict[str, object]:
    """The two TAs take turns: next, then item 1 on the whole group, until nothing is left;
    after each group graded the other TA's page polls, and catches up when it changed."""
    figures: dict[str, object] = {}
    figures["cold"], _ = timed(lambda: tas[0].get(PAGE))  # groups the class, renders it
    figures["warm"] = [timed(lambda: tas[1].get(PAGE))[0] for _ in range(3)]
    pages = []
    for ta in tas:
        main = ta.get(f"{PAGE}?part=main").text
        pages.append({"sig": dict(zip(GROUP.findall(main), SIG.findall(main), strict=True)),
                      "held": dict(zip(GROUP.findall(main), HELD.findall(main), strict=True)),
                      "stamp": STAMP.search(main)[1]})
    nxt, app, polls, syncs, sizes, sent = [], [], [], [], [], []
    left = set(range(len(tas)))
    while left:
        for i, ta in enumerate(tas):
            if i not in left:
                continue
            mine = pages[i]
            held = {k: v for k, v in mine["held"].items() if v}
            took, answer = timed(lambda ta=ta, held=held: ta.post(f"{PAGE}/next",
                                                                   {"held": held}))
            assert answer.status_code == 200, answer.text
            data = answer.json()
            nxt.append(took)
            sent.append(len(data["groups"]))
            shown(mine, data["groups"])
            key = data["key"]
            if key is None:
                left.discard(i)
                continue
            seen = group_versions(data["groups"][key], key)
            held = {k: v for k, v in mine["held"].items() if v}
            took, done = timed(lambda ta=ta, seen=seen, held=held: ta.post(
                f"{PAGE}/apply", {"seen": seen, "add": [1], "remove": [], "held": held}))
            assert done.status_code == 200, done.text
            shown(mine, done.json()["groups"])
            app.append(took)
            sizes.append(len(seen))
            other, theirs = tas[1 - i], pages[1 - i]  # the other TA's page polls
            took, now = timed(lambda other=other: other.get(f"{PAGE}/stamp").json()["stamp"])
            polls.append(took)
            if now != theirs["stamp"]:
                more, caught = timed(lambda other=other, theirs=theirs: other.post(
                    f"{PAGE}/changes", {"have": theirs["sig"], "rubric": ""}))
                assert caught.status_code == 200, caught.text
                body = caught.json()
                shown(theirs, body["groups"])
                theirs["stamp"] = body["stamp"]
                syncs.append(took + more)
    figures |= {"next": nxt, "apply": app, "poll": polls, "sync": syncs, "sizes": sizes,
                "sent": sent}
    item = rubric.items(url, ASSIGNMENT, QUESTION)[0]
    took, done = timed(lambda: tas[0].post(f"{PAGE}/item", {"id": item.id, "points": 0.5}))
    assert done.status_code == 200, done.text
    figures["change"], figures["changed"] = took, len(done.json()["changed"])
    return figures


def baseline(ta: TA, root: Path, count: int) -> dict[str, list[float]]:
    """Formgrader on the same answers: its "next" button through ``count`` submissions, and
    its score and comment boxes writing what the kit gave each answer."""
    url = db_url(root)
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT sn.id, sa.student_id, g.id, c.id, g.manual_score, c.manual_comment "
            "FROM submitted_notebook sn JOIN submitted_assignment sa ON sn.assignment_id = "
            "sa.id JOIN grade g ON g.notebook_id = sn.id JOIN base_cell gc ON g.cell_id = "
            "gc.id JOIN comment c ON c.notebook_id = sn.id JOIN base_cell cc ON c.cell_id = "
            "cc.id WHERE gc.name = :q AND cc.name = :q ORDER BY sa.student_id"),
            {"q": QUESTION}).all()
    engine.dispose()
    ta.get(f"/formgrader/submissions/{rows[0][0]}/")  # formgrader's first page: its caches
    pages, graded = [], []
    for notebook, _, grade, comment, score, text in rows[:count]:
        took, _ = timed(lambda notebook=notebook: ta.get(
            f"/formgrader/submissions/{notebook}/next"))
        pages.append(took)
        took, _ = timed(lambda grade=grade, comment=comment, score=score, text=text: (
            ta.put(f"/formgrader/api/grade/{grade}", {"manual_score": score}),
            ta.put(f"/formgrader/api/comment/{comment}", {"manual_comment": text})))
        graded.append(took)
    return {"page": pages, "graded": graded}


def check(root: Path, count: int) -> tuple[bool, int]:
    """Every answer at 0.5 with item 1's new comment, and an audit row per answer."""
    found = scores(root)
    right = len(found) == count and all(
        score == 0.5 and comment.startswith("+0.5 says no") and not pending
        for score, comment, pending in found.values())
    engine = audit.engine(db_url(root))
    with engine.connect() as conn:
        rows = conn.execute(sa.select(sa.func.count()).select_from(audit.TABLE).where(
            audit.TABLE.c.changed.like("rubric item 1%"))).scalar_one()
    return right, rows


def one_run(folder: Path, count: int, sample: int, url: str | None) -> bool:
    print(f"\n== {count} students, gradebook on {'PostgreSQL' if url else 'SQLite'}",
          flush=True)
    start = time.perf_counter()
    root = build(folder, count, url)
    print(f"built the class in {time.perf_counter() - start:.0f} s", flush=True)
    home = folder / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": {"attnkit.written.server": True}}}))
    with jupyter_server("server", root, home) as server:
        tas = [TA(server.base, server.token) for _ in range(2)]
        ours = kit(tas, db_url(root))
        right, audited = check(root, count)
        theirs = baseline(tas[0], root, sample)
    sizes: list[int] = ours["sizes"]  # type: ignore[assignment]
    answer = statistics.median(theirs["graded"])
    fg_page = statistics.median(theirs["page"])
    per_group = [size * answer / took for size, took in zip(sizes, ours["apply"],
                                                             strict=True)]
    whole_kit = sum(ours["next"]) + sum(ours["apply"])  # type: ignore[arg-type]
    whole_base = count * (fg_page + answer)
    print(f"first page load (grouping {count} answers)  {ours['cold']:.2f} s;  "
          f"again {ms(ours['warm'])}")
    print(f"groups graded                       {len(sizes)} (largest {max(sizes)}, "
          f"median {statistics.median(sizes):.0f} answers)")
    print(f"kit next (the page's one request)   {ms(ours['next'])}  "
          f"(groups sent: median {statistics.median(ours['sent']):.0f}, "
          f"most {max(ours['sent'])})")
    print(f"formgrader next submission page     {ms(theirs['page'])}")
    print(f"  ratio formgrader / kit next       p50 "
          f"{fg_page / statistics.median(ours['next']):.1f}x  p95 "
          f"{p(theirs['page'], .95) / p(ours['next'], .95):.1f}x")
    print(f"kit apply item to a group           {ms(ours['apply'])}  (its groups sent back)")
    print(f"formgrader one answer graded        {ms(theirs['graded'])}  (score + comment)")
    print(f"  ratio per group applied           median {statistics.median(per_group):.1f}x  "
          f"(group size x one answer / kit apply)")
    print(f"other TA's poll (stamp)             {ms(ours['poll'])}")
    print(f"other TA's catch-up (stamp+changes) {ms(ours['sync'])}")
    print(f"kit rubric item changed             {ours['change']:.3f} s  "
          f"({ours['changed']} answers re-scored, {audited} audit rows)")
    print(f"  formgrader, {count} answers by hand  {count * answer:.1f} s (median x {count})"
          f"  ratio {count * answer / ours['change']:.0f}x")
    print(f"whole question                      kit {whole_kit:.1f} s  formgrader "
          f"{whole_base:.0f} s ({count} x page + answer)  ratio {whole_base / whole_kit:.0f}x")
    print(f"every answer 0.5 after the change   {'yes' if right else 'NO'}")
    nxt95, change = p(ours["next"], .95), ours["change"]
    met = nxt95 <= 0.1 and change <= 1
    print(f"targets: next p95 <= 100 ms: {1000 * nxt95:.0f} ms "
          f"{'ok' if nxt95 <= 0.1 else 'MISSED'};  change <= 1 s: "
          f"{change:.2f} s {'ok' if change <= 1 else 'MISSED'}", flush=True)
    SUMMARY.append((("PostgreSQL" if url else "SQLite"), ours))
    return right and audited == count and ours["changed"] == count and met


SUMMARY: list[tuple[str, dict[str, object]]] = []  # (database, the kit's figures) per run


def summary() -> None:
    """Both runs' p50 and p95 of the kit's steps, side by side, and the machine's load."""
    print(f"\n{'kit step, ms':28s}" + "".join(f"{name + ' p50':>16s}{name + ' p95':>16s}"
                                             for name, _ in SUMMARY))
    for label, key in (("next (n)", "next"), ("apply to a group", "apply"),
                       ("poll (stamp)", "poll"), ("catch-up (stamp+changes)", "sync"),
                       ("page load again", "warm")):
        values: list[list[float]] = [f.get(key) or [0.0] for _, f in SUMMARY]  # type: ignore
        cells = "".join(f"{1000 * statistics.median(v):16.0f}{1000 * p(v, .95):16.0f}"
                        for v in values)
        print(f"{label:28s}{cells}")
    with open("/proc/loadavg") as found:
        print(f"load average at the end (1, 5, 15 min): {' '.join(found.read().split()[:3])}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--students", type=int, default=1000)
    parser.add_argument("--baseline", type=int, default=60,
                        help="formgrader submissions to step through (default 60)")
    parser.add_argument("--only-sqlite", action="store_true",
                        help="on SQLite only, not on a scratch PostgreSQL server")
    parser.add_argument("--only-postgres", action="store_true",
                        help="on a scratch PostgreSQL server only, not SQLite")
    parser.add_argument("--postgres", action="store_true",
                        help="(the default: both) kept for older command lines")
    args = parser.parse_args()
    ok = True
    with ExitStack() as stack:
        folder = Path(tempfile.mkdtemp(prefix="attnkit-written-page-"))
        stack.callback(shutil.rmtree, folder, ignore_errors=True)
        if not args.only_postgres:
            ok &= one_run(folder / "sqlite", args.students, args.baseline, None)
        if not args.only_sqlite:
            from helpers.postgres import postgres_server

            url = stack.enter_context(postgres_server())
            ok &= one_run(folder / "postgres", args.students, args.baseline, url)
    summary()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
