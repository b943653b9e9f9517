"""The type stubs (numreduce/__init__.pyi) under `mypy --strict`: a user's
script that touches every public name type-checks cleanly, and calls the
stubs must reject are rejected, line by line."""

import ast
import importlib.util
import os
import pathlib
import re
import runpy
import subprocess
import sys

import pytest

import numreduce as nr

HERE = pathlib.Path(__file__).resolve().parent / "typing_examples"
needs_mypy = pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                                reason="mypy is not installed (pip install '.[test]')")


def _mypy(path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
         os.devnull, "--python-version", f"{sys.version_info[0]}.{sys.version_info[1]}",
         str(path)],
        cwd=HERE, env=env, capture_output=True, text=True, timeout=600)
    return proc


def test_usage_touches_every_public_name():
    tree = ast.parse((HERE / "usage.py").read_text(encoding="utf-8"))
    used = {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "nr"}
    missing = sorted(set(nr.__all__) - used)
    assert not missing, f"tests/typing_examples/usage.py does not use {missing}"


def test_usage_runs():
    runpy.run_path(str(HERE / "usage.py"), run_name="usage")


@needs_mypy
def test_usage_typechecks_strict():
    proc = _mypy(HERE / "usage.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # mypy checked the installed stubs, not the source folder
    assert "Success" in proc.stdout


@needs_mypy
def test_wrong_calls_are_rejected():
    src = (HERE / "wrong.py").read_text(encoding="utf-8").splitlines()
    expected = {i + 1 for i, line in enumerate(src) if line.rstrip().endswith("# E")}
    proc = _mypy(HERE / "wrong.py")
    got = {int(m) for m in re.findall(r"^wrong\.py:(\d+): error", proc.stdout, re.M)}
    assert expected and got == expected, proc.stdout + proc.stderr
