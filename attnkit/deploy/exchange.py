"""nbgrader's exchange with submissions private to the course's staff.

nbgrader's submit leaves each submission world-readable (folder 0777, files 0644) in an
inbound folder that others may not list; only the random end of the folder's name keeps
other students out. In the shipped layout the inbound folder is set-group-ID and belongs to
the staff group, so the submission inherits that group: group access is enough to collect.
(Copying drops the inherited set-group-ID bit from the copy's folder, as the student is not in
the group, so the copy is staged and moved into a folder the inbound made.)
"""

from __future__ import annotations

import os
import stat

from nbgrader.exchange.default.submit import ExchangeSubmit

PRIVATE_FILE = 0o640
PRIVATE_DIR = 0o2770  # the staff may delete (as nbgrader's 0777 allows), others see nothing


class PrivateSubmit(ExchangeSubmit):
    """nbgrader's submit, then the submission closed to everyone outside the inbound's group."""

    def do_copy(self, src: str, dest: str, log: object = None) -> None:
        if os.path.dirname(dest) != self.inbound_path:  # the student's own cache
            return super().do_copy(src, dest)
        staging = f"{dest}.partial"
        super().do_copy(src, staging)
        os.mkdir(dest)  # the inbound's group and set-group-ID: what is written next keeps them
        for name in os.listdir(staging):
            os.rename(os.path.join(staging, name), os.path.join(dest, name))
        os.rmdir(staging)

    def copy_files(self) -> None:
        super().copy_files()
        if not os.stat(self.inbound_path).st_mode & stat.S_ISGID:
            # without the inherited group, group access would lock the instructor out too
            self.log.warning("%s is not set-group-ID: submission left as nbgrader made it",
                             self.inbound_path)
            return
        dest = os.path.join(self.inbound_path, self.assignment_filename)
        self.set_perms(dest, fileperms=PRIVATE_FILE, dirperms=PRIVATE_DIR)
