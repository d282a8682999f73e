"""Written answers graded by question: the answers, rubric items, claims between TAs, the
CSV round trip and the report's section (``docs/written.md``)."""
