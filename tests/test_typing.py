"""The type stubs (numreduce/__init__.pyi) under `mypy --strict`: a user's
script that touches every public name type-checks cleanly, and calls the
stubs must reject are rejected, line by line.  The accessor stubs
(numreduce/xarray.pyi, numreduce/pandas.pyi) likewise, and their
signatures equal the code's."""

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


# ---------------------------------------------------------------------------
# the accessor stubs (numreduce/xarray.pyi, numreduce/pandas.pyi)
# ---------------------------------------------------------------------------

def _accessor_modules():
    pytest.importorskip("pandas", reason="pandas is not installed (the 'pandas' extra)")
    pytest.importorskip("xarray", reason="xarray is not installed (the 'xarray' extra)")
    import numreduce.pandas
    import numreduce.xarray
    return [numreduce.xarray, numreduce.pandas]


def _stub_params(fn):
    """(name, kind, default) of a stub function's parameters, as
    inspect.Parameter gives them."""
    import inspect
    P = inspect.Parameter
    a = fn.args
    out = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for i, (arg, d) in enumerate(zip(positional, defaults)):
        kind = P.POSITIONAL_ONLY if i < len(a.posonlyargs) else P.POSITIONAL_OR_KEYWORD
        out.append((arg.arg, kind, P.empty if d is None else ast.literal_eval(d)))
    if a.vararg:
        out.append((a.vararg.arg, P.VAR_POSITIONAL, P.empty))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, P.KEYWORD_ONLY, P.empty if d is None else ast.literal_eval(d)))
    if a.kwarg:
        out.append((a.kwarg.arg, P.VAR_KEYWORD, P.empty))
    return out


def test_accessor_stubs_match_the_code():
    """Every class of the accessor stubs exists in its module with the same
    bases' methods: each public method (and __init__, __getitem__) with the
    same parameters -- names, kinds, defaults -- and none left out."""
    import inspect
    for mod in _accessor_modules():
        stub = ast.parse(pathlib.Path(mod.__file__).with_suffix(".pyi").read_text("utf-8"))
        classes = {n.name: n for n in stub.body if isinstance(n, ast.ClassDef)}
        stub_all = next(ast.literal_eval(n.value) for n in stub.body
                        if isinstance(n, ast.Assign) and n.targets[0].id == "__all__")
        assert stub_all == mod.__all__
        assert set(mod.__all__) <= set(classes)

        def methods(name, classes=classes):
            node = classes[name]
            own = {f.name: f for f in node.body if isinstance(f, ast.FunctionDef)}
            for base in node.bases:  # Generic[...] / _Reductions[...]: the subscripted name
                bname = base.value.id if isinstance(base, ast.Subscript) else base.id
                if bname in classes:
                    own = {**methods(bname), **own}
            return own

        for name in classes:
            cls = getattr(mod, name)
            stubbed = methods(name)
            public = {m for m in dir(cls) if (not m.startswith("_") or m in
                                              ("__init__", "__getitem__"))
                      and callable(getattr(cls, m)) and getattr(cls, m) is not
                      getattr(object, m, None)}
            assert set(stubbed) == public, (mod.__name__, name)
            for m, fn in stubbed.items():
                sig = inspect.signature(getattr(cls, m))
                got = [(p.name, p.kind, p.default) for p in sig.parameters.values()]
                assert _stub_params(fn) == got, (mod.__name__, name, m)


@needs_mypy
def test_accessor_usage_typechecks_strict_and_runs():
    _accessor_modules()
    runpy.run_path(str(HERE / "accessors.py"), run_name="accessors")
    proc = _mypy(HERE / "accessors.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout


@needs_mypy
def test_accessor_wrong_calls_are_rejected():
    _accessor_modules()
    src = (HERE / "accessors_wrong.py").read_text(encoding="utf-8").splitlines()
    expected = {i + 1 for i, line in enumerate(src) if line.rstrip().endswith("# E")}
    proc = _mypy(HERE / "accessors_wrong.py")
    got = {int(m) for m in re.findall(r"^accessors_wrong\.py:(\d+): error", proc.stdout,
                                        re.MULTILINE)}
    assert expected and got == expected, proc.stdout + proc.stderr
