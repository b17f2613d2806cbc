"""Tests of the analysis toolkit (pytest analysis/tests)."""
