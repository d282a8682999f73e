"""nbgrader's system-wide configuration on the hub: copy to /etc/jupyter/nbgrader_config.py.

Every user's server reads it (students', instructors', the graders' service): the course id
and the exchange the Assignments tab, ``nbgrader release_assignment`` and ``collect`` use.
"""

import os

c = get_config()  # noqa: F821 - provided by traitlets when nbgrader loads this file

c.CourseDirectory.course_id = os.environ.get("ATTNKIT_COURSE_ID", "self-attention")
c.Exchange.root = os.environ.get("ATTNKIT_EXCHANGE", "/srv/nbgrader/exchange")
# Fetched assignments and feedback land in ~/<assignment> (homes are private, mode 0700).
c.Exchange.path_includes_course = False
# A submission's folder name ends in a random string, so it cannot be guessed...
c.ExchangeSubmit.add_random_string = True
# ...and its files are readable by the course's staff group only, not by every user.
c.ExchangeFactory.submit = "attnkit.deploy.exchange.PrivateSubmit"
# Collect (the instructor's `nbgrader collect`, formgrader's Collect button) reads inbound
# without following links, takes only hand-ins owned by the account of a student on the
# gradebook's roster, and bounds each one's timestamp by its folder's ctime.
c.ExchangeFactory.collect = "attnkit.deploy.exchange.SafeCollect"
