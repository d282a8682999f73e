"""Student-style code, right and wrong, for every graded skill: the kill matrix's input."""
