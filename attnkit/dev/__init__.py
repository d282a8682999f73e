"""The lecturer's tools for checks: the misconception catalogue and its kill matrix."""
