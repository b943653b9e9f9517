"""The Python package's layers (docs/architecture.md): read from the sources
with ``ast``, so that the layering cannot decay.

Every module of ``numreduce/`` has a rank; an import (at module level or
inside a function: a lazy import is an import too) may only go to a module
of lower rank.  So there is no import circle, and no lower layer imports a
higher one.  A new module must be given its rank here (and its place in
docs/architecture.md).  The array-type backends also import no private
name of another module: what they share with the rest of the package is
its public names (the rules, the NumPy backend's primitives).
"""

import ast
import pathlib
import re

import pytest

import numreduce

PKG = pathlib.Path(numreduce.__file__).parent
DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"

# module -> (layer, rank): an import must go to a strictly lower rank
LAYERS = {
    "_core": ("core", 0),  # the C++ extension
    "_version": ("core", 0),
    "_cupy_source": ("core", 1),  # the generated CUDA source of the device kernels
    "_args": ("rules", 2),
    "_dtypes": ("rules", 3),
    "_threadpool": ("rules", 2),  # threadpoolctl's controller, registered on its import
    "_config": ("rules", 3),
    "_extension": ("rules", 3),
    "_host": ("backends", 4),
    "_dask_graph": ("backends", 4),  # Dask graphs over blocks of states, for _dask
    "_dask": ("backends", 5),
    "_cupy": ("backends", 5),
    "_mapped": ("backends", 5),  # the image f(*arrays) block by block, for mapreduce
    "_methods": ("methods", 6),
    "_stats": ("statistics", 7),
    "_dispatch": ("dispatch", 8),
    "_api": ("public", 9),
    "_fastpath": ("public", 10),
    "__init__": ("faces", 11),
    "xarray": ("faces", 12),
    "pandas": ("faces", 12),
    "cupy": ("faces", 12),
    "_bench": ("faces", 13),  # imports the accessors (its xarray/pandas rows)
    "_bench_peers": ("faces", 14),
    "_bench_layouts": ("faces", 14),  # the layouts sweep (imports _bench)
    "__main__": ("faces", 15),
}
BACKENDS = ("_dask", "_cupy")


def _modules():
    return {p.stem: p for p in PKG.glob("*.py")}


def _imports(path):
    """(module imported, names taken from it, line) for every numreduce
    import in the file, lazy ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                found.append((node.module.split(".")[0], [a.name for a in node.names],
                              node.lineno))
            elif node.level == 1:  # from . import a, b
                for a in node.names:
                    target = a.name if a.name in LAYERS else "__init__"
                    found.append((target, [] if target == a.name else [a.name], node.lineno))
            elif node.module and node.module.split(".")[0] == "numreduce":
                parts = node.module.split(".")
                target = parts[1] if len(parts) > 1 else "__init__"
                found.append((target, [a.name for a in node.names], node.lineno))
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "numreduce":
                    found.append((parts[1] if len(parts) > 1 else "__init__", [], node.lineno))
    return found


def test_every_module_has_a_layer():
    missing = sorted(set(_modules()) - set(LAYERS))
    assert not missing, f"give these modules a layer (and a place in docs/architecture.md): " \
                        f"{missing}"


@pytest.mark.parametrize("module", sorted(_modules()))
def test_imports_go_down_only(module):
    rank = LAYERS[module][1]
    bad = [(target, line) for target, _, line in _imports(_modules()[module])
           if target != module and LAYERS.get(target, (None, 99))[1] >= rank]
    assert not bad, (f"numreduce/{module}.py ({LAYERS[module][0]}) imports a module of its "
                     f"own or a higher layer: {bad}")


def test_no_import_circle():
    """The graph itself (redundant with the ranks, and a check of them)."""
    mods = _modules()
    edges = {m: {t for t, _, _ in _imports(p) if t in mods and t != m} for m, p in mods.items()}
    state = {}

    def visit(m, path):
        state[m] = 1
        for t in edges[m]:
            assert state.get(t) != 1, f"import circle: {' -> '.join(path + [m, t])}"
            if t not in state:
                visit(t, path + [m])
        state[m] = 2

    for m in mods:
        if m not in state:
            visit(m, [])


@pytest.mark.parametrize("module", BACKENDS)
def test_backends_import_no_private_names(module):
    path = _modules().get(module)
    if path is None:
        pytest.fail(f"numreduce/{module}.py is missing")
    tree = ast.parse(path.read_text())
    private = [(t, n, line) for t, names, line in _imports(path) for n in names
               if n.startswith("_") and n != "annotations"]
    assert not private, f"{module} imports private names: {private}"
    # nor through a module: `from . import _core` then `_core._merge(...)`
    modules = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               and node.level == 1 and not node.module for a in node.names}
    attrs = sorted({f"{n.value.id}.{n.attr}" for n in ast.walk(tree)
                    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                    and n.value.id in modules and n.attr.startswith("_")})
    assert not attrs, f"{module} uses private names of other modules: {attrs}"


def test_architecture_page_names_real_modules():
    """docs/architecture.md names only modules that exist, and every module."""
    text = (DOCS / "architecture.md").read_text()
    named = set(re.findall(r"numreduce/(\w+)\.py", text))
    assert named, "docs/architecture.md names no module"
    assert named <= set(_modules()), sorted(named - set(_modules()))
    assert set(_modules()) <= named, sorted(set(_modules()) - named)
