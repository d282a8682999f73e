"""nbgrader's steps: the preprocessors and pages the course's config switches on."""
