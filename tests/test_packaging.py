"""pyproject.toml's wheel configuration ([tool.cibuildwheel]) agrees with
itself and with the project: the CPython versions the build selector
builds, requires-python and the classifiers name the same ones; the test
command's files exist and need nothing beyond the test requirements; the
operating-system classifiers are the platforms configured.  `problems()`
returns what is wrong; the tests below also feed it broken copies, so that
each check is seen to fail."""

import ast
import copy
import pathlib
import re
import sys
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

# import name -> distribution name, where they differ (none today)
DIST_OF_MODULE: dict[str, str] = {}
# the operating-system classifier of each cibuildwheel platform table
OS_CLASSIFIER = {
    "linux": "Operating System :: POSIX :: Linux",
    "macos": "Operating System :: MacOS",
    "windows": "Operating System :: Microsoft :: Windows",
}


def load():
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def _req_name(req):
    return re.match(r"[A-Za-z0-9._-]+", req)[0].lower().replace("_", "-")


def build_versions(selector):
    """{(3, 11), ...} from a build selector such as 'cp311-* cp312-*'; a
    token that is not a plain CPython selector is returned as a string."""
    out = set()
    for tok in selector.split():
        m = re.fullmatch(r"cp3(\d+)-\*", tok)
        out.add((3, int(m[1])) if m else tok)
    return out


def classifier_versions(classifiers):
    return {(3, int(m[1])) for c in classifiers
            if (m := re.fullmatch(r"Programming Language :: Python :: 3\.(\d+)", c))}


def command_test_files(command):
    return re.findall(r"\{project\}/tests/(\S+\.py)", command)


def _imported_modules(path):
    """The top-level modules a file imports at module level: its import
    statements (one missing fails the whole file's collection) and its
    module-level pytest.importorskip("x") (one missing skips the whole
    file, which the wheel test must not do in silence)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    mods = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            mods |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            mods.add(node.module.split(".")[0])
        for call in ast.walk(node):
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "importorskip" and call.args
                    and isinstance(call.args[0], ast.Constant)):
                mods.add(call.args[0].value.split(".")[0])
    return mods


def problems(pp, tests_dir=TESTS):
    """Every incoherence found in the parsed pyproject `pp`."""
    out = []
    project, cibw = pp["project"], pp.get("tool", {}).get("cibuildwheel")
    if cibw is None:
        return ["pyproject.toml has no [tool.cibuildwheel]"]

    # --- Python versions: build selector, classifiers, requires-python
    built = build_versions(cibw["build"])
    odd = sorted(v for v in built if isinstance(v, str))
    if odd:
        out.append(f"build selector tokens other than cp3XX-*: {odd}")
    built = {v for v in built if not isinstance(v, str)}
    classified = classifier_versions(project.get("classifiers", []))
    if built != classified:
        out.append(f"build selector builds {sorted(built)}, classifiers name {sorted(classified)}")
    m = re.fullmatch(r">=\s*3\.(\d+)", project["requires-python"])
    if not m:
        out.append(f"requires-python {project['requires-python']!r} is not '>=3.X'")
    elif built:
        lowest = (3, int(m[1]))
        if min(built) != lowest:
            out.append(f"requires-python starts at {lowest}, the build selector at {min(built)}")
        gaps = [(3, n) for n in range(lowest[1], max(built)[1]) if (3, n) not in built]
        if gaps:
            out.append(f"the build selector skips {gaps}")

    # --- the test command: its files exist and need only the test requirements
    files = command_test_files(cibw.get("test-command", ""))
    if not files:
        out.append("the test-command names no {project}/tests/*.py file")
    missing = [f for f in files if not (tests_dir / f).is_file()]
    if missing:
        out.append(f"the test-command's files do not exist: {missing}")
    if "{project}/tests " in cibw.get("test-command", "") + " ":
        out.append("the test-command runs the whole tests/ folder, not a subset")
    test_extra = {_req_name(r): r for r in project["optional-dependencies"]["test"]}
    requires = cibw.get("test-requires", [])
    for r in requires:
        if _req_name(r) not in test_extra:
            out.append(f"test-requires {r!r} is not in the [test] extra")
        elif test_extra[_req_name(r)] != r:
            out.append(f"test-requires {r!r} differs from the [test] extra's "
                       f"{test_extra[_req_name(r)]!r}")
    available = {_req_name(r) for r in requires} | {_req_name(r) for r in project["dependencies"]}
    for extra in cibw.get("test-extras", []):
        available |= {_req_name(r) for r in project["optional-dependencies"].get(extra, [])}
    local = {p.stem for p in tests_dir.glob("*.py")} | {"numreduce"}
    # the files, conftest.py and the local modules they import (helpers.py)
    scanned = [f for f in [*files, "conftest.py"] if (tests_dir / f).is_file()]
    for f in list(scanned):
        scanned += sorted(f"{m}.py" for m in _imported_modules(tests_dir / f) & local
                          if m != "numreduce" and f"{m}.py" not in scanned)
    needed = {}
    for f in scanned:
        for mod in _imported_modules(tests_dir / f):
            if mod in sys.stdlib_module_names or mod in local:
                continue
            dist = DIST_OF_MODULE.get(mod, mod).lower().replace("_", "-")
            if dist not in available:
                needed.setdefault(dist, []).append(f)
    if needed:
        out.append(f"the test-command's files import what test-requires lacks: {needed}")

    # --- operating systems: classifiers = platforms with a configuration
    classifiers = set(project.get("classifiers", []))
    configured = {plat for plat in OS_CLASSIFIER if cibw.get(plat, {}).get("archs")}
    for plat, text in OS_CLASSIFIER.items():
        if (plat in configured) != (text in classifiers):
            out.append(f"{plat}: archs configured {plat in configured}, "
                       f"classifier {text!r} present {text in classifiers}")
    linux = cibw.get("linux", {})
    for key, value in linux.items():
        if key.endswith("-image") and not re.fullmatch(r"(many|musl)linux_\d+_\d+", value):
            out.append(f"linux {key} = {value!r} is not a manylinux_X_Y/musllinux_X_Y image")
    return out


def test_wheel_configuration_is_coherent():
    assert problems(load()) == []


def test_the_subset_covers_the_core():
    """The files the wheels are tested with cover the core C++ kernels."""
    files = set(command_test_files(load()["tool"]["cibuildwheel"]["test-command"]))
    core = {"test_reduce_minmax.py", "test_argminmax.py", "test_fsum.py", "test_meanvar.py",
            "test_logsumexp.py", "test_simd_levels.py"}
    assert core <= files, sorted(core - files)


def _broken(edit):
    pp = copy.deepcopy(load())
    edit(pp)
    return problems(pp)


@pytest.mark.parametrize("edit, expected", [
    (lambda pp: pp["tool"].pop("cibuildwheel"), "has no [tool.cibuildwheel]"),
    (lambda pp: pp["tool"]["cibuildwheel"].update(build="cp311-* cp312-* cp313-*"),
     "build selector builds"),
    (lambda pp: pp["tool"]["cibuildwheel"].update(build="cp311-* cp313-* cp314-*"),
     "build selector builds"),
    (lambda pp: pp["tool"]["cibuildwheel"].update(build="cp3*-*"), "other than cp3XX"),
    (lambda pp: pp["project"].update({"requires-python": ">=3.12"}), "requires-python starts at"),
    (lambda pp: pp["project"]["classifiers"].remove("Programming Language :: Python :: 3.14"),
     "classifiers name"),
    (lambda pp: pp["tool"]["cibuildwheel"].update(
        {"test-command": pp["tool"]["cibuildwheel"]["test-command"].replace(
            "test_fsum.py", "test_fsumm.py")}), "do not exist"),
    (lambda pp: pp["tool"]["cibuildwheel"].update(
        {"test-command": "python -m pytest {project}/tests -q"}), "names no"),
    # test_logsumexp.py imports scipy.special; its module-level
    # importorskip("mpmath") would skip the whole file; helpers.py (imported
    # by the files) and conftest.py import hypothesis
    (lambda pp: pp["tool"]["cibuildwheel"]["test-requires"].remove("scipy>=1.13"),
     "import what test-requires lacks"),
    (lambda pp: pp["tool"]["cibuildwheel"]["test-requires"].remove("mpmath>=1.3"),
     "import what test-requires lacks"),
    (lambda pp: pp["tool"]["cibuildwheel"]["test-requires"].remove("hypothesis>=6.80"),
     "import what test-requires lacks"),
    (lambda pp: pp["tool"]["cibuildwheel"]["test-requires"].append("numba"),
     "not in the [test] extra"),
    (lambda pp: pp["tool"]["cibuildwheel"].update(
        {"test-requires": ["pytest", "hypothesis>=6.80", "scipy>=1.13", "mpmath>=1.3"]}),
     "differs from the [test] extra"),
    (lambda pp: pp["project"]["classifiers"].remove("Operating System :: MacOS"), "macos"),
    (lambda pp: pp["tool"]["cibuildwheel"].pop("windows"), "windows"),
    (lambda pp: pp["tool"]["cibuildwheel"]["linux"].update(
        {"manylinux-x86_64-image": "quay.io/pypa/manylinux_2_28_x86_64:latest"}),
     "is not a manylinux"),
])
def test_each_check_can_fail(edit, expected):
    found = _broken(edit)
    assert any(expected in p for p in found), found
