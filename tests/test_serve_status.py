"""The service's journal and the instructor's status view, on a real SQLite journal (fast tier)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest
from nbgrader.api import Gradebook
from nbgrader.coursedir import CourseDirectory

from attnkit.course import load_config
from attnkit.deploy.handin import Refused
from attnkit.grading import grader
from attnkit.report import AssignmentData
from attnkit.report.cli import review_sections
from attnkit.serve.exchange import CollectOne, Inbound
from attnkit.serve.journal import FAILED, GRADED, PENDING, Journal
from attnkit.serve.status import main, report_section, status


def test_moves_are_durable_and_a_crash_resumes_what_was_grading(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    assert journal.add("a+ps1+t1", "a", "ps1", 100.0)
    assert not journal.add("a+ps1+t1", "a", "ps1", 100.0)  # seen twice, recorded once
    journal.add("b+ps1+t2", "b", "ps1", 101.0)
    journal.start("a+ps1+t1")
    journal.start("b+ps1+t2")
    journal.finish("b+ps1+t2", GRADED, 103.0, score=9, max_score=11)
    journal.close()  # as if killed: a new connection sees every committed move

    again = Journal(tmp_path)
    assert again.recover() == 1
    a = again.get("a+ps1+t1")
    assert (a.state, a.attempts) == (PENDING, 1)
    assert again.get("b+ps1+t2").state == GRADED
    assert again.gradings_since("b", "ps1", 0) == [again.get("b+ps1+t2").started]
    assert again.gradings_since("a", "ps1", 0) == []  # pending again: not counted


def test_status_counts_latency_and_escapes_reasons(tmp_path: Path, capsys) -> None:
    journal = Journal(tmp_path)
    for index, latency in enumerate([1.0, 2.0, 3.0, 4.0, 10.0]):
        name = f"s{index}+ps1+t"
        journal.add(name, f"s{index}", "ps1", 1000.0)
        journal.start(name)
        journal.finish(name, GRADED, 1000.0 + latency, score=1, max_score=2)
    journal.add("x+ps1+t", "x", "ps1", 1000.0)
    journal.start("x+ps1+t")
    journal.finish("x+ps1+t", FAILED, 1001.0, reason="<script>alert(1)</script> broke")
    journal.add("q+ps1+t", "q", "ps1", 1000.0)
    journal.queue("q+ps1+t", 5000.0, "rate limit")
    journal.add("g+ps1+t", "g", "ps1", 1000.0)
    journal.start("g+ps1+t")
    journal.close()

    now = status(tmp_path)
    assert (now.graded, now.queued, now.grading, now.queue_length) == (5, 1, 1, 2)
    assert now.p50 == pytest.approx(3.0) and now.max == pytest.approx(10.0)
    assert 4.0 < now.p95 <= 10.0
    assert [f["reason"] for f in now.failed] == ["<script>alert(1)</script> broke"]

    section = report_section(tmp_path)
    assert "<script>" not in section and "&lt;script&gt;" in section
    assert "p50 3.0 s" in section

    assert main(argparse.Namespace(root=tmp_path, json=False)) == 0
    printed = capsys.readouterr().out
    assert "queue 2" in printed and "FAILED x ps1" in printed and "p50 3.0 s" in printed

    def report(root: Path) -> dict[str, str]:  # the report page's extra sections
        data = AssignmentData("ps1", "course", "gradebook.db", [], 2.0, {}, [], [],
                              course_root=root)
        return {ident: body for ident, _, body in review_sections(data, None)}

    assert "p50 3.0 s" in report(tmp_path)["feedback-on-submit"]
    assert "feedback-on-submit" not in report(tmp_path / "elsewhere")  # where it never ran


def test_status_before_the_service_ever_ran(tmp_path: Path) -> None:
    assert not status(tmp_path).running
    assert "has not run" in report_section(tmp_path)


def test_a_submission_under_another_students_name_is_refused(tmp_path: Path) -> None:
    """As the attacker: the account 'nobody' writes a folder claiming to be ana's submission
    into inbound (world-writable in nbgrader's exchange). nbgrader's collect would only warn and
    grade it as ana's; the service refuses it. Ana's own submission (written by the service's
    account here, as in a single-account course) is accepted."""
    (tmp_path / "nbgrader_config.py").write_text(
        f"c.Exchange.root = {str(tmp_path / 'exchange')!r}\nc.CourseDirectory.course_id = 'c'\n"
        f"c.CourseDirectory.db_url = 'sqlite:///{tmp_path / 'gradebook.db'}'\n"
        f"c.HandInPolicy.single_account = True\n")
    config = load_config(tmp_path)
    inbound = Inbound(config)
    inbound.path.mkdir(parents=True)
    # dated after ana's own, so that nbgrader's rule alone would count it
    forged = "ana+ps1+2026-01-01 00:00:02.000000 UTC+x"
    own = "ana+ps1+2026-01-01 00:00:01.000000 UTC+y"
    for name in (forged, own):
        (inbound.path / name).mkdir()
        (inbound.path / name / "submission_secret.txt").write_text(name[-1])
    os.chown(inbound.path / forged, 65534, 65534)
    with pytest.raises(Refused, match="written by uid 65534"):
        inbound.open(forged, {"ana"})
    with pytest.raises(Refused, match="roster"):
        inbound.open(own, {"bo"})
    with inbound.open(own, {"ana"}) as hand_in:
        assert hand_in.student == "ana" and hand_in.complete()

    with grader._alembic_on_path(), Gradebook(config.CourseDirectory.db_url) as gb:
        gb.update_or_create_student("ana")
    coursedir = CourseDirectory(config=config, student_id="ana", assignment_id="ps1")
    collect = CollectOne({forged: 2.0, own: 1.0}, b"y", coursedir=coursedir, config=config)
    with grader._alembic_on_path():
        collect.init_src()
    assert collect.chosen() == own  # the forged, later one does not win the rule
