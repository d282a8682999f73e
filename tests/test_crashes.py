"""Crash hints that name their cause from the error alone (attnkit.judge.crashes)."""

from __future__ import annotations

from attnkit.judge.crashes import crash_reading


def test_the_students_own_assert_is_called_theirs_with_the_case_sizes() -> None:
    hint = crash_reading("AssertionError: the stacked heads must have D rows",
                         {"case": "fresh heads", "D": 8, "N": 6, "H": 2})
    assert hint and "assert in your own code" in hint and "D = 8, N = 6, H = 2" in hint
    assert "the stacked heads must have D rows" in hint


def test_an_empty_maximum_names_the_fully_masked_column() -> None:
    hint = crash_reading("ValueError: zero-size array to reduction operation maximum which has "
                         "no identity", {"case": "pinned 3 x 4", "empty": 3})
    assert hint and "column 3 has no allowed entry" in hint and "zero weights" in hint


def test_a_float_mask_used_as_an_index_is_told_to_be_boolean() -> None:
    hint = crash_reading("IndexError: arrays used as indices must be of integer (or boolean) "
                         "type", {"case": "notebook data"})
    assert hint and "must be boolean" in hint


def test_an_unpacked_draw_says_which_axis_unpacking_splits() -> None:
    hint = crash_reading("ValueError: too many values to unpack (expected 4)",
                         {"case": "dims=96", "dims": 96})
    assert hint and "first axis" in hint and "(4, dims, dims)" in hint
    short = crash_reading("ValueError: not enough values to unpack (expected 4, got 3)",
                          {"case": "dims=3", "dims": 3})
    assert short and "has 3 entries" in short


def test_an_index_past_an_axis_says_the_loop_counts_the_wrong_axis() -> None:
    hint = crash_reading("IndexError: index 2 is out of bounds for axis 0 with size 2",
                         {"case": "pinned 2 x 3"})
    assert hint and "entry 2 along axis 0, which has only 2 entries" in hint
    assert "range(X.shape[0])" in hint


def test_a_d_by_d_matrix_where_d_by_n_belongs_names_the_row_of_ones() -> None:
    error = "ValueError: operands could not be broadcast together with shapes (4,4) (4,3) "
    hint = crash_reading(error, {"case": "notebook data", "D": 4, "N": 3})
    assert hint and "counts the features" in hint and "np.ones((1, X.shape[1]))" in hint
    assert crash_reading(error, {"case": "notebook data", "D": 4, "N": 4}) is None
    assert crash_reading(error, {"case": "notebook data", "D": 5, "N": 3}) is None


def test_other_errors_are_left_as_they_came() -> None:
    assert crash_reading("ValueError: operands could not be broadcast together", {"case": "c"}) \
        is None
    assert crash_reading("KeyError: 'omega_q'", {"case": "c"}) is None


def test_a_name_not_defined_when_the_test_runs_is_read_as_such() -> None:
    """The hidden test runs right after the cell, as Restart & Run All would: a function
    defined only further down, misspelt or deleted does not exist then."""
    said = crash_reading("NameError: name 'softmax_cols' is not defined", {"case": "c"})
    assert said and "`softmax_cols` does not exist when this cell's test runs" in said
    assert "later cell" in said and "Restart & Run All" in said
