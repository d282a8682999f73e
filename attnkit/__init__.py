"""attnkit: an nbgrader course kit that teaches self-attention from scratch.

This file stays empty of imports: the grading kernel's sandbox sees only
``attnkit.probe``, ``attnkit.outstream`` and ``attnkit.kernel``, never ``attnkit.judge`` (the
reference maths).
"""
