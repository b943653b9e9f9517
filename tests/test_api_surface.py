"""The public surface: __all__, the type stubs and the docstring examples agree with the code."""

import ast
import doctest
import pathlib

import numpy as np
import pytest

import numreduce
import numreduce._api

PKG = pathlib.Path(numreduce.__file__).parent


def _stub_names():
    tree = ast.parse((PKG / "__init__.pyi").read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_all_names_exist():
    for name in numreduce.__all__:
        assert hasattr(numreduce, name), name


def test_stubs_match_all():
    public = {n for n in _stub_names() if not n.startswith("_")} - {"__version__"}
    assert public == set(numreduce.__all__)


def test_multi_output_ufuncs_are_registered_for_reduce():
    for name in ("minimummaximum", "fminfmax", "moments", "nanmoments", "maxsumexp", "twosum"):
        u = getattr(numreduce, name)
        assert isinstance(u, np.ufunc) and u.nin == 2 and u.nout >= 2
        assert numreduce._core._MULTI_OUTPUT[u] == u.nout


@pytest.mark.parametrize("module", [numreduce._api])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_show_config_runs(capsys):
    numreduce.show_config()
    out = capsys.readouterr().out
    assert "native_reduce" in out and np.__version__ in out
