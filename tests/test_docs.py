"""The documentation site: its pages' code examples run, its generated API
reference names every public name, and (where the docs extra is installed:
``pip install ".[docs]"``) the site builds with warnings as errors, exactly
as the README says: ``python -m sphinx -W -b html docs <dir>`` from the
repository root."""

import doctest
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import numreduce as nr

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
# the top-level pages and the user guide's (docs/guide/)
PAGES = sorted(DOCS.glob("*.md")) + sorted((DOCS / "guide").glob("*.md"))
_BLOCK = re.compile(r"^(?P<before>[^\n]*)\n```python\n(?P<code>.*?)^```", re.S | re.M)


def _blocks():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for k, m in enumerate(_BLOCK.finditer(text)):
            yield pytest.param(page, k, m["before"], m["code"],
                               id=f"{page.relative_to(DOCS)}-{k}")


BLOCKS = list(_blocks())


def test_pages_exist():
    assert (DOCS / "conf.py").is_file() and (DOCS / "index.md").is_file()
    assert BLOCKS, "no ```python block in docs/*.md"


@pytest.mark.parametrize("page,index,before,code", BLOCKS)
def test_page_python_blocks_run(page, index, before, code, tmp_path, monkeypatch):
    """A python block is a doctest (>>> with its output), run in an empty
    folder; a script block (no >>>) must say on the line before it, in an
    HTML comment, which test runs it or what it needs (a GPU, a cluster)."""
    if ">>>" not in code:
        assert re.fullmatch(r"<!--.*-->", before.strip()), (
            f"{page.name} python block {index} is neither a doctest nor marked with an "
            "HTML comment saying which test runs it")
        return
    mods = re.findall(r"^>>> from (\w+)", code, re.M)
    for names in re.findall(r"^>>> import (.*)$", code, re.M):
        mods += [part.split()[0].split(".")[0] for part in names.split(",")]
    missing = sorted({m for m in mods if importlib.util.find_spec(m) is None})
    if missing:  # an optional package of an extra (xarray: the 'xarray' extra)
        pytest.skip(f"{page.name} block {index} needs {', '.join(missing)}, not installed")
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(code, {}, f"{page.name} block {index}",
                                               str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)


_COPIED = re.compile(r"^<!-- (?P<kind>whole|excerpt) of (?P<path>examples/\S+)[^\n]*-->\n"
                     r"```\w+\n(?P<code>.*?)^```", re.S | re.M)


def test_example_code_on_the_pages_is_the_example_code():
    """The code a page shows from examples/ (marked `<!-- whole of PATH -->`
    or `<!-- excerpt of PATH ... -->` on the line before the block) is the
    file's text, or a verbatim part of it: the tutorial cannot drift from
    the example that CI builds and tests."""
    found = {}
    for page in PAGES:
        for m in _COPIED.finditer(page.read_text(encoding="utf-8")):
            text = (DOCS.parent / m["path"]).read_text(encoding="utf-8")
            if m["kind"] == "whole":
                assert m["code"] == text, f"{page.name}: the copy of {m['path']} differs"
            else:
                assert m["code"] in text, f"{page.name}: the excerpt of {m['path']} differs"
            found.setdefault(page.name, set()).add(m["path"])
    assert found.get("extending.md") == {"examples/sumsq/src/sumsq.hpp",
                                         "examples/sumsq/src/wsumsq.hpp",
                                         "examples/sumsq/src/module.cpp",
                                         "examples/sumsq/meson.build"}


def _reference_entries():
    """The full names docs/reference.md's autosummary tables list (each gets
    a page of its own, docs/_generated/api/<name>.rst, at build time)."""
    text = (DOCS / "reference.md").read_text(encoding="utf-8")
    names, module = [], None
    for block in re.findall(r"```\{eval-rst\}\n(.*?)```", text, re.S):
        entries = False
        for line in block.splitlines():
            if m := re.match(r"\.\. currentmodule:: (\S+)$", line):
                module, entries = m[1], False
            elif line.startswith(".. autosummary::"):
                entries = True
            elif entries and re.match(r"   [~\w]", line):
                names.append(f"{module}.{line.strip().lstrip('~')}")
    return names


def test_reference_names_every_public_name():
    names = _reference_entries()
    assert len(names) == len(set(names)), "a name listed twice"
    documented = {n.removeprefix("numreduce.") for n in names if n.count(".") == 1}
    missing = sorted(set(nr.__all__) - documented)
    assert not missing, f"docs/reference.md does not list {missing}"
    unknown = sorted(documented - set(nr.__all__) - {"xarray", "pandas"})
    assert not unknown, f"docs/reference.md lists names outside __all__: {unknown}"


def test_reference_lists_no_private_name():
    """Every page of the reference is a name a user writes: no private
    module, class or method (``__getitem__``, pandas' ``obj.nr.groupby(
    ...)[key]``, is the one dunder)."""
    names = _reference_entries()
    private = [n for n in names
               if any(part.startswith("_") and part != "__getitem__" for part in n.split("."))]
    assert names and not private, private


def test_reference_documents_cupy_and_the_accessors():
    """numreduce.cupy's functions (its stub's: the module itself needs a
    GPU; test_cupy_source checks the stub against it) and every public
    method of the xarray and pandas accessors, with their grouped objects."""
    import ast
    names = set(_reference_entries())
    stub = ast.parse((pathlib.Path(nr.__file__).parent / "cupy.pyi").read_text("utf-8"))
    funcs = {n.name for n in stub.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert {f"numreduce.cupy.{f}" for f in funcs} - names == set()
    pytest.importorskip("xarray", reason="xarray is not installed (the 'xarray' extra)")
    pytest.importorskip("pandas", reason="pandas is not installed (the 'pandas' extra)")
    import numreduce.pandas as npd
    import numreduce.xarray as nxr
    for name in npd.__all__:
        assert f"numreduce.pandas.{name}" in names
    for name in nxr.__all__:
        assert f"numreduce.xarray.{name}" in names
    # the Dataset and Series accessors have the DataArray's and DataFrame's
    # methods, documented once (on the DataArray's and DataFrame's pages)
    assert nxr.NumreduceDatasetAccessor.__mro__[1:] == nxr.NumreduceDataArrayAccessor.__mro__[1:]
    assert npd.NumreduceSeriesAccessor.__mro__[1:] == npd.NumreduceDataFrameAccessor.__mro__[1:]
    for cls, documented_as in [
            (nxr.NumreduceDataArrayAccessor, "numreduce.xarray.NumreduceDataArrayAccessor"),
            (nxr.NumreduceGroupBy, "numreduce.xarray.NumreduceGroupBy"),
            (npd.NumreduceDataFrameAccessor, "numreduce.pandas.NumreduceDataFrameAccessor"),
            (npd.NumreduceGroupBy, "numreduce.pandas.NumreduceGroupBy")]:
        public = {m for m in dir(cls) if not m.startswith("_") and callable(getattr(cls, m))}
        assert public and {f"{documented_as}.{m}" for m in public} - names == set(), documented_as


def test_stored_benchmark_run_loads():
    from numreduce import _bench

    rows, doc = _bench.load_rows(str(DOCS / "_data" / "bench-targets.json"))
    assert rows and all(r[5] in ("ok", "MISS") for r in rows)
    assert doc["command"].startswith("python -m numreduce bench")


def _toctree_entries(page):
    """The documents a page's toctrees list, as paths relative to docs/."""
    text = page.read_text(encoding="utf-8")
    base = page.parent.relative_to(DOCS)
    out = set()
    for tree in re.findall(r"```\{toctree\}\n(.*?)```", text, re.S):
        out |= {(base / line.strip()).as_posix() for line in tree.splitlines()
                if line.strip() and not line.startswith(":")}
    return out


def test_index_toctree_lists_every_page():
    """Every page is in a toctree: the front page's, the user guide's
    (docs/guide/index.md) or the Development section's (development.md)."""
    top = _toctree_entries(DOCS / "index.md")
    assert {"guide/index", "reference", "semantics", "development"} <= top
    listed = (top | _toctree_entries(DOCS / "guide" / "index.md")
              | _toctree_entries(DOCS / "development.md"))
    pages = {p.relative_to(DOCS).with_suffix("").as_posix() for p in PAGES} - {"index"}
    assert pages == listed, f"toctrees {sorted(listed)} != pages {sorted(pages)}"


# Words of the development process, not of the user's world: issue numbers,
# work sessions, the machines and dates of development runs.
_PROCESS_WORDS = re.compile(
    r"\bissues? *#?\d+|\bthis session\b|\bsessions?\b|"
    r"\bthe project's (VM|machine)\b|\bVM\b|\bloaded\b|\bthe issue'?s?\b|"
    r"\b20\d\d-\d\d-\d\d\b|\bcommit [0-9a-f]{7,}\b", re.I)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_pages_have_no_process_words(page):
    """User pages speak of the library, not of how it was developed: no
    issue numbers, sessions, development machines or dates of runs."""
    found = []
    for k, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        for m in _PROCESS_WORDS.finditer(line):
            found.append(f"{page.name}:{k}: {m[0]!r} in {line.strip()[:80]!r}")
    assert not found, "\n".join(found)


# Words of the development history and of the project's acceptance
# criteria, which a user page does not need: what a number was before a
# change, the machine a developer ran on, targets met or missed.
_HISTORY_PHRASES = re.compile(
    r"\d(\.\d+)?x?\s+before\)|\bit gave\b[^.]*\bbefore\b|\bnow \d[\d.]* ?(us|ms|s)\b|"
    r"\bvirtual machine\b|\bthis (2-core )?machine\b|\bmachine was shared\b|"
    r"\bshared (2-core )?machine\b|\bborrowed\b|\bminute slot\b|"
    r"\btargets? (met|missed)\b|\bmeets? (its|their) targets?\b|"
    r"\bmiss(es)? (its|their|the) targets?\b|\| *target *\||\| *met *\||\bMISS\b|"
    r"\bnot measured: no GPU\b|\bnot run: no GPU\b", re.I)
# Contributor pages (the Development section of the site) may speak of the
# project's machines and history.
DEVELOPMENT_PAGES = {"architecture.md"}


def _history_phrases(name, text):
    return [f"{name}:{k}: {m[0]!r} in {line.strip()[:90]!r}"
            for k, line in enumerate(text.splitlines(), 1)
            for m in _HISTORY_PHRASES.finditer(line)]


def test_user_pages_have_no_development_history(tmp_path):
    """User pages (and the benchmark tables generated into them) give
    results and the conditions they were measured in, not what a number was
    before a change, the developers' machines or the acceptance targets."""
    assert _history_phrases("x", "1.3x-1.5x before)") and _history_phrases("x", "| met |")
    found = []
    for page in PAGES:
        if page.name not in DEVELOPMENT_PAGES:
            found += _history_phrases(page.name, page.read_text(encoding="utf-8"))
    sys.path.insert(0, str(DOCS))
    try:
        import _benchdocs
    finally:
        sys.path.pop(0)
    doc = _benchdocs.load()
    for name, text in [("bench-tables.md", _benchdocs.tables(doc)),
                       ("bench-layouts.md", _benchdocs.layouts_tables(
                           sorted((DOCS / "_data").glob("bench-layouts*.json")))),
                       ("bench-headline.md", _benchdocs.headline(doc)),
                       ("bench-xarray.md", _benchdocs.accessor_table(doc, "xr ")),
                       ("bench-pandas.md", _benchdocs.accessor_table(doc, "pd "))]:
        found += _history_phrases(name, text)
        found += [f"{name}: 'target'"] if "target" in text.lower() else []
    assert not found, "\n".join(found)


def test_benchmarks_page_is_results_not_a_log():
    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    words = len(text.split())
    assert words < 4000, f"docs/benchmarks.md has {words} words"
    assert text.count("_generated/bench-") >= 3  # the tables and two plots
    # console output is text, not highlighted as Python
    assert "```python" not in text


def test_console_output_is_not_highlighted_as_python():
    """A ```python block either is a doctest or is marked as a script
    (test_page_python_blocks_run); a bare ``` block is output, and must say
    ```text (or sh/console/...) so that it is not highlighted as Python."""
    bare = []
    for page in PAGES:
        fence = False
        for k, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("```"):
                if not fence and line.strip() == "```":
                    bare.append(f"{page.name}:{k}")
                fence = not fence
    assert not bare, f"code blocks without a language: {bare}"


def test_copybutton_and_theme_options():
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert '"sphinx_copybutton"' in conf and "copybutton_prompt_text" in conf
    pyproject = (DOCS.parent / "pyproject.toml").read_text(encoding="utf-8")
    docs_extra = re.search(r"^docs = \[(.*)\]$", pyproject, re.M)
    assert docs_extra and "sphinx-copybutton" in docs_extra[1]


@pytest.mark.skipif(importlib.util.find_spec("sphinx") is None
                    or importlib.util.find_spec("myst_parser") is None
                    or importlib.util.find_spec("numpydoc") is None
                    or importlib.util.find_spec("pydata_sphinx_theme") is None
                    or importlib.util.find_spec("sphinx_copybutton") is None,
                    reason="the docs extra is not installed (pip install '.[docs]')")
def test_site_builds_with_warnings_as_errors(tmp_path):
    """The README's command, from the repository root (where the source
    folder numreduce/ is on sys.path: docs/conf.py must still document the
    installed package)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "docs", str(tmp_path / "html")],
        cwd=DOCS.parent, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    html = tmp_path / "html"
    reference = (html / "reference.html").read_text(encoding="utf-8")
    # one page per public name, linked from the reference's tables
    pages = {p.stem for p in (html / "_generated" / "api").glob("*.html")}
    assert set(_reference_entries()) <= pages, sorted(set(_reference_entries()) - pages)
    for name in ("minmax", "reduce_by_group", "minimummaximum", "C_API_VERSION",
                 "xarray.NumreduceDataArrayAccessor.groupby", "xarray.NumreduceGroupBy.meanstd",
                 "pandas.NumreduceDataFrameAccessor.minmax", "pandas.NumreduceGroupBy.meanvar",
                 "cupy.group_meanvar"):
        assert f'href="_generated/api/numreduce.{name}.html#' in reference, name
        page = (html / "_generated" / "api" / f"numreduce.{name}.html").read_text("utf-8")
        assert f'id="numreduce.{name}"' in page, name
    # no private name on the reference's pages
    for p in [html / "reference.html", *(html / "_generated" / "api").glob("*.html")]:
        text = re.sub(r"<[^>]+>", "", p.read_text(encoding="utf-8"))
        assert not re.search(r"\b_(GroupedReductions|Grouped|Reductions|Accessor|cupy)\b"
                             r"|Layer: ", text), p.name
    page = (html / "_generated" / "api" / "numreduce.meanvar.html").read_text("utf-8")
    assert "Parameters" in page  # numpydoc rendered the sections
    # the stored benchmark run, plotted at build time from docs/_data
    for png in ("bench-area-0.png", "bench-time.png", "bench-headline.png"):
        assert (tmp_path / "html" / "_images" / png).stat().st_size > 1000
    bench = (tmp_path / "html" / "benchmarks.html").read_text(encoding="utf-8")
    assert "logsumexp" in bench and "compared with" in bench  # the included tables
    index = re.sub(r"<[^>]+>", "", (tmp_path / "html" / "index.html").read_text(encoding="utf-8"))
    assert "pip install numreduce" in index and "nr.minmax(a)" in index


def _sections(doc):
    return set(re.findall(r"^\s*(Parameters|Returns|Raises|See Also|Notes|Examples)\n\s*-{3,}$",
                          doc or "", re.M))


_FUNCTIONS = sorted(n for n in nr.__all__
                    if callable(getattr(nr, n)) and not isinstance(getattr(nr, n), np.ufunc)
                    and n != "NoValue")
_UFUNCS = sorted(n for n in nr.__all__ if isinstance(getattr(nr, n), np.ufunc))


@pytest.mark.parametrize("name", _FUNCTIONS + _UFUNCS)
def test_public_docstring_has_numpydoc_sections(name):
    """Every public function and ufunc says what it takes, what it gives,
    what it replaces or sits beside, and shows it."""
    missing = {"Parameters", "Returns", "See Also", "Examples"} - _sections(getattr(nr, name).__doc__)
    if name in ("show_config", "get_num_threads", "get_include"):
        missing.discard("Parameters")  # they take none
    assert not missing, f"numreduce.{name}'s docstring lacks {sorted(missing)}"


@pytest.mark.parametrize("name", _UFUNCS + ["show_config", "set_num_threads",
                                            "get_num_threads", "get_include"])
def test_docstring_examples_outside_api_run(name, tmp_path, monkeypatch):
    """The examples of the ufuncs' docstrings (from the C++ registration
    table) and of the configuration functions run (those of numreduce._api
    run in test_api_surface.py)."""
    monkeypatch.chdir(tmp_path)
    obj = getattr(nr, name)
    test = doctest.DocTestParser().get_doctest(obj.__doc__, {}, name, None, 0)
    assert test.examples, f"numreduce.{name} has no example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = []
    old = nr.get_num_threads()
    try:
        runner.run(test, out=out.append)
    finally:
        nr.set_num_threads(old)
    assert runner.failures == 0, "".join(out)


def _conf_constant_docs():
    """docs/conf.py's CONSTANT_DOCS, read from its source (importing
    conf.py would set up Sphinx's configuration)."""
    import ast
    tree = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "CONSTANT_DOCS":
            return ast.literal_eval(node.value)
    raise AssertionError("docs/conf.py has no CONSTANT_DOCS")


def test_constants_have_their_own_docs():
    """HAVE_NATIVE_REDUCE and C_API_VERSION are a bool and a tuple, whose
    __doc__ is Python's; docs/conf.py writes theirs (the reference page's
    template puts it in the directive), and their examples run."""
    docs = _conf_constant_docs()
    for name in ("HAVE_NATIVE_REDUCE", "C_API_VERSION"):
        text = docs[f"numreduce.{name}"]
        assert len(text.split()) > 30, f"docs/conf.py: no text for {name}"
        test = doctest.DocTestParser().get_doctest(text, {}, name, None, 0)
        assert test.examples
        runner = doctest.DocTestRunner()
        out = []
        runner.run(test, out=out.append)
        assert runner.failures == 0, "".join(out)
    template = (DOCS / "_templates" / "autosummary" / "base.rst").read_text(encoding="utf-8")
    assert "constant_docs[fullname]" in template


_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                 "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen"]


def test_pages_state_the_package_facts_it_has():
    """The figures a page states about the package are the package's: the C
    API version (the user guide's configuration page, in its show_config
    block and as nr.C_API_VERSION; extending.md) and the number of ufuncs
    (extending.md: 'numreduce's N ufuncs')."""
    version = f"({nr.C_API_VERSION[0]}, {nr.C_API_VERSION[1]})"
    conf = (DOCS / "guide" / "configuration.md").read_text(encoding="utf-8")
    assert "`nr::import_numreduce()`" in conf
    assert f">>> nr.C_API_VERSION\n{version}\n" in conf
    m = re.search(r"^ +c_api: (\d+)\.(\d+)$", conf, re.M)
    assert m and (int(m[1]), int(m[2])) == tuple(nr.C_API_VERSION), (m and m[0], version)
    ext = (DOCS / "extending.md").read_text(encoding="utf-8")
    assert f">>> nr.C_API_VERSION\n{version}\n" in ext
    n = sum(isinstance(getattr(nr, name), np.ufunc) for name in nr.__all__)
    m = re.search(r"numreduce's (\w+) ufuncs", ext)
    assert m and m[1] == _NUMBER_WORDS[n], (m and m[1], n)


def test_math_is_code_not_emphasis():
    """`2**51` outside a code span is Markdown emphasis: the accuracy page
    showed [-2**51, 2**51) in bold.  Powers are written as code."""
    found = []
    for page in PAGES:
        fence = False
        for k, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("```"):
                fence = not fence
            elif not fence and not line.startswith((".. ", "   ")):
                outside = line.split("`")[::2]
                found += [f"{page.name}:{k}" for seg in outside if re.search(r"\w\*\*\w", seg)]
    assert not found, found


def test_links_have_titles_not_file_names():
    """A link reads as a title ('see the GPU page'), not a file name
    ('see gpu.md')."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        found += [f"{page.name}: {m[0]}" for m in re.finditer(r"\[[\w./-]+\.(md|py|hpp|cpp)\]\(", text)]
    assert not found, found
