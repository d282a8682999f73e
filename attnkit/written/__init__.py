"""Written answers graded by question: answer groups, rubric items, the CSV round trip."""
