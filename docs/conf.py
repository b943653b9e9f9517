"""Sphinx configuration of numreduce's documentation site.

Build: ``python -m sphinx -W -b html docs <dir>`` from the repository root,
with numreduce installed (``pip install ".[docs]"``).  The API reference is
generated from the installed package's docstrings (autodoc + numpydoc); the
pages are the Markdown files in this folder (myst-parser).
"""

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
    "numpydoc",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

# numpydoc renders the docstrings' sections; the class-member tables of the
# ufunc objects are NumPy's, not ours.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()
autodoc_default_options = {"members": False}

html_theme = "pydata_sphinx_theme"
html_title = f"numreduce {release}"
html_theme_options = {"navigation_with_keys": False}


def _ufunc_signature(app, what, name, obj, options, signature, return_annotation):
    """No autodoc signature for the ufunc objects (documented with
    ``autodata``): numpydoc would offer NumPy's generated first docstring
    line, which Sphinx cannot attach to a data entry.  The docstrings spell
    the call out themselves.  An empty tuple ends the event's handlers
    without setting anything."""
    import numpy as np

    return () if isinstance(obj, np.ufunc) else None


def setup(app):
    # Before numpydoc's own handler (priority 500).
    app.connect("autodoc-process-signature", _ufunc_signature, priority=100)
