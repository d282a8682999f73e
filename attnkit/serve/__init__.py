"""Grade on submit: grade each submission in the exchange and release its feedback."""
