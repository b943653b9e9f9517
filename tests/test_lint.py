"""Static checks of the Python sources (numreduce/, tests/, benchmarks/,
examples/): pyflakes' rules through ruff (``ruff check --select F``):
undefined names, names that shadow another definition, unused imports and
variables.  A redefined helper shadowing an earlier one broke a Dask path
once, silently until a differential test ran it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _ruff():
    exe = shutil.which("ruff", path=os.path.dirname(sys.executable)) or shutil.which("ruff")
    if exe is None:
        pytest.skip("ruff is not installed (it is in the test extra: pip install '.[test]')")
    return exe


def test_pyflakes_rules_pass():
    dirs = [d for d in ("numreduce", "tests", "benchmarks", "examples")
            if os.path.isdir(os.path.join(ROOT, d))]
    if "numreduce" not in dirs:
        pytest.skip("the source tree is not beside the tests (an installed test copy)")
    res = subprocess.run([_ruff(), "check", "--no-cache", "--select", "F", "--output-format",
                          "concise", *dirs], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
