"""Helpers shared by the tests and the bench scripts, one definition each.

Test modules and bench scripts import helpers from here, never from each other or from a conftest.py
(tests/unit/test_test_layout.py checks it). Fixtures stay in the conftest.py files; what they do lives
here. Only ``history``, ``streamed`` and ``servers`` import pytest, so a bench script can use the rest.
"""
