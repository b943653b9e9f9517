"""Sphinx configuration of numreduce's documentation site.

Build: ``python -m sphinx -W -b html docs <dir>`` from the repository root,
with numreduce installed (``pip install ".[docs]"``).  The API reference is
generated from the installed package's docstrings (autodoc + numpydoc): the
index page docs/reference.md lists every public name in autosummary tables,
and autosummary writes one page per name into docs/_generated/api/ (not
committed; rewritten by every build, from docs/_templates/autosummary/).
The other pages are the Markdown files in this folder (myst-parser).
"""

import importlib
import os
import pathlib
import sys

_ROOT = pathlib.Path(__file__).resolve().parent.parent

# `python -m sphinx` puts the working directory on sys.path; from the
# repository root that would make autodoc import the source folder
# numreduce/, which has no compiled _core.  Drop every path that resolves
# to the repository root, so the installed package is imported.
sys.path[:] = [p for p in sys.path
               if pathlib.Path(p or os.getcwd()).resolve() != _ROOT]
import numpy as np  # noqa: E402

import numreduce  # noqa: E402

if pathlib.Path(numreduce.__file__).resolve().is_relative_to(_ROOT / "numreduce"):
    raise RuntimeError("docs/conf.py: numreduce was imported from the source folder "
                       f"{_ROOT / 'numreduce'}; install it first (pip install '.[docs]')")

project = "numreduce"
author = "the numreduce developers"
copyright = "2026, the numreduce developers"
version = release = numreduce.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_copybutton",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
# docs/_generated/ holds the benchmark tables (included into pages, not
# pages themselves) and the reference's one page per name (api/).
exclude_patterns = ["_build", "_data", "_generated/*.md"]
templates_path = ["_templates"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# numpydoc renders the docstrings' sections; the class-member tables of the
# ufunc objects are NumPy's, not ours.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()
autodoc_default_options = {"members": False}
# numreduce.cupy imports its backend numreduce._cupy, which refuses to import
# without CuPy and a CUDA device (ImportError saying which is missing): the
# reference documents the module's functions from their docstrings with
# that one module mocked, on machines without a GPU as on those with one.
autodoc_mock_imports = ["numreduce._cupy"]

# One page per public name (docs/reference.md's autosummary tables), from
# docs/_templates/autosummary/.  The templates get these in their context:
# the pages' titles where the full name is not what a user writes (the
# accessors: ``DataArray.nr.minmax``), the call of each ufunc (documented as
# data: NumPy's generated first docstring line is not a signature Sphinx
# can attach to it) and the text of the two constants, whose __doc__ is
# Python's (bool, tuple).
autosummary_generate = True
autosummary_imported_members = False
_ACCESSORS = {"numreduce.xarray.NumreduceDataArrayAccessor": "DataArray.nr",
              "numreduce.xarray.NumreduceDatasetAccessor": "Dataset.nr",
              "numreduce.pandas.NumreduceDataFrameAccessor": "DataFrame.nr",
              "numreduce.pandas.NumreduceSeriesAccessor": "Series.nr"}
_UFUNC_ARGS = {"wmoments": "x, w", "nanwmoments": "x, w", "comoments": "x, y",
               "maxsumexpb": "x, b", "twoprod": "x, y"}


def _ufunc_call(name):
    ufunc = getattr(numreduce, name)
    outs = (f"({', '.join(['None'] * ufunc.nout)})" if ufunc.nout <= 3
            else f"(None,) * {ufunc.nout}")
    return f"({_UFUNC_ARGS.get(name, 'x1, x2')}, /, out={outs}, *, where=True, ...)"


CONSTANT_DOCS = {
    "numreduce.HAVE_NATIVE_REDUCE": """\
``True`` where the running NumPy has the multi-output reduction slots, so
that ``ufunc.reduce`` works on numreduce's ufuncs
(``nr.minimummaximum.reduce(a)``).  ``False`` on every released NumPy
(2.0 to 2.5): there ``ufunc.reduce`` raises NumPy's ``ValueError: reduce
only supported for functions returning a single value``; use
:func:`numreduce.reduce` (``nr.reduce(nr.minimummaximum, a)``) and the user
functions, which work on every NumPy 2.x and give the same results.
Decided once, at import; :func:`numreduce.show_config` says why.

>>> import numreduce as nr
>>> nr.HAVE_NATIVE_REDUCE in (True, False)
True
""",
    "numreduce.C_API_VERSION": """\
The version of numreduce's C API, a tuple of two ints ``(major, minor)``.
An extension compiled against numreduce's headers
(:func:`numreduce.get_include`) checks it when its module initialises
(``nr::import_numreduce()``): the major versions must be equal and the
installed minor version at least the one it was compiled against, else the
import raises ``ImportError`` (the page :doc:`/extending`).

>>> import numreduce as nr
>>> major, minor = nr.C_API_VERSION
>>> major >= 1
True
""",
}
autosummary_context = {
    "titles": dict(_ACCESSORS),
    "annotations": {f"numreduce.{n}": _ufunc_call(n) for n in numreduce.__all__
                    if isinstance(getattr(numreduce, n), np.ufunc)}
    | {"numreduce.HAVE_NATIVE_REDUCE": "= True or False",
       "numreduce.C_API_VERSION": "= (major, minor)", "numreduce.NoValue": ""},
    "constant_docs": CONSTANT_DOCS,
}
for _cls, _short in _ACCESSORS.items():
    _mod, _, _name = _cls.rpartition(".")
    for _m in dir(getattr(importlib.import_module(_mod), _name)):
        if not _m.startswith("_"):
            autosummary_context["titles"][f"{_cls}.{_m}"] = f"{_short}.{_m}"

html_theme = "pydata_sphinx_theme"
html_title = f"numreduce {release}"
html_theme_options = {
    "navigation_with_keys": False,
    # every page in the top bar (no "More" menu): the site has eleven
    "header_links_before_dropdown": 12,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
# No left sidebar: the pages are listed in the top bar, and the empty column
# would take a quarter of the width from the article.
html_sidebars = {"**": []}
html_static_path = ["_static"]
html_css_files = ["numreduce.css"]

# Copy buttons copy the code without the prompts and without the output.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_exclude = ".linenos, .gp, .go"


def _ufunc_signature(app, what, name, obj, options, signature, return_annotation):
    """No autodoc signature for the ufunc objects (documented with
    ``autodata``): numpydoc would offer NumPy's generated first docstring
    line, which Sphinx cannot attach to a data entry.  The docstrings spell
    the call out themselves.  An empty tuple ends the event's handlers
    without setting anything."""
    import numpy as np

    return () if isinstance(obj, np.ufunc) else None


def _plot_stored_benchmarks(app):
    """Turn the stored benchmark run (docs/_data/bench-targets.json, written
    by ``python -m numreduce bench --save``) into the benchmarks page's
    tables and plots (docs/_generated/, see docs/_benchdocs.py): numbers of
    the stored run, nothing is timed here."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        raise RuntimeError("docs: matplotlib is needed for the benchmark plots "
                           "(pip install '.[docs]')") from e
    sys.path.insert(0, str(pathlib.Path(app.srcdir)))
    try:
        import _benchdocs
    finally:
        sys.path.pop(0)
    _benchdocs.write_all()


# Links to NumPy, SciPy, Dask and xarray: built here from the name, so the
# build needs no network (no intersphinx inventory to fetch).
_EXTERNAL = [
    # (prefix written in the docs, canonical prefix, URL of a generated page)
    ("np.", "numpy.", "https://numpy.org/doc/stable/reference/generated/{}.html"),
    ("numpy.", "numpy.", "https://numpy.org/doc/stable/reference/generated/{}.html"),
    ("scipy.special.", "scipy.special.",
     "https://docs.scipy.org/doc/scipy/reference/generated/{}.html"),
    ("scipy.stats.", "scipy.stats.",
     "https://docs.scipy.org/doc/scipy/reference/generated/{}.html"),
    ("da.", "dask.array.", "https://docs.dask.org/en/stable/generated/{}.html"),
    ("dask.array.", "dask.array.", "https://docs.dask.org/en/stable/generated/{}.html"),
    ("xr.", "xarray.", "https://docs.xarray.dev/en/stable/generated/{}.html"),
    ("xarray.", "xarray.", "https://docs.xarray.dev/en/stable/generated/{}.html"),
    ("math.", "math.", "https://docs.python.org/3/library/math.html#{}"),
]


def _external_url(name):
    """The documentation URL of a NumPy/SciPy/Dask/xarray/math name such as
    ``np.min`` or ``scipy.special.logsumexp``, or None.  Only names that
    exist (imported where the package is installed) get a link."""
    import importlib

    for short, full, url in _EXTERNAL:
        if not name.startswith(short):
            continue
        rest = name[len(short):]
        if not rest or not all(part.isidentifier() and not part.startswith("_")
                               for part in rest.split(".")):
            return None
        canonical = full + rest
        module, _, attr = canonical.rpartition(".")
        try:
            obj = importlib.import_module(module.split(".")[0])
            for part in canonical.split(".")[1:]:
                obj = getattr(obj, part)
        except (ImportError, AttributeError):
            try:  # a submodule (scipy.special is not imported by scipy)
                obj = importlib.import_module(module)
                obj = getattr(obj, attr)
            except (ImportError, AttributeError):
                return None
        if not callable(obj) or (full == "numpy." and isinstance(obj, type)
                                 and issubclass(obj, importlib.import_module("numpy").generic)):
            return None  # scalar types have no generated page
        if canonical.startswith("numpy.") and canonical.count(".") > 1:
            # a method such as np.minimum.accumulate: NumPy's page of the method
            method = canonical.rsplit(".", 1)[1]
            if not isinstance(getattr(importlib.import_module("numpy"),
                                      canonical.split(".")[1], None),
                              importlib.import_module("numpy").ufunc):
                return None
            canonical = f"numpy.ufunc.{method}"
        return url.format(canonical)
    return None


def _link_external_names(app, doctree):
    """Inline code that is exactly a NumPy/SciPy/Dask/xarray name
    (`np.min`, `np.minimum.accumulate`, `scipy.special.logsumexp`,
    `da.reduction`, `xr.apply_ufunc`, `math.fsum`) links to its page."""
    from docutils import nodes

    for lit in list(doctree.findall(nodes.literal)):
        if isinstance(lit.parent, nodes.reference) or "xref" in lit.get("classes", []):
            continue
        text = lit.astext().strip()
        if text.endswith("()"):
            text = text[:-2]
        url = _external_url(text)
        if url:
            ref = nodes.reference("", "", refuri=url, internal=False)
            lit.replace_self(ref)
            ref.append(lit)


def _missing_reference(app, env, node, contnode):
    """See Also entries and :func: roles naming numpy.min, scipy.special.logsumexp,
    ... resolve to the external page (offline)."""
    from docutils import nodes

    url = _external_url(node.get("reftarget", ""))
    if url is None:
        return None
    ref = nodes.reference("", "", refuri=url, internal=False)
    ref.append(contnode)
    return ref


# The constants are a bool and a tuple, whose docstrings are Python's own
# ("bool(x) -> bool"): CONSTANT_DOCS above is their text (the autosummary
# template writes it in the directive).


def _constant_docstring(app, what, name, obj, options, lines):
    if name in CONSTANT_DOCS:
        lines.clear()


def _fresh_reference_pages(app):
    """Before autosummary writes the reference's pages: remove those of a
    previous build, so that a name no longer public leaves no page behind
    (an orphan page would fail the build)."""
    import shutil

    shutil.rmtree(pathlib.Path(app.srcdir) / "_generated" / "api", ignore_errors=True)


def setup(app):
    # before autosummary's own handler (priority 500)
    app.connect("builder-inited", _fresh_reference_pages, priority=100)
    app.connect("autodoc-process-docstring", _constant_docstring, priority=100)
    app.connect("doctree-read", _link_external_names)
    app.connect("missing-reference", _missing_reference)
    # Before numpydoc's own handler (priority 500).
    app.connect("autodoc-process-signature", _ufunc_signature, priority=100)
    app.connect("builder-inited", _plot_stored_benchmarks)
