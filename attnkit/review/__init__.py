"""Instructors' integrity tools: similar submissions, item statistics, the regrade audit."""
