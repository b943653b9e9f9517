"""Every public docstring parses with numpydoc into sections whose entries
are names and types, not sentences: a paragraph left under ``Parameters``
or ``Returns`` renders as a bold fake parameter on the reference pages.

The public docstrings: numreduce.__all__'s functions and ufuncs, the
xarray and pandas accessors with their public methods (and those of the
grouped objects their ``groupby`` returns), and numreduce.cupy's public
functions, read from its source (importing numreduce.cupy needs CuPy and
a CUDA device; the reference pages render the same docstrings)."""

import ast
import inspect
import pathlib
import re
import warnings

import pytest

import numreduce as nr

docscrape = pytest.importorskip(
    "numpydoc.docscrape", reason="numpydoc is not installed (the 'docs' extra)")

PACKAGE = pathlib.Path(nr.__file__).resolve().parent
_SECTIONS = ("Parameters", "Other Parameters", "Returns", "Yields", "Receives",
             "Raises", "Warns", "Attributes")
# A name: an identifier (``*args``, ``**kwargs`` too), or several of them
# with commas, optionally in parentheses as a returned tuple: ``(min, max)``.
_IDENT = re.compile(r"\*{0,2}[A-Za-z_]\w*")


def _name_problem(name):
    if not name:
        return None  # Returns/Raises: a type alone
    inner = name[1:-1] if name.startswith("(") and name.endswith(")") else name
    if all(_IDENT.fullmatch(part.strip()) for part in inner.split(",")):
        return None
    return "its name is not an identifier (a sentence or markup)"


def _type_problem(type_):
    if not type_:
        return None
    if "``" in type_ or type_.rstrip().endswith((".", ":", ";")):
        return "its type is a sentence (markup or closing punctuation)"
    if type_.count("(") != type_.count(")"):
        return "its type has unbalanced parentheses (a wrapped paragraph)"
    if len(type_.split()) > 12:
        return "its type is longer than a type (a paragraph)"
    return None


def _problems(qualname, doc):
    assert doc, f"{qualname} has no docstring"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parsed = docscrape.NumpyDocString(inspect.cleandoc(doc))
    found = [f"{qualname}: numpydoc warns {w.message}" for w in caught]
    for section in _SECTIONS:
        for entry in parsed[section]:
            for problem in (_name_problem(entry.name), _type_problem(entry.type)):
                if problem:
                    found.append(f"{qualname} {section}: {entry.name!r} : {entry.type!r}: "
                                 f"{problem}")
    return found


def _public_objects():
    """numreduce.__all__'s functions and ufuncs (the ufuncs' docstrings
    come from the C++ registration table)."""
    return [(f"numreduce.{n}", getattr(nr, n)) for n in nr.__all__
            if callable(getattr(nr, n)) and n != "NoValue"]


def _accessor_objects():
    import numreduce.pandas as npd
    import numreduce.xarray as nxr

    classes = [(f"numreduce.xarray.{n}", getattr(nxr, n)) for n in nxr.__all__]
    classes += [(f"numreduce.pandas.{n}", getattr(npd, n)) for n in npd.__all__]
    # (with NumreduceGroupBy, the objects that the accessors' groupby returns)
    objs = []
    for qualname, cls in classes:
        if not qualname.rsplit(".", 1)[1].startswith("_"):
            objs.append((qualname, cls))
        for m in sorted(dir(cls)):
            if not m.startswith("_") and callable(getattr(cls, m)):
                objs.append((f"{qualname}.{m}", getattr(cls, m)))
    return objs


def test_the_check_refuses_a_sentence():
    """The test can fail: the three shapes of broken docstring it was
    written against are refused, a plain one is not."""
    ok = """Summary.

    Parameters
    ----------
    x, y : array_like
        The data.
    *arrays : array_like

    Returns
    -------
    (min, max) : tuple
        Two arrays.
    """
    assert _problems("ok", ok) == []
    fake_parameter = ok.replace("    Returns\n", "    Every check runs before anything is written.\n\n    Returns\n")
    assert _problems("p", fake_parameter)
    returns_paragraph = """Summary.

    Returns
    -------
    What ``reduction(f(*arrays))``
    returns: exactly for the order reductions (min/max and their indices),
    within the accuracy for the others (the blocks' states
    are merged as its threads' are).
    """
    assert _problems("r", returns_paragraph)
    type_sentence = ok.replace("(min, max) : tuple", "(min, max) : NumPy scalars, else arrays.")
    assert _problems("t", type_sentence)


@pytest.mark.parametrize("qualname,obj", _public_objects(), ids=[q for q, _ in _public_objects()])
def test_public_docstring_entries_are_names(qualname, obj):
    assert not _problems(qualname, obj.__doc__), "\n".join(_problems(qualname, obj.__doc__))


def test_accessor_docstring_entries_are_names():
    pytest.importorskip("xarray", reason="xarray is not installed (the 'xarray' extra)")
    pytest.importorskip("pandas", reason="pandas is not installed (the 'pandas' extra)")
    found = []
    objs = _accessor_objects()
    assert len(objs) > 20
    for qualname, obj in objs:
        found += _problems(qualname, obj.__doc__)
    assert not found, "\n".join(found)


def test_cupy_docstring_entries_are_names():
    """numreduce.cupy's public functions and classes, from the source (the
    module imports CuPy)."""
    tree = ast.parse((PACKAGE / "cupy.py").read_text(encoding="utf-8"))
    found, seen = [], 0
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            seen += 1
            found += _problems(f"numreduce.cupy.{node.name}", ast.get_docstring(node, clean=False))
    assert seen > 20
    assert not found, "\n".join(found)


_SECTIONS_OF_A_METHOD = {"Returns", "See Also", "Examples"}


def test_accessor_methods_have_sections_and_their_examples_run():
    """Every public method of the accessors and of their grouped objects
    says what it gives and what it stands beside, and shows it: the
    examples run (numpydoc renders them on the reference pages)."""
    import doctest
    pytest.importorskip("xarray", reason="xarray is not installed (the 'xarray' extra)")
    pytest.importorskip("pandas", reason="pandas is not installed (the 'pandas' extra)")
    failures, checked = [], 0
    for qualname, obj in _accessor_objects():
        if isinstance(obj, type):
            continue
        parsed = docscrape.NumpyDocString(inspect.cleandoc(obj.__doc__))
        missing = {s for s in _SECTIONS_OF_A_METHOD if not parsed[s]}
        if missing:
            failures.append(f"{qualname} lacks {sorted(missing)}")
        test = doctest.DocTestParser().get_doctest(inspect.cleandoc(obj.__doc__), {},
                                                   qualname, None, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        out = []
        runner.run(test, out=out.append)
        checked += bool(test.examples)
        if runner.failures:
            failures.append("".join(out))
    assert checked > 20 and not failures, "\n".join(failures)


def test_cupy_functions_have_sections():
    """numreduce.cupy's functions (read from the source: importing the
    module needs CuPy and a GPU) have Parameters, Returns and See Also."""
    tree = ast.parse((PACKAGE / "cupy.py").read_text(encoding="utf-8"))
    found, n = [], 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            n += 1
            parsed = docscrape.NumpyDocString(inspect.cleandoc(ast.get_docstring(node)))
            found += [f"numreduce.cupy.{node.name} lacks {s}"
                      for s in ("Parameters", "Returns", "See Also") if not parsed[s]]
    assert n > 25 and not found, "\n".join(found)
